package jsonkeys

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestFind(t *testing.T) {
	structs := func(object string) bool { return object != "features" }
	for _, tc := range []struct {
		json, want string // want: Duplicate.String(), "" for none
		object     string
	}{
		{`{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}`, "", ""},
		{`{"a": 1, "b": 2, "a": 3}`, `key "a" given twice in the top-level object: keep one (a JSON reader keeps either)`, ""},
		{`{"views": [{"name": "x"}, {"name": "y", "edges": "e", "edges": "f"}]}`, `key "edges" given twice in "views[1]": keep one (a JSON reader keeps either)`, "views[1]"},
		{`{"a": "x\"y", "\u0061": 2}`, `key "a" given twice in the top-level object: keep one (a JSON reader keeps either)`, ""},
		{`{"Edges": 1, "edges": 2}`, `keys "Edges" and "edges", which name one field (case is ignored), both given in the top-level object: keep one`, ""},
		{`{"features": {"A": [1], "a": [2]}}`, "", ""},
		{`{"features": {"a": {"indices": [1], "Indices": [2]}}}`, `keys "indices" and "Indices", which name one field (case is ignored), both given in "features.a": keep one`, "features.a"},
		{`{"features": {"a": [1], "a": [2]}}`, `key "a" given twice in "features": keep one (a JSON reader keeps either)`, "features"},
		{`[{"k": "{\"k\": 1, \"k\": 2}"}, {"k": 1}]`, "", ""},
		{`{"x": [[1, {"k": 1}], {"k": [], "k": {}}]}`, `key "k" given twice in "x[1]": keep one (a JSON reader keeps either)`, "x[1]"},
	} {
		if !json.Valid([]byte(tc.json)) {
			t.Fatalf("invalid test JSON %s", tc.json)
		}
		d, ok := Find([]byte(tc.json), structs)
		got := ""
		if ok {
			got = d.String()
		}
		if got != tc.want || ok && d.Object != tc.object {
			t.Errorf("%s:\n got %s (in %q)\nwant %s", tc.json, got, d.Object, tc.want)
		}
	}
}

// FuzzFind: on any JSON (valid or not) Find returns, and never reports a
// duplicate in a text whose objects hold each key once.
func FuzzFind(f *testing.F) {
	f.Add([]byte(`{"a": 1, "a": 2}`))
	f.Add([]byte(`{"a": [1, {"b": "\"", "c": 1}], "d": {}}`))
	f.Add([]byte(`{"\u00e9": 1, "é": 2}`))
	f.Add([]byte(`{"a`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, ok := Find(data, nil)
		if !ok || !json.Valid(data) {
			return
		}
		// A duplicate found in valid JSON is one: decoding into a map
		// at that object loses a key. Checked for the top level only.
		if d.Object == "" {
			var m map[string]json.RawMessage
			if json.Unmarshal(data, &m) == nil {
				n := 0
				dec := json.NewDecoder(bytes.NewReader(data))
				dec.Token()
				for dec.More() {
					dec.Token()
					var v json.RawMessage
					dec.Decode(&v)
					n++
				}
				if n == len(m) {
					t.Fatalf("%s: %v reported, but %d keys for %d entries", data, d, n, len(m))
				}
			}
		}
	})
}
