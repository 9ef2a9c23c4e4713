package multiplex

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/npy"
)

// TestMemoryLimitNPY: a dense u1 feature matrix of 1 MB takes 9 MB once
// widened to float64: a load under a limit of 4 MiB refuses it by its
// header, naming the file and the bytes, before reading its data; Bounds
// counts it in Load; without the limit it loads.
func TestMemoryLimitNPY(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"nodes":"nodes.txt","views":[{"name":"v","edges":"e.txt","features":"f.npy"}]}`,
		"nodes.txt":     "a\nb\nc\nd\n",
		"e.txt":         "a b\nc d\n",
	})
	var buf bytes.Buffer
	if err := npy.WriteUint8(&buf, []int{4, 1 << 18}, make([]uint8, 1<<20)); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "f.npy")
	if err := os.WriteFile(f, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Bounds(context.Background())
	if err != nil || b.Load != 9<<20 || b.LoadFrom != f {
		t.Errorf("Bounds: Load %d from %q (%v), want %d from %s", b.Load, b.LoadFrom, err, 9<<20, f)
	}
	var n uint64
	n = testenv.Allocated(func() { _, err = m.LoadContext(WithMemoryLimit(context.Background(), 4<<20)) })
	if err == nil || !strings.Contains(err.Error(), f+": the array (shape [4 262144] of |u1) takes 9 MiB once read and widened") || !strings.Contains(err.Error(), "more than the memory limit 4 MiB") {
		t.Fatalf("err = %v, want f.npy refused by the limit", err)
	}
	if n > 512<<10 {
		t.Errorf("allocated %d bytes refusing, want the data unread", n)
	}
	if _, err := m.LoadContext(WithMemoryLimit(context.Background(), 0)); err != nil {
		t.Fatalf("no limit: %v", err)
	}
}
