// Package mat5 reads MATLAB Level 5 MAT-files: the format written by MATLAB's
// save with the -v6 and -v7 options (-v7 is its default), by Octave's save
// -v6 and -v7, and by scipy.io.savemat. Version 7.3 files, which are
// HDF5 files, and Level 4 files are not read.
//
// # What is read
//
// The 128-byte header is checked for the version (0x0100) and the endian
// indicator ("IM" for little-endian files, "MI" for big-endian files); every
// later number is read in the byte order it names. Top-level data elements
// must be miMATRIX (version 6) or miCOMPRESSED (version 7: a zlib stream that
// holds one miMATRIX element; its Adler-32 checksum is verified). Both the
// ordinary 8-byte tag and the 4-byte small data element format are accepted,
// and elements are padded to 8 bytes except after an miCOMPRESSED element,
// as MATLAB writes them. Zero bytes padding an miCOMPRESSED element to 8 bytes
// are tolerated.
//
// Arrays are decoded by class:
//
//   - Numeric classes (double, single, int8 … uint64) and logical arrays give
//     a Numeric, whose values are converted to float64 in column-major order.
//     The stored data type of each data element is honoured, whatever the
//     array class: MATLAB stores a double array whose values are small
//     integers as miUINT8, for example. Values of int64 and uint64 arrays
//     beyond ±2^53 are rounded to the nearest float64. Logical arrays keep
//     their class (uint8) and have Numeric.Logical set.
//   - Complex arrays keep their imaginary part in Numeric.Imag or Sparse.Imag,
//     which are nil for real arrays; Real alone is the real part.
//   - Sparse arrays (real, complex and logical) give a Sparse in compressed
//     sparse column form, with row indices in stored order. Row index and
//     value elements longer than the number of non-zeros (nzmax padding) are
//     cut to it. A logical sparse array without a value element gets ones.
//   - Cell arrays give a slice of *Var in column-major order, read
//     recursively to a depth of 64 nested cells.
//   - Char arrays give one Go string per row. Data stored as miUTF8 is
//     decoded as UTF-8; miUINT16 and miUTF16 (and miINT16) as UTF-16 code
//     units; miUTF32, miINT32 and miUINT32 as code points; miINT8 and miUINT8
//     as Latin-1. Rows of an N-dimensional char array run over all columns of
//     all later dimensions; trailing blanks are kept.
//   - Struct, object, function handle and opaque (MATLAB class object, such as
//     string or table) arrays are not decoded: their Var has Name, Class and,
//     except for opaque arrays, Dims, but no data, and Var.Dense reports that
//     the class is not supported. Reading them does not fail, so the other
//     variables of a file that holds them can be read.
//
// An miMATRIX element of zero bytes, which MATLAB writes for an empty cell
// element, gives a 0×0 double array. The subsystem data that MATLAB appends
// for class objects appears as a uint8 variable with an empty name.
//
// # Safety
//
// A file is read into memory whole, and every size it states is checked
// against the bytes that are actually there before anything is allocated;
// the inflated size of a compressed element is checked against the most that
// deflate can produce from its compressed bytes (1032:1). With a limit
// (Options.Limit) what the read holds is counted before it is allocated:
// the file's bytes, a compressed variable's inflated bytes and its values
// widened to float64 by its declared dimensions, read from its first
// inflated bytes before the rest is inflated, and each array of values or
// indices decoded; a variable that would pass the limit is refused naming
// it and the bytes. Held counts the same by the headers alone. The one exception,
// char arrays with rows but no columns, which take no bytes however many rows
// they have, is limited to 2^20 rows in all. Malformed input
// gives a *FormatError naming the byte offset at fault; no input should make
// the reader panic.
//
// # Fuzzing
//
// Run the reader's fuzz target for a minute with
//
//	go test -run '^$' -fuzz '^FuzzRead$' -fuzztime 60s ./internal/mat5
package mat5
