package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

// Train a cross-entropy autoencoder on a small sparse 0/1 matrix and encode
// its rows.
func Example() {
	// 40 rows × 12 columns in two groups: even rows use columns 0–5, odd
	// rows columns 6–11, each row three of its group's columns.
	rng := rand.New(rand.NewPCG(1, 2))
	x := &sparse.CSR{Rows: 40, Cols: 12, Ptr: make([]int, 41)}
	for i := 0; i < x.Rows; i++ {
		base := 6 * (i % 2)
		for j := 0; j < 6; j++ {
			if (i/2+j)%2 == 0 {
				x.Ind = append(x.Ind, int32(base+j))
				x.Val = append(x.Val, 1)
			}
		}
		x.Ptr[i+1] = len(x.Ind)
	}

	ae, err := nn.New(x.Cols, nn.Config{Hidden: []int{8, 2}, Loss: nn.CrossEntropy, LearningRate: 1e-2}, rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := nn.NewTrainer(ae)
	first, err := tr.Epoch(x, nil, 8, rng, nil, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	var last nn.StepLoss
	for range 50 {
		if last, err = tr.Epoch(x, nil, 8, rng, nil, 0); err != nil {
			fmt.Println(err)
			return
		}
	}
	codes := make([]float32, x.Rows*ae.CodeDim())
	ae.Encode(x, nil, codes)

	fmt.Println("code dimension:", ae.CodeDim())
	fmt.Println("loss went down:", last.Recon < first.Recon)
	// Output:
	// code dimension: 2
	// loss went down: true
}
