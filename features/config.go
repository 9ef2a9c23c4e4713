package features

// Config says how each view's own features are prepared before its
// autoencoder reads them. A view without features of its own, whose
// adjacency rows the autoencoder reads, is left as it is.
type Config struct {
	// Propagate smooths each view's features along the view's graph this
	// many times, each time x_i ← (x_i + mean of x_j over i and its
	// observed neighbours) / 2, a lazy random-walk step (0: raw features,
	// the paper's).
	Propagate int
	// KNN > 0 re-links each view that has features of its own and misses
	// some nodes (Relinkable): every observed node is also linked to the
	// KNN observed nodes with the most similar features by cosine
	// (multiplex.KNNGraph), the union with the view's edges serving as its
	// graph for the proximity and for Propagate. The search is exact, its
	// cost growing with the square of the nodes sharing a feature column.
	// 0: off.
	KNN int
	// PropagateAcross > 0 smooths each view's features this many times
	// along the graph of every view without features of its own, in the
	// views' order, before KNN and Propagate read them: the lazy step of
	// Propagate over the nodes observed in both views. It changes nothing
	// on a network whose views all have features, or none has. 0: off.
	PropagateAcross int
	// AlongUnion, one entry for every view or one per view, makes
	// Propagate smooth the features of each view marked true along the
	// union of the views' graphs that Prepare is given (those the
	// proximity reads) in place of the view's own graph: for a view whose
	// own graph holds nothing, where the views' graphs together do. nil
	// (the default): every view along its own graph, unless a DPMNE fit's
	// balance marks some (dpmne.Config.Balanced).
	AlongUnion []bool
}

// SmoothsAlongUnion reports whether c smooths view s of t views along the
// union (AlongUnion).
func (c Config) SmoothsAlongUnion(s, t int) bool {
	switch len(c.AlongUnion) {
	case 0:
		return false
	case 1:
		return c.AlongUnion[0]
	}
	return s < t && s < len(c.AlongUnion) && c.AlongUnion[s]
}
