// Package dpmne learns node embeddings from partial multiplex networks with
// DPMNE, "Deep Partial Multiplex Network Embedding" (WWW'22 Companion).
//
// Each view s has a deep autoencoder whose codes H^s, on the nodes observed
// in the view, are tied to a common embedding Y through a per-view basis B^s;
// linked nodes are kept close through the Laplacian of a high-order proximity
// Σ_k w_k (E^s)^k (package proximity). The objective
//
//	O = Σ_s ‖X^s − X̃^s‖² + α Σ_s ‖I^s(H^s − Y B^s)‖² + β tr(YᵀLY) + λ R(Y) + λ_B Σ_s ‖B^s‖² + λ_W Σ‖W‖²
//
// is minimised by coordinate descent over Y, the B^s and the autoencoders.
//
// # Fuzzing
//
// ReadModel and ReadCheckpoint have fuzz targets seeded with tiny
// hand-made files (3 nodes in 2 dimensions, one view with a 2-unit
// autoencoder), so that the fuzzer spends its time on new inputs rather
// than on shrinking large ones. Run each for a minute with
//
//	go test -run '^$' -fuzz '^FuzzReadModel$' -fuzztime 60s .
//	go test -run '^$' -fuzz '^FuzzReadCheckpoint$' -fuzztime 60s .
//
// Inputs found interesting are kept in the Go build cache and read again
// by later runs; go clean -fuzzcache drops them, large ones left by older
// seeds included.
package dpmne
