package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/internal/sizedfile"
)

// parseMemory parses a --max-memory value: "auto" (the machine's total
// memory, from /proc/meminfo; no limit where that cannot be read), "0" (no
// limit), or a number with an optional unit B, KB, MB, GB, TB (powers of
// 1000) or KiB, MiB, GiB, TiB (powers of 1024).
func parseMemory(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "auto" {
		return machineMemory(), nil
	}
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := 1.0
	num := s
	for _, u := range units {
		if strings.HasSuffix(strings.ToLower(s), strings.ToLower(u.suffix)) {
			num, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v >= 0) || !(v*mult <= 1<<62) { // also NaN
		return 0, fmt.Errorf("%q: want auto, 0, or a size such as 20GiB or 500MB", s)
	}
	return int64(v * mult), nil
}

// machineMemory returns MemTotal from /proc/meminfo in bytes, or 0 (no
// limit) where it cannot be read.
func machineMemory() int64 { return sizedfile.MachineMemory() }

// formatBytes prints a size in GiB or MiB.
func formatBytes(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	if b >= 1<<20 {
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	if b >= 1<<10 {
		return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// checkBeforeLoad refuses, before loading data set data, a fit whose
// memory exceeds budget by the lower bound that the data's manifest and
// file headers give (multiplex.Manifest.Bounds,
// dpmne.EstimateMemoryBound); a synthetic data set is not checked. The
// bound also counts what the data's matrix files take once read,
// decompressed and widened (multiplex.Bounds.Load). The bound reads the data's nodes file (or LINQS content file) once more
// than the load does, so with budget 0 (no limit: --max-memory 0) nothing
// is read. maxMemory is the flag's text, for the message. The exact
// check, on the loaded network, still follows.
func (g *globals) checkBeforeLoad(ctx context.Context, data string, cfg dpmne.Config, budget int64, maxMemory string) error {
	if budget <= 0 {
		return nil
	}
	b, err := g.bounds(ctx, data)
	if err != nil || b == nil {
		return err
	}
	if b.Load > budget {
		return fmt.Errorf("loading the data takes at least %s by their files' headers, once read, decompressed and widened to float64 (the most: %s), more than --max-memory %s (%s), so nothing is loaded", formatBytes(b.Load), b.LoadFrom, maxMemory, formatBytes(budget))
	}
	est := dpmne.EstimateMemoryBound(b, cfg)
	if est.Total() <= budget {
		return nil
	}
	from := ""
	if b.NodesFrom != "" {
		from = fmt.Sprintf(" (at least %d nodes: %s)", b.Nodes, b.NodesFrom)
	}
	return fmt.Errorf("the fit needs at least %v by the data's headers%s, more than --max-memory %s (%s), so nothing is loaded; lower --dim or --hidden, drop views, or raise the budget", est, from, maxMemory, formatBytes(budget))
}
