package npy

import (
	"archive/zip"
	"bytes"
	"slices"
	"testing"
)

// checkArray exercises the accessors of an array that was read without
// error; none may panic.
func checkArray(t *testing.T, a *Array) {
	if a.Len() < 0 {
		t.Fatalf("negative length %d", a.Len())
	}
	if len(a.data) != a.Len()*a.dt.size {
		t.Fatalf("%d data bytes for %d elements of %s", len(a.data), a.Len(), a.Descr)
	}
	f, err := a.Float64s()
	if err == nil && len(f) != a.Len() {
		t.Fatalf("Float64s returned %d values for %d elements", len(f), a.Len())
	}
	a.Int64s()
	a.Bytes()
	a.Strings()
	if a.Len() <= 1<<16 {
		r := a.RowMajor()
		if len(r.data) != len(a.data) {
			t.Fatal("RowMajor changed the data length")
		}
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	WriteFloat32(&buf, []int{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	f.Add(bytes.Clone(buf.Bytes()))
	buf.Reset()
	WriteInt64(&buf, []int{3}, []int64{-1, 0, 1})
	f.Add(bytes.Clone(buf.Bytes()))
	buf.Reset()
	WriteUint8(&buf, nil, []uint8{7})
	f.Add(bytes.Clone(buf.Bytes()))
	f.Add(rawNPY(1, "{'descr': '|S3', 'fortran_order': False, 'shape': (), }", []byte("csr")))
	f.Add(rawNPY(1, "{'descr': '<U2', 'fortran_order': False, 'shape': (1,), }", []byte("a\x00\x00\x00b\x00\x00\x00")))
	f.Add(rawNPY(2, "{'descr': '>f2', 'fortran_order': True, 'shape': (2L, 2L), }", []byte{0x3c, 0, 0x40, 0, 0x42, 0, 0x44, 0}))
	f.Add(rawNPY(3, `{"descr": "|b1", "fortran_order": True, "shape": (1, 2, 2,)}`, []byte{0, 1, 2, 3}))
	f.Add(rawNPY(1, "{'descr': '<u8', 'fortran_order': False, 'shape': (0, 5), }", nil))
	f.Add(rawNPY(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", nil))
	f.Add(rawNPY(1, "{'descr': '|S1', 'fortran_order': True, 'shape': (0, 1000000000000, 1000000000000), }", nil))
	f.Add(rawNPY(1, "{'descr': '|S9', 'fortran_order': False, 'shape': (1000000000000000000,), }", nil))
	f.Add(rawNPY(2, "{'descr': '<i4', 'fortran_order': True, 'shape': (1, 2, 1, 2, 1), }", make([]byte, 16)))
	f.Fuzz(func(t *testing.T, b []byte) {
		// ReadHeader reads what Read reads before the data.
		h, herr := ReadHeader(bytes.NewReader(b))
		if herr != nil {
			if _, ok := herr.(*FormatError); !ok {
				t.Fatalf("ReadHeader: error %v is a %T, not a *FormatError", herr, herr)
			}
		}
		a, err := Read(bytes.NewReader(b))
		if err != nil {
			if _, ok := err.(*FormatError); !ok {
				t.Fatalf("error %v is a %T, not a *FormatError", err, err)
			}
			if herr == nil && h.Offset+h.Bytes <= int64(len(b)) {
				t.Fatalf("Read: %v; ReadHeader: %+v, held in %d bytes", err, h, len(b))
			}
			return
		}
		if herr != nil || h.Descr != a.Descr || !slices.Equal(h.Shape, a.Shape) || h.Fortran != a.Fortran || h.Offset != a.off || h.Bytes != int64(len(a.data)) {
			t.Fatalf("ReadHeader = %+v, %v; Read = %s %v fortran %v at %d, %d bytes", h, herr, a.Descr, a.Shape, a.Fortran, a.off, len(a.data))
		}
		checkArray(t, a)
	})
}

func FuzzReadNPZ(f *testing.F) {
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		f.Add(makeZip(f, method, csrMembers("<i4", "<i8")...))
		f.Add(makeZip(f, method, cooMembers("<i4", "|b1")...))
	}
	f.Add(makeZip(f, zip.Store, cooMembers("<i8", "<f8")...))
	f.Add(makeZip(f, zip.Deflate, csrMembers("<i8", "<f8")...))
	f.Add(makeRawZip(f, rawMember{"a.npy", enc("<i8", 1, 2, 3)[:128], 1 << 40, 0}))
	f.Fuzz(func(t *testing.T, b []byte) {
		z, err := OpenNPZReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for _, name := range z.Names() {
			h, size, herr := z.Header(name)
			a, err := z.Read(name)
			if err == nil {
				// A member read holds what its header claims.
				if herr != nil || h.Offset+h.Bytes > size || !slices.Equal(h.Shape, a.Shape) {
					t.Fatalf("member %s: Header = %+v, %d, %v; Read = %v", name, h, size, herr, a.Shape)
				}
				checkArray(t, a)
			}
		}
		s, err := ReadSparse(z)
		if err != nil {
			if _, ok := err.(*FormatError); !ok {
				t.Fatalf("error %v is a %T, not a *FormatError", err, err)
			}
			return
		}
		n := len(s.Data)
		if len(s.Row) != n || len(s.Col) != n {
			t.Fatalf("lengths %d %d %d", len(s.Row), len(s.Col), n)
		}
		for k := range n {
			if s.Row[k] < 0 || int(s.Row[k]) >= s.Rows || s.Col[k] < 0 || int(s.Col[k]) >= s.Cols {
				t.Fatalf("entry %d (%d, %d) outside %dx%d", k, s.Row[k], s.Col[k], s.Rows, s.Cols)
			}
		}
	})
}

// FuzzSparseMembers fuzzes the members of a save_npz archive directly,
// zipping them itself, so that mutations reach the consistency checks of
// ReadSparse instead of breaking the zip structure.
func FuzzSparseMembers(f *testing.F) {
	add := func(members []member) {
		m := make(map[string][]byte)
		for _, x := range members {
			m[x.name] = x.data
		}
		coo := m["row.npy"] != nil
		idx, ptr := m["indices.npy"], m["indptr.npy"]
		if coo {
			idx, ptr = m["row.npy"], m["col.npy"]
		}
		f.Add(m["format.npy"], m["shape.npy"], m["data.npy"], idx, ptr, coo)
	}
	add(csrMembers("<i4", "<i8"))
	add(csrMembers("<i8", "|b1"))
	add(cooMembers("<i4", "<f8"))
	add(cooMembers(">i8", "|b1"))
	f.Fuzz(func(t *testing.T, format, shape, data, a, b []byte, coo bool) {
		names := []string{"indices.npy", "indptr.npy"}
		if coo {
			names = []string{"row.npy", "col.npy"}
		}
		zb := makeZip(t, zip.Store,
			member{"format.npy", format}, member{"shape.npy", shape}, member{"data.npy", data},
			member{names[0], a}, member{names[1], b})
		z, err := OpenNPZReader(bytes.NewReader(zb), int64(len(zb)))
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadSparse(z)
		if err != nil {
			if _, ok := err.(*FormatError); !ok {
				t.Fatalf("error %v is a %T, not a *FormatError", err, err)
			}
			return
		}
		n := len(s.Data)
		if len(s.Row) != n || len(s.Col) != n {
			t.Fatalf("lengths %d %d %d", len(s.Row), len(s.Col), n)
		}
		for k := range n {
			if s.Row[k] < 0 || int(s.Row[k]) >= s.Rows || s.Col[k] < 0 || int(s.Col[k]) >= s.Cols {
				t.Fatalf("entry %d (%d, %d) outside %dx%d", k, s.Row[k], s.Col[k], s.Rows, s.Cols)
			}
		}
	})
}
