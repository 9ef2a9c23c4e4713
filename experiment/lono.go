package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// A Candidate is one setting of a method under choice: the cells of one
// suite run (on validation splits), the reference method's and,
// optionally, the baselines'.
type Candidate struct {
	Name  string
	Cells []Cell
}

// Fold is one network held out of a leave-one-network-out choice.
type Fold struct {
	// Held is the network left out, and Chosen the candidate the other
	// networks choose.
	Held, Chosen string
	// Standing is the chosen candidate's on Held; Gap its mean less the
	// best baseline's (NaN without either).
	Standing Standing
	Gap      float64
	// Best is the candidate that would have done best on Held alone.
	Best string
}

// LeaveOneOut chooses among candidates network by network: for each
// network held out, the candidate that is first or tied-first against the
// best of baselines (Summarize, by metric) on the most of the other
// networks, the larger sum of its margins over the best baseline breaking
// ties, then the earlier candidate; and how that choice does on the
// network held out. Every candidate reads the baselines' cells of all
// candidates (the first cell of a network and baseline), so that each is
// judged against the same ones; reference names the method the
// candidates set, and the networks are those of the first candidate's
// cells of it. The last Fold is the choice on every network (Held "").
func LeaveOneOut(candidates []Candidate, reference string, baselines []string, metric SummaryMetric) ([]Fold, error) {
	if len(candidates) == 0 {
		return nil, fmt.Errorf("experiment: no candidates to choose among")
	}
	var shared []Cell
	seen := map[[2]string]bool{}
	for _, c := range candidates {
		for _, cell := range c.Cells {
			k := [2]string{cell.Data, cell.Method}
			if slices.Contains(baselines, cell.Method) && !seen[k] {
				seen[k] = true
				shared = append(shared, cell)
			}
		}
	}
	// standings[c][data] and gaps[c][data] per candidate.
	standings := make([]map[string]Standing, len(candidates))
	gaps := make([]map[string]float64, len(candidates))
	var networks []string
	for i, c := range candidates {
		var cells []Cell
		for _, cell := range c.Cells {
			if cell.Method == reference {
				cells = append(cells, cell)
			}
		}
		if len(cells) == 0 {
			return nil, fmt.Errorf("experiment: candidate %q has no cell of %s", c.Name, reference)
		}
		has := dataNames(cells)
		if i == 0 {
			networks = has
		}
		for _, d := range networks {
			if !slices.Contains(has, d) {
				return nil, fmt.Errorf("experiment: candidate %q has no cell of %s on %s", c.Name, reference, d)
			}
		}
		cells = append(cells, shared...)
		sum := Summarize(cells, reference, baselines, []SummaryMetric{metric})
		standings[i], gaps[i] = map[string]Standing{}, map[string]float64{}
		for _, row := range sum.Rows {
			standings[i][row.Data] = row.Standings[0]
			gaps[i][row.Data] = gap(cells, row.Data, reference, row.Standings[0].Baseline, metric)
		}
	}
	choose := func(held string) int {
		best, bestFirst, bestGap := 0, -1, math.Inf(-1)
		for i := range candidates {
			first, sum := 0, 0.0
			for _, d := range networks {
				if d == held {
					continue
				}
				if o := standings[i][d].Outcome; o == Win || o == Tie {
					first++
				}
				if g := gaps[i][d]; !math.IsNaN(g) {
					sum += g
				}
			}
			if first > bestFirst || first == bestFirst && sum > bestGap {
				best, bestFirst, bestGap = i, first, sum
			}
		}
		return best
	}
	var folds []Fold
	for _, d := range append(slices.Clone(networks), "") {
		i := choose(d)
		f := Fold{Held: d, Chosen: candidates[i].Name, Gap: math.NaN()}
		if d != "" {
			f.Standing, f.Gap = standings[i][d], gaps[i][d]
			b := 0
			for j := range candidates {
				if gaps[j][d] > gaps[b][d] {
					b = j
				}
			}
			f.Best = candidates[b].Name
		}
		folds = append(folds, f)
	}
	return folds, nil
}

// gap returns the reference's mean on data less the baseline's, NaN where
// either has no score.
func gap(cells []Cell, data, reference, baseline string, metric SummaryMetric) float64 {
	var ref, base float64 = math.NaN(), math.NaN()
	for _, c := range cells {
		if c.Data != data || c.Error != "" {
			continue
		}
		x := metric.Score(c)
		if x == nil {
			continue
		}
		switch c.Method {
		case reference:
			ref = x.Mean
		case baseline:
			base = x.Mean
		}
	}
	return ref - base
}

// WriteFolds writes the folds of LeaveOneOut as a Markdown table: per
// network held out, the candidate the others chose, its outcome and
// margin there, and the candidate best there; then the choice on every
// network and how many folds chose each candidate.
func WriteFolds(w io.Writer, folds []Fold, candidates []Candidate, metric string) {
	fmt.Fprintf(w, "| held out | chosen on the others | %s outcome | margin over the best baseline | best baseline | best candidate on it |\n|---|---|---|---|---|---|\n", metric)
	count := map[string]int{}
	first := 0
	for _, f := range folds {
		if f.Held == "" {
			continue
		}
		count[f.Chosen]++
		if f.Standing.Outcome == Win || f.Standing.Outcome == Tie {
			first++
		}
		fmt.Fprintf(w, "| %s | %s | %s | %+.3f | %s | %s |\n", f.Held, f.Chosen, f.Standing.Outcome, f.Gap, f.Standing.Baseline, f.Best)
	}
	held := len(folds) - 1
	var chose []string
	for _, c := range candidates {
		chose = append(chose, fmt.Sprintf("%s %d", c.Name, count[c.Name]))
	}
	fmt.Fprintf(w, "\nChosen on every network: %s. Folds choosing each: %s. The choice of the other networks is first or tied-first on %d of %d held out.\n",
		folds[len(folds)-1].Chosen, strings.Join(chose, ", "), first, held)
}

// ReadCells returns the cells of an experiment's JSON results (the
// suite.json, table2.json, … that WriteAll writes).
func ReadCells(path string) ([]Cell, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var res struct {
		Cells []Cell `json:"cells"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(res.Cells) == 0 {
		return nil, fmt.Errorf("%s: no cells (want an experiment's JSON results)", path)
	}
	return res.Cells, nil
}
