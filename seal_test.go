package dpmne

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelSeal: a model file of version 2 ends with the CRC-32C of its
// bytes; it reads back to a model that writes the same bytes, a flipped
// bit anywhere in it (the header, an array, the seal) is refused, and one
// in the header's ids or in Y is called corrupt, with the stored and the
// computed CRC; a byte after its end is refused with its offset.
func TestModelSeal(t *testing.T) {
	good := tinyModelBytes(t, true)
	if tag := good[len(good)-sealSize : len(good)-4]; string(tag) != sealTag {
		t.Fatalf("the file ends with %q, want the seal %q and 4 bytes", tag, sealTag)
	}
	m, err := ReadModel(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := m.Write(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), good) {
		t.Error("the model read back writes other bytes")
	}
	hlen := int(binary.LittleEndian.Uint64(good[8:16]))
	id := bytes.Index(good[16:16+hlen], []byte(`"ids":["a"`))
	if id < 0 {
		t.Fatal("no ids in the header")
	}
	for _, tc := range []struct {
		name string
		at   int
	}{
		{"header (an id)", 16 + id + len(`"ids":["`)}, // "a" becomes "`"
		{"Y", 16 + hlen + 3},
		{"the filter", len(good) - sealSize - 5},
	} {
		bad := bytes.Clone(good)
		bad[tc.at] ^= 1
		for _, size := range []int64{int64(len(bad)), -1} {
			_, err := ReadModel(bytes.NewReader(bad), size)
			if err == nil || !strings.Contains(err.Error(), "the file is corrupt: the model's CRC-32C is") {
				t.Errorf("bit flipped in %s (byte %d), size %d: err = %v, want it called corrupt", tc.name, tc.at, size, err)
			}
		}
	}
	p := filepath.Join(t.TempDir(), "m.dpmne")
	bad := bytes.Clone(good)
	bad[16+hlen+3] ^= 1
	if err := os.WriteFile(p, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err == nil || !strings.HasPrefix(err.Error(), p+": byte ") || !strings.Contains(err.Error(), "the file is corrupt") {
		t.Errorf("Load of a flipped bit: err = %v, want one naming the file and calling it corrupt", err)
	}
	for i := range len(good) * 8 {
		bad := bytes.Clone(good)
		bad[i/8] ^= 1 << (i % 8)
		if _, err := ReadModel(bytes.NewReader(bad), int64(len(bad))); err == nil {
			t.Errorf("bit %d of byte %d flipped: read", i%8, i/8)
		}
	}
	long := append(bytes.Clone(good), 0, 0, 0)
	want := []string{fmt.Sprintf("byte %d: 3 more bytes after the model's end", len(good)), fmt.Sprintf("byte %d: more bytes after the model's end", len(good))}
	for k, size := range []int64{int64(len(long)), -1} {
		if _, err := ReadModel(bytes.NewReader(long), size); err == nil || !strings.Contains(err.Error(), want[k]) {
			t.Errorf("trailing bytes, size %d: err = %v, want %q", size, err, want[k])
		}
	}
}

// TestCheckpointSeal: both sections of a checkpoint of version 2 are
// sealed; it reads back to the bytes it was read from, a flipped bit in
// the model, the state's header or its arrays is refused, and a byte
// after its end too.
func TestCheckpointSeal(t *testing.T) {
	good := tinyCheckpointBytes(t)
	cp, err := ReadCheckpoint(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := cp.Write(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), good) {
		t.Error("the checkpoint read back writes other bytes")
	}
	at := bytes.Index(good, []byte(checkpointMagic))
	hlen := int(binary.LittleEndian.Uint64(good[at+8:]))
	iter := bytes.Index(good[at:], []byte(`"Iteration":2`))
	for _, tc := range []struct {
		name, want string
		at         int
	}{
		{"the model's Y", "the model's CRC-32C", 16 + int(binary.LittleEndian.Uint64(good[8:16])) + 2},
		{"the state header (the iteration)", "the checkpoint state's CRC-32C", at + iter + len(`"Iteration":`)}, // 2 becomes 3
		{"L·Y", "the checkpoint state's CRC-32C", at + 16 + hlen + 6},
		{"an Adam moment", "the checkpoint state's CRC-32C", len(good) - sealSize - 2},
	} {
		bad := bytes.Clone(good)
		bad[tc.at] ^= 1
		for _, size := range []int64{int64(len(bad)), -1} {
			_, err := ReadCheckpoint(bytes.NewReader(bad), size)
			if err == nil || !strings.Contains(err.Error(), "the file is corrupt: "+tc.want) {
				t.Errorf("bit flipped in %s (byte %d), size %d: err = %v, want %q", tc.name, tc.at, size, err, tc.want)
			}
		}
	}
	for i := range len(good) * 8 {
		bad := bytes.Clone(good)
		bad[i/8] ^= 1 << (i % 8)
		if _, err := ReadCheckpoint(bytes.NewReader(bad), int64(len(bad))); err == nil {
			t.Errorf("bit %d of byte %d flipped: read", i%8, i/8)
		}
	}
	long := append(bytes.Clone(good), 'x')
	for _, size := range []int64{int64(len(long)), -1} {
		if _, err := ReadCheckpoint(bytes.NewReader(long), size); err == nil || !strings.Contains(err.Error(), "after the checkpoint's end, want the file to end there") {
			t.Errorf("trailing bytes, size %d: err = %v", size, err)
		}
	}
}

// TestReadVersion1: a model and a checkpoint written before the seals
// (testdata/model-v1.dpmne and checkpoint-v1.dpmne, tinyModel's and
// tinyCheckpoint's files as the dpmne of version 1 wrote them) still read,
// to what today's files of the same model hold; bytes after their end are
// refused, but for an old checkpoint read as a model (its model held its
// filter then).
func TestReadVersion1(t *testing.T) {
	old, err := Load(filepath.Join("testdata", "model-v1.dpmne"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := old.Write(&b); err != nil {
		t.Fatal(err)
	}
	// Their λ was stated for 2708 nodes (ScaleNodes): read per node.
	const lambda = 1e4 / 2708
	tm := tinyModel(t, true)
	tm.Config.Lambda = lambda
	var want bytes.Buffer
	if err := tm.Write(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want.Bytes()) {
		t.Error("the version 1 model differs from the model it was written from")
	}
	oldCP, err := LoadCheckpoint(filepath.Join("testdata", "checkpoint-v1.dpmne"))
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := oldCP.Write(&b); err != nil {
		t.Fatal(err)
	}
	tc := tinyCheckpoint(t)
	tc.Model.Config.Lambda = lambda
	want.Reset()
	if err := tc.Write(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want.Bytes()) {
		t.Error("the version 1 checkpoint differs from the checkpoint it was written from")
	}
	data, err := os.ReadFile(filepath.Join("testdata", "checkpoint-v1.dpmne"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadModel(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Errorf("a version 1 checkpoint read as a model: %v", err)
	}
	long := append(data, 1)
	if _, err := ReadCheckpoint(bytes.NewReader(long), int64(len(long))); err == nil || !strings.Contains(err.Error(), "1 more bytes after the checkpoint's end") {
		t.Errorf("a version 1 checkpoint with a byte more: err = %v", err)
	}
	model, err := os.ReadFile(filepath.Join("testdata", "model-v1.dpmne"))
	if err != nil {
		t.Fatal(err)
	}
	long = append(model, "DPMNE"...)
	if _, err := ReadModel(bytes.NewReader(long), int64(len(long))); err == nil || !strings.Contains(err.Error(), "5 more bytes after the model's end") {
		t.Errorf("a version 1 model with 5 bytes more: err = %v", err)
	}
}
