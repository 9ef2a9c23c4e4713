package experiment

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/dpmne/dpmne/eval"
)

// A SummaryMetric is a score by which Summarize ranks methods, higher
// being better. Score returns nil for a cell without it.
type SummaryMetric struct {
	Name  string
	Score func(Cell) *eval.Stat
}

// SuiteMetrics returns the suite's scores: micro-F1 and macro-F1 of node
// classification and ACC of k-means on L2-normalised rows.
func SuiteMetrics() []SummaryMetric {
	return []SummaryMetric{
		{"micro-F1", func(c Cell) *eval.Stat { return c.MicroF1 }},
		{"macro-F1", func(c Cell) *eval.Stat { return c.MacroF1 }},
		{"ACC", func(c Cell) *eval.Stat { return c.ACC }},
	}
}

// Outcome is the reference method's result against the best baseline on
// one network and metric.
type Outcome int

const (
	NoOutcome Outcome = iota // either has no score
	Win
	Tie
	Loss
)

func (o Outcome) String() string {
	switch o {
	case Win:
		return "win"
	case Tie:
		return "tie"
	case Loss:
		return "loss"
	}
	return "—"
}

// Standing is one network's ranking by one metric.
type Standing struct {
	// Best is the method with the highest mean, the first in cell order
	// among equal means, and BestMean its mean; "" when no cell has the
	// score.
	Best     string
	BestMean float64
	// Rank is the reference method's competition rank, 1 + the number of
	// methods with a strictly higher mean (equal means share a rank), of
	// Ranked methods with the score; 0 when the reference has none.
	Rank, Ranked int
	// Baseline is the baseline with the highest mean (first in cell order
	// among equal means), "" when no baseline has the score, and Outcome
	// the reference against it: a tie when the means differ by at most
	// the larger of the two standard deviations, else a win or a loss by
	// the sign of the difference.
	Baseline string
	Outcome  Outcome
}

// SummaryRow is one network's standings, one per metric.
type SummaryRow struct {
	Data      string
	Standings []Standing
}

// Totals sums one metric's standings over the networks.
type Totals struct {
	// MeanRank is the reference's mean Rank over the Ranked networks where
	// it has the score (NaN when there are none).
	MeanRank float64
	Ranked   int
	// Win, Tie and Loss count the networks by Outcome.
	Win, Tie, Loss int
}

// Summary ranks a reference method on every network of an experiment's
// cells (Summarize).
type Summary struct {
	Reference string
	Metrics   []string
	Rows      []SummaryRow // one per network, in cell order
	Totals    []Totals     // one per metric
}

// Summarize ranks the methods of cells on each network (Cell.Data) by
// each metric's mean: which is best, the rank of reference, and reference
// against the best of baselines as a win, tie or loss (Standing); then
// reference's mean rank and outcome counts over the networks (Totals).
// Cells that failed (Cell.Error) or lack a metric's score take no part in
// that metric's ranking.
func Summarize(cells []Cell, reference string, baselines []string, metrics []SummaryMetric) Summary {
	sum := Summary{Reference: reference, Totals: make([]Totals, len(metrics))}
	for _, m := range metrics {
		sum.Metrics = append(sum.Metrics, m.Name)
	}
	rankSum := make([]int, len(metrics))
	for _, d := range dataNames(cells) {
		row := SummaryRow{Data: d}
		for k, m := range metrics {
			var st Standing
			var ref, base *eval.Stat
			var scores []float64
			for _, c := range cells {
				x := m.Score(c)
				if c.Data != d || c.Error != "" || x == nil {
					continue
				}
				scores = append(scores, x.Mean)
				if st.Best == "" || x.Mean > st.BestMean {
					st.Best, st.BestMean = c.Method, x.Mean
				}
				if c.Method == reference {
					ref = x
				}
				if slices.Contains(baselines, c.Method) && (base == nil || x.Mean > base.Mean) {
					st.Baseline, base = c.Method, x
				}
			}
			st.Ranked = len(scores)
			if ref != nil {
				st.Rank = 1
				for _, x := range scores {
					if x > ref.Mean {
						st.Rank++
					}
				}
				rankSum[k] += st.Rank
				sum.Totals[k].Ranked++
			}
			if ref != nil && base != nil {
				t := &sum.Totals[k]
				switch diff := ref.Mean - base.Mean; {
				case math.Abs(diff) <= max(ref.Std, base.Std):
					st.Outcome = Tie
					t.Tie++
				case diff > 0:
					st.Outcome = Win
					t.Win++
				default:
					st.Outcome = Loss
					t.Loss++
				}
			}
			row.Standings = append(row.Standings, st)
		}
		sum.Rows = append(sum.Rows, row)
	}
	for k := range sum.Totals {
		sum.Totals[k].MeanRank = math.NaN()
		if n := sum.Totals[k].Ranked; n > 0 {
			sum.Totals[k].MeanRank = float64(rankSum[k]) / float64(n)
		}
	}
	return sum
}

// writeSummary writes the summary of Spec.Reference against the others
// and the baselines of package baseline by SuiteMetrics: one row per
// network, and the mean rank and outcome totals last.
func writeSummary(w io.Writer, s Spec, cells []Cell) {
	sum := Summarize(cells, s.Reference, baselineNames(), SuiteMetrics())
	ref := sum.Reference
	fmt.Fprintf(w, "\nSummary: per network and score, the best method (its mean), %s's rank among the methods scored, and %s against the best baseline (win or loss beyond, tie within, the larger of the two standard deviations):\n\n| network |", ref, ref)
	for _, m := range sum.Metrics {
		fmt.Fprintf(w, " best %s | %s rank | %s vs best baseline |", m, ref, ref)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|---|---|", len(sum.Metrics)))
	for _, r := range sum.Rows {
		fmt.Fprintf(w, "| %s |", r.Data)
		for _, st := range r.Standings {
			best, rank, vs := "—", "—", "—"
			if st.Best != "" {
				best = fmt.Sprintf("%s (%.3f)", st.Best, st.BestMean)
			}
			if st.Rank > 0 {
				rank = fmt.Sprintf("%d of %d", st.Rank, st.Ranked)
			}
			if st.Outcome != NoOutcome {
				vs = fmt.Sprintf("%s (%s)", st.Outcome, st.Baseline)
			}
			fmt.Fprintf(w, " %s | %s | %s |", best, rank, vs)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "| **%s: mean rank; W/T/L** |", ref)
	for _, t := range sum.Totals {
		rank := "—"
		if t.Ranked > 0 {
			rank = fmt.Sprintf("%.2f over %d", t.MeanRank, t.Ranked)
		}
		fmt.Fprintf(w, " | %s | %d/%d/%d |", rank, t.Win, t.Tie, t.Loss)
	}
	fmt.Fprintln(w)
}
