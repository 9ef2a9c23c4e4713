// Package codes turns a DPMNE embedding into binary codes and searches
// codes and embeddings exactly.
//
// DPMNE's objective is invariant to rotating the embedding Y (n×d) by any
// orthogonal Q (paper §3.6, "Binary Embedding"), so binary codes can be
// read off Y directly or after a rotation chosen to lose as little as
// possible in the binarisation:
//
//   - Sign (bi-DPMNE) centres each column of Y on its mean and keeps the
//     signs: bit j of code i is 1 when Y[i][j] − mean_j > 0, else 0. The
//     mean of a constant column equals its value exactly (ColumnMeans),
//     so a constant column gives 0 in every code; zeros and NaNs give 0.
//   - ITQ (bi-DPMNE-ITQ) is iterative quantisation (Y. Gong, S. Lazebnik,
//     A. Gordo, F. Perronnin, "Iterative Quantization: A Procrustean
//     Approach to Learning Binary Codes for Large-Scale Image Retrieval",
//     IEEE TPAMI 35(12), 2013) applied to the centred embedding V: it
//     minimises ‖B − V R‖²_F over B ∈ {−1,1}^{n×d} and orthogonal R
//     (paper Eqn. 14) by alternating B = sign(V R) and the orthogonal
//     Procrustes step R = U Wᵀ, where U Σ Wᵀ is the SVD of Vᵀ B, starting
//     from a random orthogonal R. Each step can only lower the loss. The
//     codes are then sign(V R), with the same bit convention as Sign, and
//     ITQResult.Encode codes new rows with the learned mean and R.
//   - CCA-ITQ, the paper's Table 5 baseline (Gong et al. 2013, §4), is ITQ
//     applied to the canonical variates of several views: FitCCA computes
//     a regularised canonical correlation analysis of two views, or MAXVAR
//     generalised CCA of more, from P×P covariance matrices (P the total
//     width of the views, never n×n), and CCA.Project maps a view onto its
//     variates. Package experiment's "cca-itq" method builds the views and
//     chains the two.
//
// # Bit layout
//
// Codes holds N codes of Bits bits packed into W = (Bits+63)/64 uint64
// words per code, row-major. Bit j of a code is bit j%64 (least
// significant first) of word j/64; 1 means positive. Unused high bits of
// the last word are always zero, so Hamming distances are popcounts of
// XORed words.
//
// PackBits converts to numpy's np.packbits(bits, axis=1) layout:
// (Bits+7)/8 bytes per code, bit j in bit 7−j%8 (most significant first)
// of byte j/8. WriteNpy writes that as a uint8 .npy array through package
// npy, so Python reads the 0/1 matrix with
//
//	np.unpackbits(np.load("codes.npy"), axis=1, count=bits)
//
// # File format
//
// Codes.Write and ReadCodes use a small little-endian binary format:
//
//	offset  size    content
//	0       8       magic "DPMNEBC1"
//	8       8       N, uint64: number of codes
//	16      8       Bits, uint64: bits per code, 1 ≤ Bits ≤ MaxBits
//	24      8·N·W   the words, uint64 each, code after code
//
// A file is exactly 24 + 8·N·W bytes. ReadCodes checks the header against
// the input's size (or, when the size is unknown, reads incrementally) so
// a corrupt header cannot make it allocate more than the input holds, and
// rejects codes with bits set above Bits. Its errors are *FormatError
// values carrying the byte offset of the problem. Writing atomically
// (temporary file and rename) is left to the caller. FuzzReadCodes checks
// the reader on arbitrary input from small seeds; run it for a minute with
//
//	go test -run '^$' -fuzz '^FuzzReadCodes$' -fuzztime 60s ./codes
//
// # Search
//
// Codes.HammingTopK and Index.CosineTopK are exact scans: the rows are
// split into contiguous chunks, one per worker goroutine, each keeping a
// bounded heap of its k best candidates; the heaps are then merged. The
// order is total (score, then smaller index), so results do not depend on
// the number of workers. Index stores float32 rows normalised once to
// unit length, so the cosine similarity is one float32 dot product per
// row. A row that is all zero (or not finite) has no direction, and no
// cosine to anything: it is never a neighbour, and as a query it is
// refused (ErrZeroQuery) rather than answered with the first k rows at
// cosine 0. HammingTopKContext and CosineTopKContext stop a scan once their
// context is done (the server's per-request deadline, Ctrl-C in dpmne
// search).
package codes
