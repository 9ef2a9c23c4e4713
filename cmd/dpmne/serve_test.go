package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dpmne/dpmne/embfile"
)

func TestServeErrors(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "garbage.dpmne")
	if err := os.WriteFile(garbage, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "--model: give a model"},
		{[]string{"serve", "--model", filepath.Join(t.TempDir(), "nosuch.dpmne")}, "no such file"},
		{[]string{"serve", "--model", garbage}, "garbage.dpmne: byte 0: not a dpmne model file"},
		{[]string{"serve", "--model", garbage, "--max-k", "0"}, "--max-k 0: want at least 1"},
		{[]string{"serve", "--model", garbage, "--max-body", "-5"}, "--max-body -5"},
		{[]string{"serve", "--model", garbage, "--max-conns", "0"}, "--max-conns 0: want at least 1"},
		{[]string{"serve", "--model", garbage, "--max-inflight", "-1"}, "--max-inflight -1: want at least 1"},
		{[]string{"serve", "--model", garbage, "--request-timeout", "0s"}, "--request-timeout 0s: want a positive duration"},
		{[]string{"serve", "extra"}, "unknown command"},
	}
	for _, tc := range tests {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dpmne %s: err = %v, want it to contain %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the server goroutine to write while
// the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServe trains a small model, serves it on a free loopback port with
// limits of its own, queries it, and stops it by cancelling the context
// (what SIGTERM does in main).
func TestServe(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "tiny.dpmne")
	args := append([]string{"train", "--data", "testdata/tiny", "--out", filepath.Join(dir, "tiny.npy"), "--model", model}, tinyModel...)
	if _, stderr, err := runCLI(t, args...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--model", model, "--addr", "127.0.0.1:0",
			"--max-conns", "8", "--max-inflight", "2", "--request-timeout", "20s"}, &stdout, &stderr)
	}()
	listening := regexp.MustCompile(`listening on (http://[0-9.:]+)`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; {
		if m := listening.FindStringSubmatch(stdout.String()); m != nil { // on stdout, for scripts
			if strings.Contains(stderr.String(), "listening on") {
				t.Errorf("the listening line is on stderr too:\n%s", stderr.String())
			}
			base = m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	get := func(path string) (int, map[string]any) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v: %s", path, err, b)
		}
		return resp.StatusCode, v
	}
	if code, v := get("/healthz"); code != 200 || v["status"] != "ok" {
		t.Errorf("/healthz: %d %v", code, v)
	}
	ids, err := embfile.ReadIDs("testdata/tiny/nodes.txt")
	if err != nil {
		t.Fatal(err)
	}
	if code, v := get("/v1/nodes/" + ids[0] + "/neighbors?k=2&metric=hamming"); code != 200 || len(v["neighbors"].([]any)) != 2 {
		t.Errorf("neighbours: %d %v", code, v)
	}
	if code, v := get("/v1/nodes/nobody/neighbors"); code != 404 || v["error"] == nil {
		t.Errorf("unknown node: %d %v", code, v)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not shut down")
	}
	if !strings.Contains(stderr.String(), "shut down") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// TestServeHelp: serve --help documents the embed request's fields,
// "edges" (not the response's "neighbors") among them, and where the
// "listening on" line goes.
func TestServeHelp(t *testing.T) {
	stdout, _, err := runCLI(t, "serve", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"edges": {"VIEW": ["ID", …]}`,
		`"edges" gives, for a view
without features`,
		`("neighbors" in a request is its former name, still read)`,
		`The response's "neighbors" are the nodes found nearest.`,
		`The "listening on http://ADDR" line goes to standard output`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, stdout)
		}
	}
}
