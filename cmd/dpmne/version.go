package main

import (
	"fmt"
	"runtime/debug"

	"github.com/dpmne/dpmne/internal/fastblas"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…"
// (scripts/build.sh: the nearest git tag); otherwise the main module's
// version in the build info, as go version -m prints it: v1.2.3 from go
// install …@v1.2.3, and from a plain go build in a git checkout the
// pseudo-version Go 1.24 and later stamp (v0.0.0-20261128225253-570a13cee7e1,
// +dirty with uncommitted changes); else (an older Go, or -buildvcs=false)
// "(devel)" with the revision where the build info has one.
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
	return buildVersion(bi, ok)
}

// buildVersion returns the version the build info bi gives (see version).
func buildVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
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
