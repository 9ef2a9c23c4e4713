package multiplex

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/dpmne/dpmne/internal/sizedfile"
	"github.com/dpmne/dpmne/npy"
)

type memoryLimitKey struct{}

// WithMemoryLimit returns a context under which LoadContext bounds what
// the matrix files it reads (.npy, .npz, .mat) take once read,
// decompressed and widened: each reader computes that from the file's
// headers (npy.Header.Held, npy.ReadSparseLimit, a MAT-file variable's
// declared dimensions) before it allocates, and a file that would take
// the load's total past limit is refused with an error naming the file,
// its member or variable, and the bytes. limit 0 sets no bound. Without
// WithMemoryLimit the bound is the machine's memory
// (/proc/meminfo's MemTotal; none where that cannot be read).
func WithMemoryLimit(ctx context.Context, limit int64) context.Context {
	return context.WithValue(ctx, memoryLimitKey{}, max(limit, 0))
}

// memoryLimit returns the bound WithMemoryLimit set on ctx, or the
// machine's memory; 0 for none.
func memoryLimit(ctx context.Context) int64 {
	if v, ok := ctx.Value(memoryLimitKey{}).(int64); ok {
		return v
	}
	return sizedfile.MachineMemory()
}

// loadBudget is what the matrix files of one load may take (memoryLimit)
// and what they have taken.
type loadBudget struct {
	mu          sync.Mutex
	limit, held int64
}

func newLoadBudget(ctx context.Context) *loadBudget {
	return &loadBudget{limit: memoryLimit(ctx)}
}

// left returns what the files still to be read may take, for a reader's
// own limit: 0 where there is no bound (and 1, refusing all, where none
// is left).
func (b *loadBudget) left() int64 {
	if b == nil || b.limit <= 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held >= b.limit {
		return 1
	}
	return b.limit - b.held
}

// take counts n bytes that file (what in it) takes, or refuses them where
// they pass the limit.
func (b *loadBudget) take(file, what string, n int64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit > 0 && (n > b.limit || b.held > b.limit-n) {
		return &InputError{File: file, Msg: fmt.Sprintf("%s takes %s once read and widened, with the %s the files before it take more than the memory limit %s", what, sizedfile.FormatBytes(n), sizedfile.FormatBytes(b.held), sizedfile.FormatBytes(b.limit))}
	}
	b.held = min(b.held+n, math.MaxInt64/2)
	return nil
}

// npyCheck returns a header check for npy.ReadFileContext that takes what
// the array holds (npy.Header.Held) from the budget.
func (b *loadBudget) npyCheck(file string) func(*npy.Header) error {
	return func(h *npy.Header) error {
		return b.take(file, fmt.Sprintf("the array (shape %v of %s)", h.Shape, h.Descr), h.Held())
	}
}
