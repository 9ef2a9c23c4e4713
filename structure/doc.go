// Package structure measures how much structure a source of a network
// carries beyond a null model of that same source: a graph against a
// degree-preserving rewiring of itself, node features against a copy
// whose columns are each permuted independently. It is parallel analysis
// (Horn 1965) with a detector that holds in sparse graphs: a graph's
// detected directions are the negative eigenvalues of its Bethe Hessian
// (Saade, Krzakala and Zdeborová, NeurIPS 2014) beyond those of its
// rewired copy; a feature matrix's are the eigenvalues of its columns'
// correlation matrix above the largest of its permuted copy's.
//
// A count of directions is unit-free, so a graph's and a feature matrix's
// can be weighed against each other: it says how many dimensions of
// structure a source holds that chance does not explain. dpmne's default
// fit weighs its sources by these counts (dpmne.Measure); docs/method.md
// has the mathematics.
package structure
