// Package jsonkeys finds a key given twice in one object of a JSON text,
// which encoding/json accepts silently, the last value winning: a
// manifest or a request that says "edges" twice means one of them, and
// which one is not for the reader to guess.
package jsonkeys

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Duplicate is a key given twice in one JSON object.
type Duplicate struct {
	Key    string // the second spelling (that of the first where Fold matched them)
	First  string // the first spelling
	Object string // where the object is: "" for the top level, then "views[2]", "features.a"…
	Offset int64  // the byte offset of the second key
}

// Where names the object, "the top-level object" for "".
func (d Duplicate) Where() string {
	if d.Object == "" {
		return "the top-level object"
	}
	return strconv.Quote(d.Object)
}

// String says what is wrong: `key "edges" given twice in "views[0]"`, or
// where the two differ in case only, `keys "edges" and "Edges", one field
// to encoding/json, given in …`.
func (d Duplicate) String() string {
	if d.Key != d.First {
		return "keys " + strconv.Quote(d.First) + " and " + strconv.Quote(d.Key) + ", which name one field (case is ignored), both given in " + d.Where() + ": keep one"
	}
	return "key " + strconv.Quote(d.Key) + " given twice in " + d.Where() + ": keep one (a JSON reader keeps either)"
}

// Find returns the first key given twice in an object of data, which must
// be valid JSON (Find is for after a successful decode: it does not
// check the syntax). fold, when not nil, reports for an object, by its
// place (Duplicate.Object), whether its keys name struct fields, which
// encoding/json matches ignoring case: there keys that differ in case only
// are duplicates too; elsewhere (a map's keys) only equal ones are.
// Keys are compared unescaped ("a" and "\u0061" are one key).
func Find(data []byte, fold func(object string) bool) (Duplicate, bool) {
	type frame struct {
		object    bool
		path      string
		key       string            // the object's current key
		keys      map[string]string // seen keys (folded where fold says) → spelling
		fold      bool
		index     int  // the array's current element
		expectKey bool // the object's next string is a key
	}
	var stack []*frame
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if top.object {
			if top.path == "" {
				return top.key
			}
			return top.path + "." + top.key
		}
		return top.path + "[" + strconv.Itoa(top.index) + "]"
	}
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			f := &frame{object: c == '{', path: child(), expectKey: c == '{'}
			if f.object {
				f.keys = make(map[string]string)
				f.fold = fold != nil && fold(f.path)
			}
			stack = append(stack, f)
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				if top.object {
					top.expectKey = true
				} else {
					top.index++
				}
			}
		case '"':
			start := i
			escaped := false
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					escaped = true
					i++
				}
			}
			if len(stack) == 0 || !stack[len(stack)-1].object || !stack[len(stack)-1].expectKey {
				continue // a value
			}
			top := stack[len(stack)-1]
			top.expectKey = false
			key := string(data[start+1 : min(i, len(data))])
			if escaped {
				var s string
				if json.Unmarshal(data[start:min(i+1, len(data))], &s) == nil {
					key = s
				}
			}
			top.key = key
			seen := key
			if top.fold {
				seen = strings.ToLower(key)
			}
			if first, dup := top.keys[seen]; dup {
				return Duplicate{Key: key, First: first, Object: top.path, Offset: int64(start)}, true
			}
			top.keys[seen] = key
		}
	}
	return Duplicate{}, false
}
