package fetch

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// withSource installs a temporary data set served by a local httptest server.
func withSource(t *testing.T, ds Dataset) {
	t.Helper()
	Sources[ds.Name] = ds
	t.Cleanup(func() { delete(Sources, ds.Name) })
}

func TestFetchPlainAndZip(t *testing.T) {
	edges := []byte("1 1 2 1\n1 2 3 1\n")
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	w, _ := zw.Create("cora/cora.cites")
	w.Write([]byte("35\t1033\n"))
	zw.Close()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/owner/repo/abc/edges.txt":
			w.Write(edges)
		case "/owner/repo/abc/data.zip":
			w.Write(zbuf.Bytes())
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	withSource(t, Dataset{Name: "test-ok", Files: []File{
		{Path: "t/edges.txt", SHA256: sum(edges), URL: gh + "owner/repo/abc/edges.txt"},
		{Path: "t/cora.cites", SHA256: sum([]byte("35\t1033\n")), URL: gh + "owner/repo/abc/data.zip", Member: "cora.cites"},
	}})
	dir := t.TempDir()
	var log strings.Builder
	if err := Fetch(context.Background(), "test-ok", dir, Options{BaseURL: srv.URL, Log: &log}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "t", "edges.txt"))
	if err != nil || !bytes.Equal(got, edges) {
		t.Fatalf("edges.txt = %q, %v", got, err)
	}
	if hits.Load() != 2 {
		t.Errorf("%d requests, want 2", hits.Load())
	}
	// A second fetch finds both files present and downloads nothing.
	if err := Fetch(context.Background(), "test-ok", dir, Options{BaseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 2 {
		t.Errorf("%d requests after refetch, want still 2", hits.Load())
	}
}

func TestFetchChecksumMismatchWritesNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("tampered"))
	}))
	defer srv.Close()
	withSource(t, Dataset{Name: "test-bad", Files: []File{
		{Path: "t/x.txt", SHA256: sum([]byte("original")), URL: gh + "o/r/c/x.txt"},
	}})
	dir := t.TempDir()
	err := Fetch(context.Background(), "test-bad", dir, Options{BaseURL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("err = %v, want a checksum error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "t", "x.txt")); !os.IsNotExist(err) {
		t.Errorf("file written despite checksum mismatch")
	}
}

func TestFetchHTTPErrorAndUnknown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	withSource(t, Dataset{Name: "test-404", Files: []File{{Path: "x", SHA256: "00", URL: gh + "o/r/c/x"}}})
	if err := Fetch(context.Background(), "test-404", t.TempDir(), Options{BaseURL: srv.URL}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("err = %v, want 404", err)
	}
	if err := Fetch(context.Background(), "nope", t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "cora") {
		t.Errorf("err = %v, want a list of known names", err)
	}
}

// TestSourcesMatchSharedSums checks every recorded checksum against the
// shared data directory's SHA256SUMS, when it is present.
func TestSourcesMatchSharedSums(t *testing.T) {
	b, err := os.ReadFile(testenv.File(t, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	want := make(map[string]string)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		want[strings.TrimPrefix(f[1], "./")] = f[0]
	}
	n := 0
	for _, ds := range Sources {
		for _, f := range ds.Files {
			if w, ok := want[f.Path]; !ok || w != f.SHA256 {
				t.Errorf("%s: %s: checksum %s, SHA256SUMS has %q", ds.Name, f.Path, f.SHA256, w)
			}
			n++
		}
	}
	if n < 30 {
		t.Errorf("only %d files checked", n)
	}
}
