// Package sparse holds the compressed sparse row (CSR) matrix that dpmne uses
// for node features and adjacency, and the few operations the data path needs:
// building from coordinate triplets with duplicate merging, symmetrizing,
// dropping self-loops, selecting rows, and transposing.
//
// Indices are int32 and values float32, so a matrix costs 8 bytes per
// non-zero plus 8 bytes per row: a million-node graph with ten edges per node
// fits in well under a gigabyte. Row pointers are int, so the number of
// non-zeros is limited only by memory.
//
// Builders return a matrix whose rows have strictly increasing column indices.
// Every function in this package preserves that invariant; Check verifies it.
package sparse
