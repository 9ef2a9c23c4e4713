package main

import (
	"fmt"
	"io"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/multiplex"
)

// reconstructions returns how dpmne train, with --loss loss ("auto" for
// none) and the other settings at their defaults, reconstructs each view's
// features (dpmne.Config.Reconstructions); a loss that cannot reconstruct
// a view's features is the fit's error.
func reconstructions(net *multiplex.Network, loss string) ([]dpmne.ViewReconstruction, error) {
	cfg := dpmne.DefaultConfig()
	cfg.Autoencoder.Loss = loss
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("--loss: %w", err)
	}
	return cfg.Reconstructions(net)
}

// printReconstructions prints, per view, the kind of its features, the
// loss of its autoencoder, the decoder's output and how the features are
// read, under dpmne train --loss loss.
func printReconstructions(w io.Writer, recs []dpmne.ViewReconstruction, loss string) error {
	rows := make([][]string, len(recs))
	for s, r := range recs {
		read := "as given"
		switch {
		case r.Clip:
			read = "clipped to [0, 1]"
		case r.Centre:
			read = "columns standardised"
		case r.Scale:
			read = "columns scaled to unit RMS"
		}
		rows[s] = []string{r.View, r.Kind.String(), r.Loss.String(), r.Output.String(), read}
	}
	fmt.Fprintf(w, "\nautoencoders (dpmne train --loss %s):\n", loss)
	writeTable(w, []string{"view", "features", "loss", "output", "read"}, rows)
	return nil
}
