// Package features prepares each view's input to its autoencoder, and its
// graph to the proximity, as a DPMNE fit reads them: features smoothed
// along the view's own graph and along the graphs of the views without
// features, a partial view re-linked by its features' nearest neighbours,
// adjacency rows clipped to [0, 1], features outside it scaled column by
// column. Prepare does it; Config.SmoothedNNZ bounds the sizes without
// forming them, for the memory model of a fit.
package features
