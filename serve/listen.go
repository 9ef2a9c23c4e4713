package serve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// ShutdownTimeout is how long ListenAndServe and Serve wait for requests
// in flight after their context is cancelled.
const ShutdownTimeout = 10 * time.Second

// ListenAndServe listens on the TCP address addr and serves h as Serve
// does. ready, if not nil, is called with the bound address (useful with
// port 0) before the first request is accepted.
func ListenAndServe(ctx context.Context, addr string, h http.Handler, ready func(net.Addr)) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(ln.Addr())
	}
	return Serve(ctx, ln, h)
}

// Serve serves h on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting connections, lets the requests in flight
// finish (for at most ShutdownTimeout) and returns nil. It returns the
// server's error if serving fails otherwise. The server bounds the time
// to read a request's headers (10 s) and whole request (30 s), to write a
// response (60 s), and header size (64 KiB).
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
