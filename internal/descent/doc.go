// Package descent holds the d×d pieces of the fit's preconditioned descent
// on Y, the ones computed from row sums once the rows are summed: the
// preconditioner, the curvature of R(Y) = λ‖YᵀY − I‖² along a direction,
// the ridge of the rows solved in closed form and their solve. The
// in-process fit (package dpmne) and the Beam fit (beam/beamfit), which
// sums the rows by shards, both call these, so that each formula is
// written once.
package descent
