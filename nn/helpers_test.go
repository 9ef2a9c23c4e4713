package nn

import (
	"math/rand/v2"

	"github.com/dpmne/dpmne/sparse"
)

// randomCSR returns a rows×cols matrix whose entries are non-zero with
// probability density; non-zeros are 1 when binary, else uniform in (0, 1].
func randomCSR(rng *rand.Rand, rows, cols int, density float64, binary bool) *sparse.CSR {
	m := &sparse.CSR{Rows: rows, Cols: cols, Ptr: make([]int, rows+1)}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if rng.Float64() < density {
				v := float32(1)
				if !binary {
					v = 1 - rng.Float32()
				}
				m.Ind = append(m.Ind, int32(j))
				m.Val = append(m.Val, v)
			}
		}
		m.Ptr[i+1] = len(m.Ind)
	}
	return m
}

// fixedNNZ returns a rows×cols 0/1 matrix with exactly nnz non-zeros per
// row in random columns, like Cora's attribute rows (≈18 words per paper)
// or adjacency rows (≈4 citations per paper).
func fixedNNZ(rng *rand.Rand, rows, cols, nnz int) *sparse.CSR {
	m := &sparse.CSR{Rows: rows, Cols: cols, Ptr: make([]int, rows+1)}
	mark := make([]bool, cols)
	for i := 0; i < rows; i++ {
		for _, j := range rng.Perm(cols)[:nnz] {
			mark[j] = true
		}
		for j := range mark {
			if mark[j] {
				m.Ind = append(m.Ind, int32(j))
				m.Val = append(m.Val, 1)
				mark[j] = false
			}
		}
		m.Ptr[i+1] = len(m.Ind)
	}
	return m
}

// plantedClusters returns rows×cols 0/1 data in k clusters: cluster c owns
// the columns j with j%k == c, which are on with probability pIn in its rows;
// every other entry is on with probability pOut. labels[i] is row i's cluster.
func plantedClusters(rng *rand.Rand, rows, cols, k int, pIn, pOut float64) (*sparse.CSR, []int) {
	m := &sparse.CSR{Rows: rows, Cols: cols, Ptr: make([]int, rows+1)}
	labels := make([]int, rows)
	for i := 0; i < rows; i++ {
		c := i % k
		labels[i] = c
		for j := 0; j < cols; j++ {
			p := pOut
			if j%k == c {
				p = pIn
			}
			if rng.Float64() < p {
				m.Ind = append(m.Ind, int32(j))
				m.Val = append(m.Val, 1)
			}
		}
		m.Ptr[i+1] = len(m.Ind)
	}
	return m, labels
}
