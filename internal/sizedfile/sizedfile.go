// Package sizedfile opens a file for a reader that bounds what it
// allocates by the bytes the file holds.
package sizedfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// Read opens path and hands read a buffered reader of it with its size in
// bytes, or −1 where the file is not a regular one (a pipe, a FIFO, a file
// under /proc), whose size Stat does not know: read must then grow what it
// allocates as the bytes arrive. An error of read is prefixed with path.
func Read[T any](path string, read func(r io.Reader, size int64) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return zero, err
	}
	size := fi.Size()
	if !fi.Mode().IsRegular() {
		size = -1
	}
	v, err := read(bufio.NewReader(f), size)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
