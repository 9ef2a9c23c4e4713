package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpmne/dpmne/internal/editdist"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// run executes the dpmne command line args, writing to stdout and stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0)) // --threads changes it for this run alone
	root := newRoot(stdout, stderr, args)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// globals are the flags every command shares.
type globals struct {
	dataDir string
	threads int      // --threads: GOMAXPROCS, which every parallel part follows
	argv    []string // the command line, for results that record it
}

func newRoot(stdout, stderr io.Writer, argv []string) *cobra.Command {
	g := &globals{argv: argv}
	root := &cobra.Command{
		Use:   "dpmne",
		Short: "Node embeddings for partial multiplex networks (DPMNE)",
		Long: `dpmne learns node embeddings from partial multiplex networks: one set of
nodes, several views (each with its own edges and features), and nodes
missing from some views.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	// --version prints what dpmne version does (cobra adds the flag).
	root.Version = versionString()
	root.SetVersionTemplate(versionLine())
	root.Flags().Bool("version", false, "print the version, as dpmne version does")
	root.SetFlagErrorFunc(suggestFlag)
	root.PersistentFlags().StringVar(&g.dataDir, "data-dir", "", "directory of the named data sets (default $"+multiplex.DataDirEnv+", else $XDG_DATA_HOME/dpmne, else ~/.local/share/dpmne)")
	root.PersistentFlags().IntVar(&g.threads, "threads", 0, "threads for every parallel part: dense and sparse products, autoencoders, baselines, evaluation (0: all cores, GOMAXPROCS)")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if g.threads < 0 {
			return fmt.Errorf("--threads %d: want ≥ 0 (0: all cores)", g.threads)
		}
		if g.threads > 0 {
			runtime.GOMAXPROCS(g.threads)
		}
		return nil
	}
	root.AddCommand(newDataCmd(g), newGenerateCmd(g), newTrainCmd(g), newDemoCmd(g), newEvalCmd(g), newExperimentCmd(g), newTuneCmd(g), newBinarizeCmd(), newSearchCmd(), newServeCmd(), newPlotCmd(g), newEmbedCmd(g), newVersionCmd())
	return root
}

func (g *globals) dir() string {
	if g.dataDir != "" {
		return g.dataDir
	}
	return multiplex.DefaultDataDir()
}

// syntheticName is the built-in synthetic data set: synth.Default() with
// seed 1, generated in memory.
const syntheticName = "synthetic"

// loadNetwork loads a named data set, a plain edge list, a manifest, the
// synthetic default or a synthetic family (synth.Families: synth-graph,
// …): multiplex.Resolve says which. A load from files
// stops once ctx is done (Ctrl-C: the command's context) with an error
// wrapping context.Canceled (multiplex.LoadContext); the synthetic data
// sets, generated in memory, do not look at ctx.
func (g *globals) loadNetwork(ctx context.Context, name string) (*multiplex.Network, error) {
	if name == syntheticName {
		return synth.Generate(synth.Default(), rand.New(rand.NewPCG(1, 0)))
	}
	if f, ok := synth.LookupFamily(name); ok {
		return f.Generate()
	}
	return multiplex.LoadContext(ctx, name, g.dir())
}

// loadLabelled is loadNetwork, then, with labels, the classes of that
// file in place of the data set's own (multiplex.ReadLabels: lines "<id>
// <class> [<class>…]", as a manifest's "labels", naming only the data
// set's nodes): the --labels flag of eval, data info, tune and experiment.
func (g *globals) loadLabelled(ctx context.Context, name, labels string) (*multiplex.Network, error) {
	net, err := g.loadNetwork(ctx, name)
	if err != nil || labels == "" {
		return net, err
	}
	if net.Labels, err = multiplex.ReadLabels(ctx, labels, net.Nodes, net.Name); err != nil {
		return nil, fmt.Errorf("--labels: %w", err)
	}
	return net, nil
}

// labelsUsage is the --labels flag's help.
const labelsUsage = "classes of the data set's nodes, in place of its own: a text file of lines \"<id> <class>\" (as a manifest's \"labels\")"

// noLabels is the error of a command that scores against classes, given
// a data set without them: it says how to give them.
func noLabels(net *multiplex.Network, why string) error {
	return fmt.Errorf("data set %s has no labels %s: give them with --labels FILE, a text file of lines \"<id> <class>\", or by \"labels\" in a manifest (docs/formats.md)", net.Name, why)
}

// bounds returns the lower bounds on the size of data set name that its
// manifest and the headers of its files give (multiplex.Manifest.Bounds),
// or nil for a synthetic data set or one that does not resolve (the load
// reports why).
func (g *globals) bounds(ctx context.Context, name string) (*multiplex.Bounds, error) {
	if name == syntheticName {
		return nil, nil
	}
	if _, ok := synth.LookupFamily(name); ok {
		return nil, nil
	}
	m, err := multiplex.Resolve(name, g.dir())
	if err != nil {
		return nil, nil
	}
	return m.Bounds(ctx)
}

// checkPDR checks a --pdr value.
func checkPDR(pdr float64) error {
	if !(pdr >= 0 && pdr < 1) {
		return fmt.Errorf("--pdr %g: want 0 ≤ pdr < 1", pdr)
	}
	return nil
}

// partial applies --pdr: the partial network that dpmne experiment pdr fits
// at that ratio with the same seed (multiplex.PartialSeed), or net itself
// at 0. data info, train and tune share it.
func partial(net *multiplex.Network, pdr float64, seed uint64) (*multiplex.Network, error) {
	if err := checkPDR(pdr); err != nil {
		return nil, err
	}
	if pdr == 0 {
		return net, nil
	}
	return multiplex.PartialSeed(net, pdr, seed)
}

// Inputs a flag names, as missingInput says what was looked for.
const (
	wantEmbedding = "an embedding: .npy with its ids file, or word2vec, CSV or TSV text"
	wantModel     = "a model saved by dpmne train --model"
)

// missingInput returns err, or where err says a file does not exist, an
// error naming the flag, the file and what was looked for (want): "--emb:
// e.npy: no such file (want …)" in place of "open e.npy: no such file or
// directory". It wraps err.
func missingInput(flag, want string, err error) error {
	var pe *fs.PathError
	if err == nil || !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return &missingFile{flag: flag, path: pe.Path, want: want, err: err}
}

type missingFile struct {
	flag, path, want string
	err              error
}

func (e *missingFile) Error() string {
	return fmt.Sprintf("--%s: %s: no such file (want %s)", e.flag, e.path, e.want)
}

func (e *missingFile) Unwrap() error { return e.err }

// suggestFlag is every command's flag error: an unknown flag gets the
// command's flags within two edits of it (or starting with it), as an
// unknown command gets cobra's suggestions.
func suggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var near []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if editdist.Distance(name, f.Name) <= max(1, min(2, len(name)/3)) || (len(name) >= 3 && strings.HasPrefix(f.Name, name)) {
			near = append(near, "--"+f.Name)
		}
	})
	hint := fmt.Sprintf("\n\n%s --help lists its flags", cmd.CommandPath())
	if len(near) > 0 {
		hint = "\n\nDid you mean this?\n\t" + strings.Join(near, "\n\t") + hint
	}
	return fmt.Errorf("%w%s", err, hint)
}
