package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/dpmne/dpmne/internal/par"
)

// SkipGram is skip-gram with negative sampling (word2vec's SGNS, Mikolov et
// al. 2013), the learner behind DeepWalk and node2vec. The zero value trains
// with the defaults named beside each field.
//
// It follows word2vec's C code: for each word w and each context word c
// within a window of width drawn uniformly from 1…Window, c's input vector
// is moved towards w's output vector and away from Negative output vectors
// drawn from the unigram distribution raised to 0.75 (an Alias table of the
// corpus's word counts); the learning rate decays linearly from
// LearningRate to LearningRate·10⁻⁴ over all Epochs; input vectors start
// uniform in ±0.5/Dim, output vectors at zero; σ is read from word2vec's
// 1,000-entry table on [−6, 6].
//
// It is hand-written, not github.com/ynqa/wego, the maintained Go word2vec:
// wego draws its negatives uniformly over the vocabulary rather than from
// the unigram^0.75 distribution (which matters on graphs, whose node
// frequencies in walks follow the degrees), its goroutines race on the
// vectors in a way the race detector reports, and it takes no seed, so no
// run can be reproduced. Here every sentence and every sentence's draws come
// from random streams fixed by the seed and the sentence's index.
type SkipGram struct {
	Dim          int     // vector width (default 128)
	Window       int     // largest context distance (default 10)
	Negative     int     // negative samples per context pair (default 5)
	Epochs       int     // passes over the corpus (default 1)
	LearningRate float64 // initial step size (default 0.025, word2vec's for skip-gram)
	// Workers is the number of goroutines. 0 or 1 trains on one, and then a
	// seed gives byte-identical vectors. More train Hogwild (Recht et al.
	// 2011): each worker takes a contiguous share of the sentences and
	// updates the shared vectors without locks, as word2vec's threads do;
	// the result then depends on scheduling. Go's memory model makes these
	// racy float32 accesses safe (a read sees some value written), but the
	// race detector reports them, so in a -race build the workers take a
	// mutex around each word's updates instead: correct and reproducible in
	// distribution, not fast.
	Workers int
}

func (c SkipGram) withDefaults() SkipGram {
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Window == 0 {
		c.Window = 10
	}
	if c.Negative == 0 {
		c.Negative = 5
	}
	if c.Epochs == 0 {
		c.Epochs = 1
	}
	if c.LearningRate == 0 {
		c.LearningRate = 0.025
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	return c
}

func (c SkipGram) validate() error {
	switch {
	case c.Dim < 1:
		return fmt.Errorf("baseline: skip-gram dimension %d must be positive", c.Dim)
	case c.Window < 1:
		return fmt.Errorf("baseline: skip-gram window %d must be positive", c.Window)
	case c.Negative < 1:
		return fmt.Errorf("baseline: skip-gram negative samples %d must be positive", c.Negative)
	case c.Epochs < 1:
		return fmt.Errorf("baseline: skip-gram epochs %d must be positive", c.Epochs)
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return fmt.Errorf("baseline: skip-gram learning rate %v must be finite and positive", c.LearningRate)
	case c.Workers < 1:
		return fmt.Errorf("baseline: skip-gram workers %d must be positive", c.Workers)
	}
	return nil
}

// A Corpus is a sequence of sentences over the words 0…Vocab()−1 that can
// be regenerated: Sentence(k, src, buf) must return the same words whenever
// src is in the same state, so that a corpus of random walks need not be
// stored. It may reuse buf's storage.
type Corpus interface {
	Vocab() int
	Len() int
	Sentence(k int, src *rand.PCG, buf []int32) []int32
}

// Stream numbers for the random streams of a seed.
const (
	streamSentence = 1 + iota
	streamTrain
	streamInit
)

// Train learns the input vectors of corpus's words and returns them as a
// Vocab×Dim row-major matrix. Sentence k is generated from stream k of the
// seed in every epoch, so each epoch sees the same corpus. Train returns
// ctx's error if it is cancelled.
func (c SkipGram) Train(ctx context.Context, corpus Corpus, seed uint64) ([]float32, error) {
	return c.train(ctx, corpus, seed, "skip-gram", "sentences")
}

// train is Train reporting its phases to ctx's Progress (WithProgress) as
// phase, the corpus's sentences counted in unit.
func (c SkipGram) train(ctx context.Context, corpus Corpus, seed uint64, phase, unit string) ([]float32, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	vocab, nsent := corpus.Vocab(), corpus.Len()
	if vocab < 1 || nsent < 1 {
		return nil, errors.New("baseline: skip-gram needs a non-empty corpus")
	}
	rep := progressOf(ctx)
	rep.begin(phase+": counting the words", unit, nsent)
	counts, err := wordCounts(ctx, corpus, seed, c.Workers)
	if err != nil {
		return nil, err
	}
	w := make([]float64, vocab)
	var words int64
	for i, n := range counts {
		w[i] = math.Pow(float64(n), 0.75)
		words += n
	}
	neg, err := NewAlias(w)
	if err != nil {
		return nil, errors.New("baseline: skip-gram corpus has no words")
	}
	dim := c.Dim
	syn0 := make([]float32, vocab*dim)
	syn1 := make([]float32, vocab*dim)
	init := stream(seed, streamInit)
	for i := range syn0 {
		syn0[i] = float32((float01(init) - 0.5) / float64(dim))
	}
	tr := &sgdShared{cfg: c, corpus: corpus, neg: neg, syn0: syn0, syn1: syn1,
		total: float64(c.Epochs) * float64(words), seed: seed, rep: rep}
	rep.begin(phase, "words", c.Epochs*int(words))
	if c.Workers > 1 && raceEnabled {
		tr.lock = new(sync.Mutex)
	}
	err = parallelRanges(ctx, nsent, c.Workers, func(ctx context.Context, lo, hi int) error {
		return tr.work(ctx, lo, hi)
	})
	if err != nil {
		return nil, err
	}
	rep.step(c.Epochs * int(words))
	return syn0, nil
}

// wordCounts generates every sentence once and counts its words, on
// workers goroutines (the counts do not depend on how many).
func wordCounts(ctx context.Context, corpus Corpus, seed uint64, workers int) ([]int64, error) {
	vocab := corpus.Vocab()
	parts := make([][]int64, workers)
	var next, counted atomic.Int64
	rep := progressOf(ctx)
	err := parallelRanges(ctx, corpus.Len(), workers, func(ctx context.Context, lo, hi int) error {
		cnt := make([]int64, vocab)
		parts[next.Add(1)-1] = cnt
		src := rand.NewPCG(0, 0)
		var buf []int32
		last := lo
		defer func() { rep.step(int(counted.Add(int64(hi - last)))) }()
		for k := lo; k < hi; k++ {
			if k%256 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				rep.step(int(counted.Add(int64(k - last))))
				last = k
			}
			reseed(src, seed^streamSentence<<56, uint64(k))
			buf = corpus.Sentence(k, src, buf)
			for _, v := range buf {
				if v < 0 || int(v) >= vocab {
					return fmt.Errorf("baseline: sentence %d has word %d outside [0,%d)", k, v, vocab)
				}
				cnt[v]++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	counts := make([]int64, vocab)
	for _, p := range parts {
		for i, v := range p {
			counts[i] += v
		}
	}
	return counts, nil
}

// sgdShared is the state the skip-gram workers share.
type sgdShared struct {
	cfg        SkipGram
	corpus     Corpus
	neg        *Alias
	syn0, syn1 []float32
	total      float64      // words to process over all epochs
	done       atomic.Int64 // words processed so far, for the learning rate
	lock       *sync.Mutex  // serialises updates under the race detector
	seed       uint64
	rep        *reporter // done is its count of words
}

// work trains on sentences [lo, hi) for every epoch.
func (t *sgdShared) work(ctx context.Context, lo, hi int) error {
	c := t.cfg
	dim, win := c.Dim, c.Window
	neu1e := make([]float32, dim)
	gen, src := rand.NewPCG(0, 0), rand.NewPCG(0, 0)
	var sent []int32
	nsent := t.corpus.Len()
	for e := range c.Epochs {
		for k := lo; k < hi; k++ {
			if (k-lo)%64 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				t.rep.step(int(t.done.Load()))
			}
			reseed(gen, t.seed^streamSentence<<56, uint64(k))
			sent = t.corpus.Sentence(k, gen, sent)
			reseed(src, t.seed^streamTrain<<56, uint64(e)*uint64(nsent)+uint64(k))
			done := t.done.Add(int64(len(sent))) - int64(len(sent))
			alpha := float32(c.LearningRate * max(1e-4, 1-float64(done)/(t.total+1)))
			for i, w := range sent {
				span := win - intN(src, win)
				a, b := max(0, i-span), min(len(sent)-1, i+span)
				if t.lock != nil {
					t.lock.Lock()
				}
				for j := a; j <= b; j++ {
					if j == i {
						continue
					}
					ctxw := int(sent[j])
					l1 := t.syn0[ctxw*dim : ctxw*dim+dim]
					clear(neu1e)
					for d := 0; d <= c.Negative; d++ {
						target, label := w, float32(1)
						if d > 0 {
							if target = t.neg.Sample(src); target == w {
								continue
							}
							label = 0
						}
						l2 := t.syn1[int(target)*dim : int(target)*dim+dim]
						g := (label - sigmoid32(dot32(l1, l2))) * alpha
						axpy32(g, l2, neu1e)
						axpy32(g, l1, l2)
					}
					axpy32(1, neu1e, l1)
				}
				if t.lock != nil {
					t.lock.Unlock()
				}
			}
		}
	}
	return nil
}

// parallelRanges calls fn on workers contiguous ranges covering [0, n),
// concurrently, and returns the first error.
func parallelRanges(ctx context.Context, n, workers int, fn func(ctx context.Context, lo, hi int) error) error {
	workers = par.Workers(workers)
	workers = max(1, min(workers, n))
	if workers == 1 {
		return fn(ctx, 0, n)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx, w*n/workers, (w+1)*n/workers); err != nil {
				errs[w] = err
				cancel()
			}
		}()
	}
	wg.Wait()
	// Report a real error before the cancellations it caused.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}
