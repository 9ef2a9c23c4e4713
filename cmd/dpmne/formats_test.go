package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

// TestQuotedCSV: a CSV edge list is read as encoding/csv reads it: a
// quoted header is a header, not an edge between "source" and "target",
// and a quoted id may hold a comma; a quote left open is named at its
// line.
func TestQuotedCSV(t *testing.T) {
	var ring strings.Builder
	for i := range 30 {
		fmt.Fprintf(&ring, "\"n%d\",\"n%d\"\n", i, (i+1)%30)
	}
	dir := testenv.WriteFiles(t, map[string]string{
		"ring.csv":    "\"source\",\"target\"\n" + ring.String(),
		"weights.csv": "\"source\",\"target\",\"weight\"\n\"Smith,J\",\"Doe,A\",2\n\"Doe,A\",b,1\n",
		"open.csv":    "source,target\na,b\n\"c,d\n",
	})
	for _, tc := range []struct {
		file string
		want string // the nodes, or the error
	}{
		{"ring.csv", "30 nodes"}, // not 32, with "source" and "target"
		{"weights.csv", "3 nodes"},
		{"open.csv", filepath.Join(dir, "open.csv") + `:3: byte 5: extraneous or missing " in quoted-field: want comma-separated fields, each in double quotes whole ("a, b", with "" for a quote in it) or not at all, and a quoted field on one line`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			out, _, err := runCLI(t, "data", "info", "--json", filepath.Join(dir, tc.file))
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				var s struct{ Nodes int }
				if err := json.Unmarshal([]byte(out), &s); err != nil {
					t.Fatal(err)
				}
				got = fmt.Sprintf("%d nodes", s.Nodes)
			}
			if got != tc.want {
				t.Errorf("data info %s: %s\nwant %s", tc.file, got, tc.want)
			}
		})
	}
}
