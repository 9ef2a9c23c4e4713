package main

import (
	"go/parser"
	"go/token"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// usageLines returns the lines of main.go's doc comment that begin a
// command's usage: "dpmne …" in the indented (code) block, without the
// indentation.
func usageLines(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatal("main.go: no doc comment")
	}
	var lines []string
	for _, l := range strings.Split(f.Doc.Text(), "\n") {
		if strings.HasPrefix(l, "\tdpmne ") {
			lines = append(lines, strings.TrimPrefix(l, "\t"))
		}
	}
	return lines
}

// TestDocListsCommands: main.go's doc comment gives a usage line for every
// command that newRoot registers, and every usage line there names one.
func TestDocListsCommands(t *testing.T) {
	lines := usageLines(t)
	root := newRoot(io.Discard, io.Discard, nil)
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue // cobra's own
			}
			n++
			path := sub.CommandPath()
			found := false
			for _, l := range lines {
				if l == path || strings.HasPrefix(l, path+" ") {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("main.go's doc comment has no usage line for %q", path)
			}
			walk(sub)
		}
	}
	walk(root)
	if n < 14 {
		t.Errorf("walked %d commands, want the 14 or more newRoot registers", n)
	}
	for _, l := range lines {
		c, _, err := root.Find(strings.Fields(l)[1:])
		if err != nil || c == root || c.HasSubCommands() {
			t.Errorf("main.go's doc comment: %q names no command (err %v)", l, err)
		}
	}
}
