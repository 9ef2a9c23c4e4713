// Package par splits the rows of a matrix into contiguous ranges and runs a
// function on each in its own goroutine. The split depends only on the
// number of rows and of ranges, so a caller that combines per-range results
// in range order gets the same bytes on every run with the same number of
// ranges.
package par
