package multiplex

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpmne/dpmne/internal/atomicfile"
)

// WriteNative writes net to dir in the native format: nodes.txt,
// labels.txt (when labelled), and per view <name>.edges, <name>.features
// (when it has its own) and <name>.observed, then manifest.json. Each file is
// written atomically and the manifest last, so an interrupted write never
// leaves a loadable half data set. Ids and view names must not contain white
// space.
func WriteNative(net *Network, dir string) error {
	for _, id := range net.Nodes.IDs() {
		if strings.ContainsAny(id, " \t\r\n") || id == "" || id[0] == '#' {
			return fmt.Errorf("node id %q cannot be written to a text file: it is empty, starts with # or contains white space", id)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m := Manifest{Name: net.Name, Nodes: "nodes.txt"}
	write := func(name string, fn func(w io.Writer) error) error {
		return atomicfile.Write(filepath.Join(dir, name), fn)
	}
	err := write("nodes.txt", func(w io.Writer) error {
		for _, id := range net.Nodes.IDs() {
			if _, err := fmt.Fprintln(w, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if l := net.Labels; l != nil {
		for _, name := range l.Names {
			if strings.ContainsAny(name, " \t\r\n") {
				return fmt.Errorf("class name %q contains white space", name)
			}
		}
		m.Labels = "labels.txt"
		err := write("labels.txt", func(w io.Writer) error {
			for i, c := range l.Class {
				if c < 0 {
					continue
				}
				classes := []int{c}
				if l.Multi != nil {
					classes = l.Multi[i]
				}
				io.WriteString(w, net.Nodes.ID(i))
				for _, c := range classes {
					io.WriteString(w, " "+l.Names[c])
				}
				if _, err := io.WriteString(w, "\n"); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, v := range net.Views {
		if v.Name == "" || strings.ContainsAny(v.Name, " \t\r\n/\\") {
			return fmt.Errorf("view name %q cannot name a file", v.Name)
		}
		spec := ViewSpec{Name: v.Name, Observed: v.Name + ".observed"}
		if v.NumEdges() > 0 {
			spec.Edges = v.Name + ".edges"
		}
		err := writeIf(spec.Edges != "", spec.Edges, write, func(w io.Writer) error {
			buf := make([]byte, 0, 64)
			for i := range v.Adj.Rows {
				ind, val := v.Adj.Row(i)
				for k, j := range ind {
					if int(j) <= i {
						continue
					}
					buf = append(buf[:0], net.Nodes.ID(i)...)
					buf = append(buf, ' ')
					buf = append(buf, net.Nodes.ID(int(j))...)
					if val[k] != 1 {
						buf = append(buf, ' ')
						buf = strconv.AppendFloat(buf, float64(val[k]), 'g', -1, 32)
					}
					buf = append(buf, '\n')
					if _, err := w.Write(buf); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if v.Features != nil {
			spec.Features = v.Name + ".features"
			spec.FeatureDim = v.Features.Cols
			err := write(spec.Features, func(w io.Writer) error {
				buf := make([]byte, 0, 256)
				for i := range v.Features.Rows {
					if !v.Observed[i] {
						continue
					}
					buf = append(buf[:0], net.Nodes.ID(i)...)
					ind, val := v.Features.Row(i)
					for k, j := range ind {
						buf = append(buf, ' ')
						buf = strconv.AppendInt(buf, int64(j), 10)
						buf = append(buf, ':')
						buf = strconv.AppendFloat(buf, float64(val[k]), 'g', -1, 32)
					}
					buf = append(buf, '\n')
					if _, err := w.Write(buf); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		err = write(spec.Observed, func(w io.Writer) error {
			for i, o := range v.Observed {
				if o {
					if _, err := fmt.Fprintln(w, net.Nodes.ID(i)); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		m.Views = append(m.Views, spec)
	}
	return write("manifest.json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// writeIf calls write(name, fn) when cond holds.
func writeIf(cond bool, name string, write func(string, func(io.Writer) error) error, fn func(io.Writer) error) error {
	if !cond {
		return nil
	}
	return write(name, fn)
}
