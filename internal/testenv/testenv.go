// Package testenv locates the real datasets for tests that need them.
//
// Tests on ../shared/data skip with a clear message when the directory is
// absent, but fail when CI=true, so that a CI run never passes by skipping.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// DataDir returns the shared data directory: $DPMNE_DATA when set (relative
// to the module root when relative), otherwise ../shared/data beside the
// module root. When it does not exist the test is
// skipped, or failed when the environment variable CI is "true".
func DataDir(tb testing.TB) string {
	tb.Helper()
	root, err := ModuleRoot()
	if err != nil {
		tb.Fatalf("testenv: %v", err)
	}
	dir := os.Getenv("DPMNE_DATA")
	switch {
	case dir == "":
		dir = filepath.Join(root, "..", "shared", "data")
	case !filepath.IsAbs(dir):
		// go test runs each package in its own directory: a relative
		// DPMNE_DATA is taken relative to the module root instead.
		dir = filepath.Join(root, dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("testenv: shared data directory %s is missing, and CI=true forbids skipping", dir)
		}
		tb.Skipf("testenv: shared data directory %s is missing: set DPMNE_DATA or place ../shared/data beside the repository", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		tb.Fatalf("testenv: %v", err)
	}
	return abs
}

// File returns the path of rel inside DataDir, skipping or failing as DataDir
// does when that file is missing.
func File(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(DataDir(tb), rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("testenv: data file %s is missing, and CI=true forbids skipping", p)
		}
		tb.Skipf("testenv: data file %s is missing", p)
	}
	return p
}

// ModuleRoot returns the directory holding go.mod, searching upwards from the
// working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
