package main

import (
	"fmt"
	"runtime/debug"

	"github.com/dpmne/dpmne/internal/fastblas"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…"
// (scripts/build.sh: the nearest git tag); otherwise the module version of
// the build info (go install …@v1.2.3), else its revision (a build in a git
// checkout).
var version = ""

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}

// versionLine is what dpmne version and dpmne --version print.
func versionLine() string {
	return fmt.Sprintf("dpmne %s (BLAS: %s)\n", versionString(), fastblas.Name())
}

// versionString returns the version to print (see version).
func versionString() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "(devel)"
	}
	v := "(devel) " + rev[:min(len(rev), 12)]
	if at != "" {
		v += " " + at
	}
	if dirty {
		v += " modified"
	}
	return v
}
