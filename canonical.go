package dpmne

// canonicalSigns gives each column of the embedding a canonical sign: its
// largest-magnitude entry positive (the first such entry on a tie), as
// scikit-learn's svd_flip does. A fit determines each column only up to
// its sign — the objective is unchanged when a column of Y and the
// matching row of every B^s change sign together — and builds with other
// BLAS libraries (OpenBLAS, pure Go) or other eigensolvers pick different
// signs; after this they give the same embedding to float tolerance.
//
// With a heat filter the embedding is Y_c·F, and a column of F changes
// sign; otherwise a column of Y and the same row of every basis B^s do.
// Either way the model stays consistent: Y·B^s, Embed and Impute are
// unchanged but for the signs of the embedding's columns.
func (m *Model) canonicalSigns() {
	e := m.embedding()
	n, d := e.Dims()
	for j := range d {
		best, sign := 0.0, 1.0
		for i := range n {
			if v := e.At(i, j); v > best || -v > best {
				best, sign = max(v, -v), v
			}
		}
		if sign < 0 {
			m.flipColumn(j)
		}
	}
	// Y's column means changed sign with Y's columns; Embed's factored
	// systems, Σ_s B^s·B^sᵀ + ρI, are only made on first use.
	m.mean.Store(nil)
	m.embed.Store(nil)
}

// flipColumn changes the sign of the embedding's column j: a column of the
// heat filter F, or else column j of Y and row j of every basis B^s. The
// caller resets the caches that depend on Y and B (canonicalSigns does).
func (m *Model) flipColumn(j int) {
	if m.Filter != nil {
		d, _ := m.Filter.Dims()
		for i := range d {
			m.Filter.Set(i, j, -m.Filter.At(i, j))
		}
		return
	}
	n, _ := m.Y.Dims()
	for i := range n {
		m.Y.Set(i, j, -m.Y.At(i, j))
	}
	for _, v := range m.Views {
		row := v.B.RawRowView(j)
		for k := range row {
			row[k] = -row[k]
		}
	}
}
