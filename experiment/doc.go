// Package experiment runs the DPMNE paper's experiments (§4) as reproducible
// grids: data sets × settings × methods, each cell an embedding scored by the
// evaluation protocol of package eval, with repeats and seeds fixed so that
// the same command writes the same numbers.
//
// Methods come from a registry (Register, Methods), so baselines added later
// plug into every experiment without changing it. Results are written as a
// markdown table (mean ± std), JSON and CSV, and, for the experiments that
// are figures in the paper, a PNG line plot. On a partial network each
// classification cell is also scored by the views a node is observed in
// (Cell.ByViews).
package experiment
