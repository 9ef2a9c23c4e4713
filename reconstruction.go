package dpmne

import (
	"math/rand/v2"
	"slices"

	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

// updateCodes encodes the observed rows into the dense codes; the rows of
// unobserved nodes are never written and stay zero. When every node is
// observed the encoder writes into the codes directly; otherwise it goes
// through a buffer of a few thousand rows, not one of all n.
func updateCodes(ae *nn.Autoencoder, x *sparse.CSR, rows []int, c *denseCodes) {
	c.changed()
	if len(rows) == c.n {
		ae.Encode(x, rows, c.data)
		return
	}
	const chunk = 4096
	buf := make([]float32, min(chunk, len(rows))*c.h)
	for lo := 0; lo < len(rows); lo += chunk {
		part := rows[lo:min(lo+chunk, len(rows))]
		ae.Encode(x, part, buf)
		for k, i := range part {
			copy(c.data[i*c.h:(i+1)*c.h], buf[k*c.h:(k+1)*c.h])
		}
	}
}

// reconTerms evaluates the reconstruction loss and the weight penalty over
// every view's observed rows, in batches: exactly when the autoencoders
// train on the exact loss, and otherwise by the same sampled estimate they
// train on (non-zeros plus sampled zeros, drawn from a fixed seed), because
// the exact loss densifies a batch's rows to their full width, which for an
// adjacency-row view of a large graph is n wide. A view with more than
// reconRows observed rows is estimated from an evenly spaced reconRows of
// them, scaled up: the value is only reported (iteration 0), and on a
// million nodes the full pass took over a minute.
func reconTerms(trainers []*nn.Trainer, xs []*sparse.CSR, rows [][]int) (recon, regW float64) {
	const reconRows = 20000
	for s, tr := range trainers {
		const batch = 1024
		sampled := tr.Autoencoder().Cfg.NegativeSamples > 0
		if sampled {
			tr.SetSampler(rand.New(rand.NewPCG(0x7265636f6e, uint64(s))))
		}
		rs, scale := rows[s], 1.0
		if len(rs) > reconRows {
			sub := make([]int, reconRows)
			for i := range sub {
				sub[i] = rs[i*len(rs)/reconRows]
			}
			rs, scale = sub, float64(len(rows[s]))/reconRows
		}
		var r float64
		for lo := 0; lo < len(rs); lo += batch {
			b := rs[lo:min(lo+batch, len(rs))]
			if sampled {
				r += tr.Loss(xs[s], b, nil, 0).Recon
			} else {
				r += tr.ExactLoss(xs[s], b, nil, 0).Recon
			}
		}
		recon += scale * r
		ae := tr.Autoencoder()
		var w float64
		for _, l := range ae.Layers {
			for _, v := range l.W {
				w += float64(v) * float64(v)
			}
		}
		regW += float64(ae.Cfg.WeightDecay) * w
	}
	return recon, regW
}

// rowTargets holds the autoencoder's regression targets y_i B^s for the rows
// one iteration trains on, computed by one product of those rows of Y with
// B^s rather than for all n nodes.
type rowTargets struct {
	ys, t []float64 // the rows' Y (k×d) and targets (k×h)
	pos   []int32   // node → row of t, −1 for nodes not in the rows
}

// compute returns the target callback for rows and the weight α of the
// regression term (nil, 0 without the consistency term). The callback must
// only be asked for nodes in rows.
func (r *rowTargets) compute(sub *subspace, v *viewFit, alpha float64, rows []int) (func(int, []float32), float32) {
	if alpha == 0 {
		return nil, 0
	}
	n, d, h, k := sub.n, sub.d, v.h.Dim(), len(rows)
	if r.pos == nil {
		r.pos = make([]int32, n)
	}
	for i := range r.pos {
		r.pos[i] = -1
	}
	r.ys = slices.Grow(r.ys[:0], k*d)[:k*d]
	r.t = slices.Grow(r.t[:0], k*h)[:k*h]
	for p, i := range rows {
		copy(r.ys[p*d:(p+1)*d], sub.y[i*d:(i+1)*d])
		r.pos[i] = int32(p)
	}
	gemm(false, false, 1, r.ys, k, d, v.b, d, h, 0, r.t)
	return func(node int, dst []float32) {
		p := int(r.pos[node])
		for j, x := range r.t[p*h : (p+1)*h] {
			dst[j] = float32(x)
		}
	}, float32(alpha)
}
