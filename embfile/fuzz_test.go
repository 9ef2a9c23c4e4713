package embfile_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpmne/dpmne/embfile"
)

// FuzzReadWord2Vec: the word2vec reader returns vectors or an error, never
// panics.
func FuzzReadWord2Vec(f *testing.F) {
	f.Add([]byte("2 3\na 1 2 3\nb 4 5 6\n"))
	f.Add([]byte("1 1\nx NaN\n"))
	f.Add([]byte("2 2\na 1 2\nb -Inf 1\n"))
	f.Add([]byte("1 2\nx 0 0\n"))
	f.Add([]byte("0 0\n"))
	f.Add([]byte("3 2\na 1 2\n"))
	p := filepath.Join(f.TempDir(), "e.txt") // once per fuzzing process: a directory per input costs more than the parse
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ids, rows, err := embfile.ReadWord2Vec(p)
		if err == nil && (len(ids) != len(rows) || len(rows) == 0) {
			t.Fatalf("%d ids, %d rows without error", len(ids), len(rows))
		}
		for i, row := range rows {
			for j, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("row %d column %d: %v without error", i, j, v)
				}
			}
		}
	})
}
