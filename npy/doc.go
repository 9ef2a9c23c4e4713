// Package npy reads and writes NumPy .npy files and reads .npz archives,
// including the sparse matrix layouts written by scipy.sparse.save_npz.
//
// # The .npy format
//
// A .npy stream is the magic string "\x93NUMPY", a major and a minor
// version byte, a little-endian header length (2 bytes in format 1.0,
// 4 bytes in formats 2.0 and 3.0), a header, and the raw array data. The
// header is a Python dict literal such as
//
//	{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
//
// padded with spaces and a final newline. Formats 1.0 and 2.0 encode the
// header as Latin-1 and 3.0 as UTF-8; the only difference that matters
// here is the length field. The header is parsed by a small strict parser
// that accepts exactly what NumPy (and NumPy on Python 2, which wrote
// integers such as 3L in formats 1.0 and 2.0) writes: keys in any order,
// single or double quotes, optional trailing commas, (n,) one-tuples and
// () for 0-d arrays. Anything else, including extra or missing keys, is a
// *FormatError that gives the byte offset of the problem. ReadHeader reads
// a header alone, and NPZ.Header a member's with the most bytes the member
// can hold, for a caller that wants an array's dtype and shape, or to
// check its claim, before reading its data.
//
// # Data types
//
// The supported dtypes are b1 (bool), i1, i2, i4, i8, u1, u2, u4, u8,
// f2, f4, f8, S<n> (fixed-length byte strings) and U<n> (fixed-length
// UCS-4 strings), in little-endian ('<'), big-endian ('>'), native ('=')
// or not-applicable ('|') byte order. Array values are converted on
// request by Float64s, Int64s, Bytes and Strings. Structured dtypes
// (descr given as a list), object arrays ('|O', which need pickle),
// complex, datetime and void dtypes are rejected.
//
// Arrays are returned in the order they are stored. For an array saved
// with fortran_order True, Float64s and the other accessors return the
// elements in column-major order; call RowMajor first to get them in
// C (row-major) order.
//
// The writers (WriteFloat32, WriteFloat64, WriteInt64 and WriteUint8) emit
// what numpy.save emits for a C-contiguous little-endian array: format 1.0
// (2.0 when the header would not fit in 65535 bytes), the header keys in
// sorted order, the spare space NumPy reserves for growing the first
// axis, and space padding so that the data start at a multiple of 64
// bytes.
//
// # .npz archives
//
// A .npz file is a zip archive of .npy members, stored or deflated
// (numpy.savez and numpy.savez_compressed). OpenNPZ opens one; its
// Names are the member names without the ".npy" suffix.
//
// scipy.sparse.save_npz writes a .npz with the members
//
//	format   0-d |S3 byte string: "csr", "csc", "coo", "bsr" or "dia"
//	shape    (2,) integer array: rows, columns
//	data     (nnz,) stored values
//	indices, indptr                csr and csc
//	row, col (or coords, (2, nnz)) coo
//	_is_array                      present for sparse arrays, ignored here
//
// ReadSparseNPZ reads csr, csc and coo layouts into COO triplets after
// checking them for consistency (indptr starting at 0 and non-decreasing,
// lengths agreeing, indices in range). The bsr and dia layouts are
// reported as unsupported.
//
// # Robustness
//
// Input is not trusted. No buffer is allocated from a size read from the
// input before that size has been checked against the bytes actually
// present: the file size for ReadFile, the member's uncompressed size for
// .npz members (which is itself verified while reading, so a lying size
// gives an error), and the bytes actually delivered for Read, which reads
// incrementally and never past the end of the array, so that several
// arrays written one after another to a stream can be read back in turn.
// What an array takes once read and converted, its data and the float64
// or int64 made of each value (9 bytes a value of a u1 array), is
// Header.Held, which ReadFileContext hands a caller's check before the
// data are read. ReadSparseLimit checks the members of a sparse .npz
// against each other by their headers, and adds up what they take once
// read and widened, before the large ones are read (SparseHeld counts the
// same). Malformed input gives a *FormatError naming the file (for .npz members
// "path.npz[member.npy]") and the byte offset within the .npy stream.
// The readers are fuzzed (FuzzRead, FuzzReadNPZ and FuzzSparseMembers;
// the first two check the header readers against Read too).
//
// # Why hand-written
//
// This package uses the standard library only (and, to open a FIFO that
// a context can interrupt, the module's internal/sizedfile). It was written by hand
// instead of using github.com/sbinet/npyio because that package cannot
// write 2-D float32 arrays, and because we need errors that carry byte
// offsets and readers that are safe on hostile input.
//
// # Fuzzing
//
// Run each fuzz target for a minute with
//
//	go test -run '^$' -fuzz '^FuzzRead$' -fuzztime 60s ./npy
//	go test -run '^$' -fuzz '^FuzzReadNPZ$' -fuzztime 60s ./npy
//	go test -run '^$' -fuzz '^FuzzSparseMembers$' -fuzztime 60s ./npy
package npy
