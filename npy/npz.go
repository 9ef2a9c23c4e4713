package npy

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
)

// NPZ is an opened .npz archive: a zip of .npy members, stored or
// deflated, as written by numpy.savez and numpy.savez_compressed.
//
// Read may be called from several goroutines at once.
type NPZ struct {
	path    string // for errors; "" when opened with OpenNPZReader
	size    int64  // size of the archive
	members map[string]*zip.File
	names   []string
	closer  io.Closer
}

// OpenNPZ opens the .npz archive at path. A file that is not a zip
// archive gives a *FormatError.
func OpenNPZ(path string) (*NPZ, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	z, err := openNPZ(f, fi.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	z.closer = f
	return z, nil
}

// OpenNPZReader opens a .npz archive of size bytes read from r, such as
// a bytes.Reader. Errors name the members as "[member.npy]".
func OpenNPZReader(r io.ReaderAt, size int64) (*NPZ, error) {
	return openNPZ(r, size, "")
}

func openNPZ(r io.ReaderAt, size int64, path string) (*NPZ, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		// Member names are never used as paths here.
		msg := "reading zip archive"
		if errors.Is(err, zip.ErrFormat) {
			msg = "not a valid zip archive"
		}
		return nil, &FormatError{File: path, Offset: -1, Msg: msg, Err: err}
	}
	z := &NPZ{path: path, size: size, members: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := z.members[name]; dup {
			return nil, &FormatError{File: path, Offset: -1, Msg: fmt.Sprintf("duplicate member %q", f.Name)}
		}
		z.members[name] = f
		z.names = append(z.names, name)
	}
	sort.Strings(z.names)
	return z, nil
}

// Names returns the names of the members, without the ".npy" suffix,
// sorted. Like numpy.load, it returns the names of members that do not
// end in ".npy" unchanged.
func (z *NPZ) Names() []string {
	return append([]string(nil), z.names...)
}

// has reports whether the archive has a member called name.
func (z *NPZ) has(name string) bool {
	_, ok := z.members[name]
	return ok
}

// Read reads the member called name, without its ".npy" suffix. The
// array must end exactly at the end of the member, and the member's
// CRC-32 is checked.
func (z *NPZ) Read(name string) (*Array, error) {
	rc, s, err := z.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	a, err := readArray(s)
	if err != nil {
		return nil, err
	}
	// Reading on to the end makes archive/zip check the size and CRC.
	var one [1]byte
	n, err := io.ReadFull(rc, one[:])
	if n > 0 {
		return nil, s.errorf(s.off, "trailing data after the array")
	}
	if err != io.EOF {
		return nil, &FormatError{File: s.file, Offset: s.off, Msg: "after the array", Err: err}
	}
	return a, nil
}

// Header reads the header of the member called name, without its ".npy"
// suffix, and none of its data. size is the most bytes the member can
// hold: its uncompressed size (which Read checks), or less where the
// member's compressed bytes within the archive cannot inflate to that
// many. A header whose Offset+Bytes exceeds size claims data the member
// does not hold, and Read refuses the member.
func (z *NPZ) Header(name string) (h *Header, size int64, err error) {
	rc, s, err := z.open(name)
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	if h, err = readHeader(s); err != nil {
		return nil, 0, err
	}
	f := z.members[name]
	size = s.size
	if c := int64(min(f.CompressedSize64, uint64(z.size))); f.Method == zip.Store {
		size = min(size, c)
	} else if f.Method == zip.Deflate && c <= size/maxInflate {
		size = c * maxInflate
	}
	return h, size, nil
}

// maxInflate is the most a DEFLATE stream inflates, per compressed byte:
// a match of 258 bytes takes at least 2 bits, a length and a distance
// code of 1 bit each.
const maxInflate = 1032

// open opens the member called name for reading, with a stream over it
// whose size is the member's uncompressed size.
func (z *NPZ) open(name string) (io.ReadCloser, *stream, error) {
	f, ok := z.members[name]
	if !ok {
		return nil, nil, &FormatError{File: z.path, Offset: -1, Msg: fmt.Sprintf("no member %q (have %s)", name+".npy", z.list())}
	}
	file := z.path + "[" + f.Name + "]"
	if f.UncompressedSize64 > math.MaxInt64 {
		return nil, nil, &FormatError{File: file, Offset: -1, Msg: fmt.Sprintf("uncompressed size %d is too large", f.UncompressedSize64)}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, nil, &FormatError{File: file, Offset: -1, Msg: "opening member", Err: err}
	}
	s := &stream{r: rc, file: file, size: int64(f.UncompressedSize64), member: true}
	if f.Method == zip.Store && f.CompressedSize64 == f.UncompressedSize64 {
		// The size of a stored member may be trusted if the member's
		// bytes lie within the archive.
		off, err := f.DataOffset()
		s.trusted = err == nil && off >= 0 && s.size <= z.size-off
	}
	return rc, s, nil
}

// list returns the member names for an error message.
func (z *NPZ) list() string {
	const max = 8
	if len(z.names) == 0 {
		return "no members"
	}
	if len(z.names) > max {
		return strings.Join(z.names[:max], ", ") + fmt.Sprintf(" and %d more", len(z.names)-max)
	}
	return strings.Join(z.names, ", ")
}

// Close closes the file opened by OpenNPZ. It does nothing for an
// archive opened with OpenNPZReader.
func (z *NPZ) Close() error {
	if z.closer == nil {
		return nil
	}
	err := z.closer.Close()
	z.closer = nil
	return err
}
