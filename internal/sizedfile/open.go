package sizedfile

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Open opens path for reading and returns once it is open or ctx is done.
// Opening a FIFO waits for a writer, in the kernel, where nothing can
// interrupt it; so a FIFO is opened in a goroutine while Open waits on
// ctx (rather than opened with O_NONBLOCK, whose reads would find no
// writer and end at once), and once ctx is done Open returns ctx's error,
// wrapped with path, after releasing the waiting open: it opens the FIFO's
// write end (O_NONBLOCK, which succeeds once a reader waits) and closes
// it, every few milliseconds until the open returns, and closes what the
// open opened. Any other file is opened at once.
func Open(ctx context.Context, path string) (*os.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
	}
	stop := fmt.Errorf("%s: %w (waiting for a writer to open the FIFO)", path, ctx.Err())
	if !canRelease {
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, stop
	}
	// The open may not wait yet: release it until it returns.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		releaseFIFO(path)
		select {
		case o := <-ch:
			if o.f != nil {
				o.f.Close()
			}
			return nil, stop
		case <-tick.C:
		}
	}
}
