package multiplex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/dpmne/dpmne/internal/editdist"
)

// unknownKey is a manifest key that names no field where it stands.
type unknownKey struct {
	key    string
	where  string   // "the manifest", "views[2]", "views[0].metapath"…
	offset int64    // just past the key, for its line
	valid  []string // the names valid there, in declaration order
	other  string   // the object the key is a field of, when it is one elsewhere
}

// String says what is wrong and what was meant: the valid name closest
// to the key ("did you mean"), else where the key belongs, else the
// names valid there.
func (u unknownKey) String() string {
	msg := fmt.Sprintf("unknown field %q in %s", u.key, u.where)
	if s := closest(u.key, u.valid); s != "" {
		return msg + fmt.Sprintf(`; did you mean %q?`, s)
	}
	if u.other != "" {
		msg += fmt.Sprintf("; %q is a field of %s", u.key, u.other)
	}
	return msg + "; want one of " + strings.Join(u.valid, ", ")
}

// manifestObjects are the JSON objects of a manifest and how errors name
// them where a key is a field of one but not of the object it is in.
var manifestObjects = []struct {
	t    reflect.Type
	name string
}{
	{reflect.TypeFor[Manifest](), "the manifest's top level"},
	{reflect.TypeFor[ViewSpec](), `a view (an entry of "views")`},
	{reflect.TypeFor[MetapathSpec](), `a view's "metapath"`},
	{reflect.TypeFor[LabelRange](), `an entry of "label_ranges"`},
}

// unknownField finds the first key of the manifest JSON data that is not
// a field where it stands, as encoding/json's DisallowUnknownFields does
// (a key matches a field's name exactly or, failing that, in another
// case), but says where the key is: encoding/json's error gives the
// offset where decoding stopped, the manifest's end. False when every
// key is known, or the JSON is malformed before the first unknown one.
func unknownField(data []byte) (unknownKey, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var found unknownKey
	stop := fmt.Errorf("found")
	var walk func(t reflect.Type, where string) error
	walk = func(t reflect.Type, where string) error {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		var want json.Delim
		switch t.Kind() {
		case reflect.Struct:
			want = '{'
		case reflect.Slice:
			want = '['
		default:
			var raw json.RawMessage
			return dec.Decode(&raw)
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil // a scalar where an object or array goes: a type error
		}
		if d != want {
			return skipOpened(dec)
		}
		for k := 0; dec.More(); k++ {
			if want == '[' {
				if err := walk(t.Elem(), fmt.Sprintf("%s[%d]", where, k)); err != nil {
					return err
				}
				continue
			}
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			f, ok := jsonField(t, key)
			if !ok {
				found = unknownKey{key: key, where: where, offset: dec.InputOffset(), valid: jsonNames(t)}
				if where == "" {
					found.where = "the manifest"
				}
				for _, o := range manifestObjects {
					if _, ok := jsonField(o.t, key); ok && o.t != t {
						found.other = o.name
						break
					}
				}
				return stop
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if where != "" {
				name = where + "." + name
			}
			if err := walk(f.Type, name); err != nil {
				return err
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err
	}
	if err := walk(reflect.TypeFor[Manifest](), ""); err == stop {
		return found, true
	}
	return unknownKey{}, false
}

// skipOpened reads past the end of the object or array whose opening
// delimiter dec has just returned.
func skipOpened(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// jsonField returns the field of struct type t that JSON key names: the
// field of that name, else one whose name differs only in case.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	var fold *reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		name, ok := jsonName(f)
		if !ok {
			continue
		}
		if name == key {
			return f, true
		}
		if fold == nil && strings.EqualFold(name, key) {
			fold = &f
		}
	}
	if fold != nil {
		return *fold, true
	}
	return reflect.StructField{}, false
}

// jsonName returns the JSON name of field f; false for one JSON does not
// read (unexported, or tagged "-").
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return "", false
	case "":
		return f.Name, true
	}
	return name, true
}

// jsonNames returns the JSON names of struct type t's fields, leaving out
// those only read for old manifests (Deprecated).
func jsonNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if name, ok := jsonName(f); ok && f.Name != "SelfLoops" {
			names = append(names, name)
		}
	}
	return names
}

// closest returns the name among names nearest to key in edit distance
// (insertions, deletions, substitutions and swaps of neighbours, case
// ignored), when it is near enough to be a typo of it: at most 1 edit
// for keys of up to 5 characters, 2 up to 8, 3 beyond; "" otherwise.
func closest(key string, names []string) string {
	if len(key) > 64 {
		return ""
	}
	limit := 3
	switch n := len(key); {
	case n <= 5:
		limit = 1
	case n <= 8:
		limit = 2
	}
	best, bestD := "", limit+1
	for _, name := range names {
		if d := editdist.Distance(strings.ToLower(key), strings.ToLower(name)); d < bestD {
			best, bestD = name, d
		}
	}
	return best
}
