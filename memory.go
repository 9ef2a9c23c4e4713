package dpmne

import (
	"fmt"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/proximity"
)

// Memory is an estimate of the memory a fit holds at its peak, by part, in
// bytes: the model of docs/experiments.md, "Memory, checkpoints", counted from the arrays the
// code allocates (n nodes, d dimensions, t views, code width h).
type Memory struct {
	// Data: the loaded network, 8 bytes per stored adjacency or feature
	// entry (int32 index, float32 value) and 8 per row pointer.
	Data int64
	// Proximity: a view re-linked by its features (Config.Features.KNN) as a
	// graph of its own, each observed node adding at most 2k entries; a
	// normalised copy of every adjacency (8 bytes per entry)
	// and the Horner buffers, four float32 arrays of n×2d for the
	// random-walk normalisation (n×d otherwise), and n·d float64 more for
	// the normalised Laplacian.
	Proximity int64
	// Subspace: Y, L·Y, K = Σ_s H^s·B^sᵀ and two n×d work arrays (the
	// gradient turned into the step direction in place, and L times it):
	// 5·n·d float64 (7·n·d with the Stiefel solver, which saves Y and
	// L·Y before each step), two blocks of 512 rows for the unobserved
	// rows' corrections, and the rows left out of R(Y)
	// (Config.Solver.OrthAllNodes).
	Subspace int64
	// Codes: per view the n×h float32 codes H (autoencoders), or a masked
	// copy of the features and its transpose (identity encoders, 16 bytes
	// per non-zero); with Config.Features.Propagate or PropagateAcross, also the
	// smoothed features (8 bytes per non-zero, bounded by acrossRowNNZ and
	// propagatedCounts).
	Codes int64
	// Autoencoders: per view the float32 weights, gradient and two Adam
	// moments (16 bytes per parameter; 12 for the output layer of a wide
	// view), and a float32 encoding buffer of up to 4,096 rows.
	Autoencoders int64
	// Transient: the initialisation's n×(d+10) float64 range basis (its
	// orthonormalisation works in place). The model at the end takes Y and
	// the autoencoders without copies; the heat filter (Config.FilterTau)
	// needs the centred Y and L times it, 2·n·d float64, which is less.
	Transient int64
}

// Total returns the sum of the parts.
func (m Memory) Total() int64 {
	return m.Data + m.Proximity + m.Subspace + m.Codes + m.Autoencoders + m.Transient
}

// String formats the estimate with its parts, in MiB.
func (m Memory) String() string {
	mb := func(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
	return fmt.Sprintf("%s (data %s, proximity %s, subspace %s, codes %s, autoencoders %s, transient %s)",
		mb(m.Total()), mb(m.Data), mb(m.Proximity), mb(m.Subspace), mb(m.Codes), mb(m.Autoencoders), mb(m.Transient))
}

// EstimateMemory estimates the peak memory of fitting net with cfg (see
// Memory). It is linear in nodes, stored entries and parameters: nothing in
// a fit is n×n or n×(feature width) dense, but for the exact
// reconstruction loss (NegativeSamples 0), whose batches (1,024 rows, or
// Autoencoder.Batch if more) are densified to the views' widths, counted
// here too. net must be valid
// (Network.Validate, which Fit calls and EstimateMemory does not): on
// views whose shapes disagree with the network's it panics.
func EstimateMemory(net *multiplex.Network, cfg Config) Memory {
	cfg = cfg.ForNetwork(net)
	recs, _ := cfg.Reconstructions(net) // a refusal is Fit's to report
	smooth := cfg.Features
	if cfg.Balances() && smooth.AlongUnion == nil {
		// The balance may smooth any view's features along the union of
		// every view's graph (Config.Balanced) rather than its own: the
		// bound counts the union, which holds the view's own graph.
		smooth.AlongUnion = []bool{true}
	}
	views := make([]viewSizes, len(net.Views))
	for s, v := range net.Views {
		x := v.FeatureMatrix()
		vs := viewSizes{
			adjNNZ:   int64(v.Adj.NNZ()),
			features: v.Features != nil,
			observed: int64(v.NumObserved()),
			linked:   cfg.Features.KNN > 0 && features.Relinkable(v),
			in:       int64(x.Cols),
			nnz:      int64(x.NNZ()),
			rows:     int64(v.NumObserved()),
			scaled:   recs != nil && recs[s].Scale,
			centred:  recs != nil && recs[s].Centre,
			wide:     x.Cols >= nn.WideInput,
		}
		if vs.features {
			vs.featNNZ = vs.nnz
		}
		if cfg.Features.Smooths(vs.features) {
			vs.nnz, vs.rows = smooth.SmoothedNNZ(net, s)
		}
		views[s] = vs
	}
	return memoryOf(int64(net.N()), views, cfg)
}

// EstimateMemoryBound returns a lower bound on EstimateMemory(net, cfg)
// for every network net that b bounds (multiplex.Manifest.Bounds), so
// that a fit can be refused before its data are loaded. It is
// EstimateMemory's model with every size at the bound b gives, or at its
// smallest where b says nothing: b's nodes, each view's feature columns
// (a featureless view's input as wide as the nodes), no stored entries,
// no view re-linked by its features, no scaled copy the autoencoders
// read, every output layer taken as wide (nn.WideInput) and no rows left
// out of R(Y) (Config.Solver.OrthAllNodes, which ForNetwork may set).
// EstimateMemory on the loaded network is the exact check.
func EstimateMemoryBound(b *multiplex.Bounds, cfg Config) Memory {
	cfg.Solver.OrthAllNodes = true
	n := int64(b.Nodes)
	views := make([]viewSizes, len(b.Views))
	for s, v := range b.Views {
		views[s] = viewSizes{features: v.Features, in: n, wide: true}
		if v.Features {
			views[s].in = int64(v.FeatureCols)
		}
	}
	return memoryOf(n, views, cfg)
}

// viewSizes are the sizes of one view that Memory's model counts
// (memoryOf).
type viewSizes struct {
	adjNNZ   int64 // stored adjacency entries
	features bool  // the view has features of its own
	featNNZ  int64 // stored entries of its own features
	observed int64 // observed nodes
	linked   bool  // re-linked by its features (Config.Features.KNN)
	// in is the width of the autoencoder's input, the features' columns
	// (the adjacency's without features), nnz its non-zeros after the
	// smoothing of Config.Features.Propagate and PropagateAcross, and rows the rows
	// that hold features.
	in, nnz, rows int64
	// scaled and centred say whether the autoencoder reads a scaled
	// copy of its input, centred on the observed rows (Reconstructions).
	scaled, centred bool
	// wide says whether the output layer keeps no dense gradient with
	// sampled reconstruction (nn.WideInput): 12 bytes a weight, not 16.
	wide bool
}

// memoryOf is Memory's model: the peak memory of a fit with cfg (with
// its defaults set) of n nodes and views of the given sizes. It grows
// with every size (wide aside, which lowers it), so that sizes at lower
// bounds give a lower bound.
func memoryOf(n int64, views []viewSizes, cfg Config) Memory {
	d, h, k := int64(cfg.Dim), int64(cfg.Autoencoder.Hidden[len(cfg.Autoencoder.Hidden)-1]), int64(cfg.Features.KNN)
	var m Memory
	for _, v := range views {
		m.Data += 8*v.adjNNZ + 8*(n+1)
		if v.features {
			m.Data += 8*v.featNNZ + 8*(n+1)
		}
		if v.linked {
			m.Proximity += 8*(v.adjNNZ+2*k*v.observed) + 8*(n+1)
		}
	}
	if !cfg.NoProximity {
		for _, v := range views {
			m.Proximity += 8*v.adjNNZ + 8*(n+1) + 16*n
			if v.linked {
				m.Proximity += 16 * k * v.observed
			}
		}
		// The Horner passes' float32 input, term, successor and result,
		// each n×2d for the random-walk normalisation, n×d otherwise.
		buf := 4 * n * d * 4
		if cfg.Proximity.Norm == proximity.NormRandomWalk {
			buf *= 2
		}
		if cfg.Proximity.Laplacian == proximity.Normalized {
			buf += n * d * 8 // D^-½Y
		}
		m.Proximity += buf
	}
	m.Subspace = 5*n*d*8 + 2*512*d*8
	if cfg.Solver.Y == Stiefel && !cfg.NoProximity {
		// Y and L·Y saved before each step, restored if the step raises
		// the objective (stiefelStep).
		m.Subspace += 2 * n * d * 8
	}
	if !cfg.NoProximity && cfg.Solver.YReg == Orth && !cfg.Solver.OrthAllNodes {
		// The rows left out of R(Y), at most n, and two d×d for their
		// share of a line search (the components' labels, 20 bytes a
		// node, are gone before the initialisation's range basis).
		m.Subspace += 8*n + 16*d*d
	}
	for _, v := range views {
		nnz := v.nnz
		if cfg.Features.Smooths(v.features) {
			m.Codes += 8*nnz + 8*(n+1)
		}
		if !cfg.NoAutoencoder && v.scaled {
			// The scaled copy the autoencoder reads, in full on the
			// observed rows where centred (features.Scale).
			if v.centred {
				nnz = v.rows * v.in
			}
			m.Codes += 8*nnz + 8*(n+1)
		}
		if cfg.NoAutoencoder {
			m.Codes += 16*nnz + 16*(n+1) + 8*v.in
			continue
		}
		m.Codes += n * h * 4
		// Encoder widths Hidden, decoder mirrored back to the input.
		widths := []int64{v.in}
		for _, w := range cfg.Autoencoder.Hidden {
			widths = append(widths, int64(w))
		}
		for i := len(cfg.Autoencoder.Hidden) - 2; i >= 0; i-- {
			widths = append(widths, int64(cfg.Autoencoder.Hidden[i]))
		}
		widths = append(widths, v.in)
		var params int64
		for i := 0; i+1 < len(widths); i++ {
			params += widths[i]*widths[i+1] + widths[i+1]
		}
		per := 16 * params
		if v.wide && cfg.Autoencoder.NegativeSamples > 0 {
			per -= 4 * widths[len(widths)-2] * v.in // no dense gradient of the output layer
		}
		m.Autoencoders += per + 4*min(n, 4096)*h // and the encoding buffer
		if cfg.Autoencoder.NegativeSamples > 0 {
			// The sampled loss's entries (column int32, value and weight
			// float32): a row's non-zeros and NegativeSamples zeros per
			// non-zero, at most its width, for batches of up to 1,024
			// rows (reconTerms), kept at their largest by the trainer.
			o := max(v.rows, 1)
			perRow := min(v.in, (1+int64(cfg.Autoencoder.NegativeSamples))*((nnz+o-1)/o))
			m.Autoencoders += 12 * max(1024, int64(cfg.Autoencoder.Batch)) * perRow
		}
		if cfg.Autoencoder.NegativeSamples == 0 {
			// The exact loss's dense batches (nn.Trainer's output
			// activations, their gradient and the densified target, n×In
			// float32 each) for the largest batch: the training's Batch
			// rows or reconTerms' 1,024.
			m.Autoencoders += 3 * 4 * max(1024, int64(cfg.Autoencoder.Batch)) * v.in
		}
	}
	m.Transient = n * (d + 10) * 8 // the initialisation's range basis
	return m
}

// maxAlloc bounds the bytes of any one array a fit may allocate: 2⁴⁶
// (64 TiB), below the address space Go's allocator accepts (2⁴⁸ on amd64),
// so that absurd sizes are an error from Fit rather than a makeslice panic.
const maxAlloc = 1 << 46

// checkSizes returns an error when one of a fit's arrays would exceed
// maxAlloc: Y (n×d float64), the d×d matrices of the Y step, a basis B
// (d×h float64, h the code width), or an autoencoder's weight matrix
// (float32, one per pair of consecutive widths from the view's input width
// through cfg.Autoencoder.Hidden and back). The products are taken in float64, which
// does not overflow. It does not judge whether the fit fits the machine:
// that is EstimateMemory's.
func checkSizes(net *multiplex.Network, cfg Config) error {
	n, d := float64(net.N()), float64(cfg.Dim)
	if b := 8 * n * d; b > maxAlloc {
		return fmt.Errorf("dpmne: Y would be %d×%d, %.3g bytes: want at most %d", net.N(), cfg.Dim, b, int64(maxAlloc))
	}
	if b := 8 * d * d; b > maxAlloc {
		return fmt.Errorf("dpmne: the Y step's %d×%d matrices would be %.3g bytes each: want at most %d", cfg.Dim, cfg.Dim, b, int64(maxAlloc))
	}
	if cfg.NoAutoencoder {
		return nil
	}
	if b := 8 * d * float64(cfg.Autoencoder.Hidden[len(cfg.Autoencoder.Hidden)-1]); b > maxAlloc {
		return fmt.Errorf("dpmne: each basis B would be %d×%d, %.3g bytes: want at most %d", cfg.Dim, cfg.Autoencoder.Hidden[len(cfg.Autoencoder.Hidden)-1], b, int64(maxAlloc))
	}
	for _, v := range net.Views {
		w := append([]int{v.FeatureMatrix().Cols}, cfg.Autoencoder.Hidden...)
		for k := 1; k < len(w); k++ {
			if b := 4 * float64(w[k-1]) * float64(w[k]); b > maxAlloc {
				return fmt.Errorf("dpmne: view %q: an autoencoder layer of %d×%d weights, %.3g bytes: want at most %d", v.Name, w[k-1], w[k], b, int64(maxAlloc))
			}
		}
	}
	return nil
}
