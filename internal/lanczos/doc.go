// Package lanczos finds the largest eigenpairs of a symmetric operator
// given only by its products with vectors, by thick-restart Lanczos (Wu and
// Simon 2000), so that a sparse matrix is never densified. The spectral
// baseline and DPMNE's spectral start of Y use it.
package lanczos
