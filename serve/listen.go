package serve

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Timeouts and limits of Serve's connections.
const (
	// ShutdownTimeout is how long ListenAndServe and Serve wait for
	// requests in flight after their context is cancelled.
	ShutdownTimeout = 10 * time.Second
	// ReadHeaderTimeout is how long a connection may take to send a
	// request's headers, the first request's from when it is accepted: an
	// idle or slow client holds one of Options.MaxConns for this long at
	// most before it sends a request.
	ReadHeaderTimeout = 5 * time.Second
	// IdleTimeout is how long a keep-alive connection is kept open
	// between two requests.
	IdleTimeout = 30 * time.Second
	// writeSlack is how long past the request's deadline its answer may
	// take to be written.
	writeSlack = 10 * time.Second
	// refuseWait is how long a connection over the cap is given to
	// send its request before the 503, and refuseWrite how long its
	// 503 (a few hundred bytes, which a new connection takes at once)
	// is given to be written.
	refuseWait  = 250 * time.Millisecond
	refuseWrite = 100 * time.Millisecond
	// maxRefusing bounds the connections being refused at once.
	maxRefusing = 64
)

// ListenAndServe listens on the TCP address addr and serves s as Serve
// does. ready, if not nil, is called with the bound address (useful with
// port 0) before the first request is accepted.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(net.Addr)) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(ln.Addr())
	}
	return s.Serve(ctx, ln)
}

// Serve serves s on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting connections, lets the requests in flight
// finish (for at most ShutdownTimeout) and returns nil. It returns the
// server's error if serving fails otherwise.
//
// At most Options.MaxConns connections are open at once. One more is
// refused: it is given 250 ms to send its request (clients read no
// answer before they have sent theirs), answered 503 whatever it sent
// (with Retry-After, Connection: close and the JSON error body of every
// answer), and closed. Its request is not parsed, and it holds a
// goroutine for those 250 ms at most. At most 64 connections are being
// refused at once; one more is closed at once, unanswered. So however
// many clients connect, connections cost at most MaxConns + 64
// goroutines, and one more for each request being handled.
//
// A connection must send a request's headers within ReadHeaderTimeout,
// and may idle IdleTimeout between requests; a request must be read
// within ReadHeaderTimeout + RequestTimeout of the previous answer, and
// answered within RequestTimeout + 10 s of its headers. Headers are
// capped at 64 KiB.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	lim := &limitListener{
		Listener:   ln,
		open:       make(chan struct{}, s.opt.MaxConns),
		refusing:   make(chan struct{}, maxRefusing),
		busy:       s.busyResponse(),
		opened:     s.connsOpen,
		answered:   s.connsAnswered,
		unanswered: s.connsUnanswered,
	}
	defer lim.wg.Wait() // the connections being refused
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadHeaderTimeout + s.opt.RequestTimeout,
		WriteTimeout:      s.opt.RequestTimeout + writeSlack,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lim) }()
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

// busyResponse returns the whole HTTP answer, written by writeBusy, to a
// connection over the cap of Options.MaxConns.
func (s *Server) busyResponse() []byte {
	w := httptest.NewRecorder()
	writeBusy(w, "server busy: %d connections open, the most it keeps; retry later", s.opt.MaxConns)
	resp := w.Result()
	resp.ContentLength = int64(w.Body.Len())
	resp.Close = true
	var b bytes.Buffer
	_ = resp.Write(&b) // a bytes.Buffer takes every write
	return b.Bytes()
}

// A limitListener passes on at most cap(open) connections open at once.
// It refuses any other, answering it with busy in a goroutine of its own,
// with at most cap(refusing) of those at once; past that it closes a
// connection unanswered.
//
// (golang.org/x/net/netutil.LimitListener does not fit: over its cap it
// stops accepting, so a client waits in the kernel's backlog, unanswered,
// for as long as the connections under the cap stay open.)
type limitListener struct {
	net.Listener
	open                 chan struct{} // a token per connection passed on
	refusing             chan struct{} // a token per refusing goroutine
	wg                   sync.WaitGroup
	busy                 []byte
	opened               prometheus.Gauge // connections open
	answered, unanswered prometheus.Counter
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.open <- struct{}{}:
			l.opened.Inc()
			return &limitConn{Conn: c, l: l}, nil
		default:
		}
		select {
		case l.refusing <- struct{}{}:
			l.answered.Inc()
		default:
			_ = c.Close()
			l.unanswered.Inc()
			continue
		}
		l.wg.Go(func() {
			defer func() { <-l.refusing }()
			l.refuse(c)
		})
	}
}

// refuse answers c with busy once it has sent something (or refuseWait
// has passed), and closes it.
func (l *limitListener) refuse(c net.Conn) {
	defer c.Close()
	// A client reads no answer before it has written its request (Go's
	// http.Transport drops one that comes first), and closing a
	// connection with unread data resets it: take the request's first
	// bytes, most often all of it, before answering.
	var buf [1024]byte
	_ = c.SetReadDeadline(time.Now().Add(refuseWait))
	_, _ = c.Read(buf[:])
	_ = c.SetWriteDeadline(time.Now().Add(refuseWrite))
	_, _ = c.Write(l.busy)
}

// A limitConn gives its token back to its listener when it is first
// closed.
type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		<-c.l.open
		c.l.opened.Dec()
	})
	return err
}

// CloseWrite shuts down the writing side of the connection where it can
// (TCP), as http.Server does before closing a connection with a request
// it has not read.
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
