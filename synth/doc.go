// Package synth generates partial multiplex networks with planted classes:
// a stochastic block model per view with class-correlated sparse features and
// per-view missing nodes. It is dpmne's built-in default data, for the demo,
// the tests and the scaling benchmarks.
//
// Generation costs time and memory linear in nodes + edges + feature
// non-zeros (never a dense n×n or n×d array), so a million nodes with three
// views and ten edges per node per view fit in a few gigabytes. The same
// Config and seed always give the same network.
package synth
