package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne"
)

// TestServeCodes: dpmne binarize --method itq writes the rotation beside
// the codes, and serve --codes reads both for the model they came from;
// codes of other nodes are refused.
func TestServeCodes(t *testing.T) {
	dir := t.TempDir()
	model, c := filepath.Join(dir, "m.dpmne"), filepath.Join(dir, "c.bin")
	if _, stderr, err := runCLI(t, "train", "--data", "synthetic", "--model", model, "--dim", "8", "--hidden", "16", "--iterations", "2", "--pretrain", "1", "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, "binarize", "--model", model, "--method", "itq", "--out", c); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	m, err := dpmne.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	codes, rot, err := readServedCodes(c, m.IDs)
	if err != nil || codes.N != 2000 || codes.Bits != 8 || rot == nil || len(rot.Mean) != 8 || len(rot.R) != 64 {
		t.Fatalf("read back: %v, rotation %v", err, rot)
	}
	if _, _, err := readServedCodes(c, m.IDs[1:]); err == nil || !strings.Contains(err.Error(), "other nodes") {
		t.Errorf("other ids: err = %v", err)
	}
	sign := filepath.Join(dir, "s.bin")
	if _, stderr, err := runCLI(t, "binarize", "--model", model, "--method", "sign", "--out", sign); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, rot, err := readServedCodes(sign, m.IDs); err != nil || rot != nil {
		t.Errorf("sign codes: rotation %v, err %v; want none", rot, err)
	}
}
