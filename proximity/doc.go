// Package proximity applies DPMNE's high-order proximity Laplacian to a dense
// embedding without ever forming it.
//
// The paper (§3.4) defines, per view s, P^s = Σ_{k=1..l} w_k (E^s)^k with
// l = 5, w_1 = 1 and w_k = w_{k−1}/2, sums P = Σ_s P^s, and penalises
// tr(Yᵀ L Y) with L = D − P, D = diag(P·1). P is dense for any connected
// graph, so the Operator keeps only the sparse E^s and applies P·Y by
// Horner's rule, Σ_k w_k E^k Y = E(w_1 Y + E(w_2 Y + … E(w_l Y))): l sparse
// products per view. The degrees D are P·1, computed the same way once.
//
// Raw adjacency powers explode on real graphs (on Cora the degrees of P range
// from about 1e2 to 4.5e5, and hubs dominate), so E^s can first be
// normalised: NormSymmetric uses D^-1/2 E D^-1/2; NormRandomWalk uses the
// row-stochastic D^-1 E and symmetrises P afterwards, (P + Pᵀ)/2. Laplacian
// selects L = D − P or the normalised I − D^-1/2 P D^-1/2.
package proximity
