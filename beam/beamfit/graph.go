package beamfit

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/multiplex"
)

// meta describes a network written under a state root (graph/meta.json).
type meta struct {
	Network   string
	N         int
	Shards    int
	ShardSize int
	Views     []string
	Observed  []int     // each view's observed nodes
	HSq       []float64 // each view's ‖H^s‖² = Σ a_ij² over its edges
	// Summaries say what each view's features are (dpmne.Summarize);
	// Columns is their width, 0 for a view without features of its own.
	Summaries []dpmne.ViewSummary
	Columns   []int
}

// span returns the rows [lo, hi) of shard s.
func (m *meta) span(s int) (lo, hi int) {
	lo = s * m.ShardSize
	return lo, min(m.N, lo+m.ShardSize)
}

// shardOf returns the shard holding row i.
func (m *meta) shardOf(i int) int { return i / m.ShardSize }

// shards returns 0 … Shards−1, the elements the per-shard pipelines start from.
func (m *meta) shards() []int {
	s := make([]int, m.Shards)
	for i := range s {
		s[i] = i
	}
	return s
}

func graphDir(root string) string { return path.Join(root, "graph") }

func readMeta(ctx context.Context, root string) (*meta, error) {
	var m meta
	if err := readJSON(ctx, path.Join(graphDir(root), "meta.json"), &m); err != nil {
		return nil, err
	}
	if m.Summaries == nil && m.Columns == nil {
		// Written by an ingest of edge lists: no view has features.
		for _, v := range m.Views {
			m.Summaries = append(m.Summaries, dpmne.ViewSummary{Name: v, Kind: dpmne.AdjacencyRows})
			m.Columns = append(m.Columns, 0)
		}
	}
	if m.N < 1 || m.Shards < 1 || m.ShardSize < 1 || (m.N+m.ShardSize-1)/m.ShardSize != m.Shards || len(m.Views) == 0 || len(m.Summaries) != len(m.Views) || len(m.Columns) != len(m.Views) {
		return nil, fmt.Errorf("beamfit: %s: inconsistent network description (n %d, %d shards of %d, %d views)", path.Join(graphDir(root), "meta.json"), m.N, m.Shards, m.ShardSize, len(m.Views))
	}
	return &m, nil
}

// WriteGraph partitions net into shards row shards of consecutive nodes
// and writes it under root/graph: node names, degrees, observation, each
// view's edges by the shard of their column and its features' rows by
// shard. It runs on the driver, for a network dpmne's loaders read whole;
// Ingest and IngestManifest read text files by pipelines instead.
func WriteGraph(ctx context.Context, root string, net *multiplex.Network, shards int) error {
	if err := net.Validate(); err != nil {
		return err
	}
	if err := checkFree(ctx, root); err != nil {
		return err
	}
	n := net.N()
	if shards < 1 {
		return fmt.Errorf("beamfit: %d shards: want at least 1", shards)
	}
	size := (n + shards - 1) / shards
	m := &meta{Network: net.Name, N: n, ShardSize: size, Shards: (n + size - 1) / size, Summaries: dpmne.Summarize(net)}
	t := len(net.Views)
	deg := make([][]float64, t)
	for s, v := range net.Views {
		m.Views = append(m.Views, v.Name)
		deg[s] = v.Adj.Degrees()
		obs := 0
		for _, o := range v.Observed {
			if o {
				obs++
			}
		}
		m.Observed = append(m.Observed, obs)
		var sq float64
		for _, a := range v.Adj.Val {
			sq += float64(a) * float64(a)
		}
		m.HSq = append(m.HSq, sq)
		cols := 0
		if v.Features != nil {
			cols = v.Features.Cols
		}
		m.Columns = append(m.Columns, cols)
	}
	ids := net.Nodes.IDs()
	for sh := range m.Shards {
		lo, hi := m.span(sh)
		if err := writeFile(ctx, shardName(graphDir(root), "ids", sh), []byte(strings.Join(ids[lo:hi], "\n"))); err != nil {
			return err
		}
		rows := &block{view: -1, shard: sh, lo: lo, rows: hi - lo, width: 2 * t}
		d := rows.dense()
		for i := lo; i < hi; i++ {
			for s, v := range net.Views {
				d[(i-lo)*2*t+s] = deg[s][i]
				if v.Observed[i] {
					d[(i-lo)*2*t+t+s] = 1
				}
			}
		}
		if err := writeBlock(ctx, shardName(graphDir(root), "rows", sh), rows); err != nil {
			return err
		}
	}
	for s, v := range net.Views {
		by := make([]edges, m.Shards)
		a := v.Adj
		for i := range n {
			ind, val := a.Row(i)
			for k, j := range ind {
				e := &by[m.shardOf(int(j))]
				e.row = append(e.row, int32(i))
				e.col = append(e.col, int32(j))
				e.a = append(e.a, val[k])
			}
		}
		for sh := range by {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := writeFile(ctx, viewShardName(graphDir(root), "edges", s, sh), by[sh].encode()); err != nil {
				return err
			}
		}
	}
	for s, v := range net.Views {
		if v.Features == nil {
			continue
		}
		for sh := range m.Shards {
			lo, hi := m.span(sh)
			if err := writeFile(ctx, viewShardName(graphDir(root), "x", s, sh), encodeRows(lo, rowRange(v.Features, lo, hi))); err != nil {
				return err
			}
		}
	}
	return writeJSON(ctx, path.Join(graphDir(root), "meta.json"), m)
}
