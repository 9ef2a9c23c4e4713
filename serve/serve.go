package serve

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/codes"
	"github.com/dpmne/dpmne/internal/jsonkeys"
	"github.com/dpmne/dpmne/sparse"
)

// Defaults of Options.
const (
	DefaultK              = 10
	DefaultMaxK           = 1000
	DefaultMaxBodyBytes   = 1 << 20
	DefaultMaxConns       = 1024
	DefaultRequestTimeout = 30 * time.Second
	DefaultBodyTimeout    = 5 * time.Second
)

// DefaultMaxInFlight returns the default of Options.MaxInFlight, 4 ×
// GOMAXPROCS: one scan already uses every CPU (package codes splits a
// large one over GOMAXPROCS goroutines), so more searches at once only
// queue for the CPUs; a few per CPU keep them busy while other requests
// read, decode and write.
func DefaultMaxInFlight() int { return 4 * runtime.GOMAXPROCS(0) }

// Options configure a Server. The zero value gives the defaults; no
// field may be negative.
type Options struct {
	// MaxK is the largest k a request may ask for (DefaultMaxK when 0).
	MaxK int
	// MaxBodyBytes bounds a request body (DefaultMaxBodyBytes when 0).
	MaxBodyBytes int64
	// MaxConns is the most connections Serve and ListenAndServe keep
	// open at once, idle ones included (DefaultMaxConns when 0). A
	// connection over the cap is answered 503 and closed, unserved, as
	// Serve says.
	MaxConns int
	// MaxInFlight is the most search requests (neighbours and embed)
	// handled at once (DefaultMaxInFlight() when 0). A request over the
	// cap is answered 503 at once; none waits.
	MaxInFlight int
	// RequestTimeout is each request's deadline, from the end of its
	// headers (DefaultRequestTimeout when 0): the handler's context
	// carries it, the body must be read by then, and a search still
	// running then stops and is answered 503.
	RequestTimeout time.Duration
	// BodyTimeout is how long a request body may take to arrive, from
	// the end of its headers (DefaultBodyTimeout when 0, and never past
	// RequestTimeout). A body is read before the request takes a search
	// slot (MaxInFlight), so slow bodies hold no slot; one not read by
	// then is answered 408.
	BodyTimeout time.Duration
	// Workers is the number of goroutines one scan uses (0: package
	// codes decides, by the number of rows and GOMAXPROCS).
	Workers int
	// Registry receives the server's metrics and is what /metrics
	// exposes; nil means a new registry with the Go runtime and process
	// collectors.
	Registry *prometheus.Registry
	// Codes, if set, are the binary codes Hamming search scans instead of
	// the sign codes of the embedding: one per node of the model, in its
	// order (dpmne binarize). An unseen node is then encoded as they
	// were: by Rotation, or without it as sign codes.
	Codes *codes.Codes
	// Rotation is the ITQ rotation of Codes (codes.ITQResult: its Mean and
	// R), or nil for sign codes.
	Rotation *Rotation
}

// Rotation is how ITQ codes encode an embedding row y: the signs of
// (y − Mean)·R, R d×d row-major.
type Rotation struct {
	Mean, R []float64
}

// Server answers the endpoints of the package documentation for one
// model. It is an http.Handler, safe for concurrent use.
type Server struct {
	model    *dpmne.Model
	ids      []string
	index    map[string]int
	n, d     int
	y        []float64    // n×d, the model's embedding
	cos      *codes.Index // unit rows for cosine search
	mean     []float64    // column means of y, for sign codes
	bits     *codes.Codes // sign codes of the centred y
	opt      Options
	inFlight chan struct{} // a token per search being served
	reading  atomic.Int32  // request bodies being read (withBody)
	mux      *http.ServeMux
	reg      *prometheus.Registry
	// The connections of Serve: open now, and refused over the cap,
	// answered 503 or not.
	connsOpen                      prometheus.Gauge
	connsAnswered, connsUnanswered prometheus.Counter
}

// withDefaults checks opt and gives its zero fields their defaults.
func (opt Options) withDefaults() (Options, error) {
	switch {
	case opt.MaxK < 0:
		return opt, fmt.Errorf("serve: MaxK = %d, want ≥ 0", opt.MaxK)
	case opt.MaxBodyBytes < 0:
		return opt, fmt.Errorf("serve: MaxBodyBytes = %d, want ≥ 0", opt.MaxBodyBytes)
	case opt.MaxConns < 0:
		return opt, fmt.Errorf("serve: MaxConns = %d, want ≥ 0", opt.MaxConns)
	case opt.MaxInFlight < 0:
		return opt, fmt.Errorf("serve: MaxInFlight = %d, want ≥ 0", opt.MaxInFlight)
	case opt.RequestTimeout < 0:
		return opt, fmt.Errorf("serve: RequestTimeout = %v, want ≥ 0", opt.RequestTimeout)
	case opt.BodyTimeout < 0:
		return opt, fmt.Errorf("serve: BodyTimeout = %v, want ≥ 0", opt.BodyTimeout)
	}
	if opt.MaxK == 0 {
		opt.MaxK = DefaultMaxK
	}
	if opt.MaxBodyBytes == 0 {
		opt.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opt.MaxConns == 0 {
		opt.MaxConns = DefaultMaxConns
	}
	if opt.MaxInFlight == 0 {
		opt.MaxInFlight = DefaultMaxInFlight()
	}
	if opt.RequestTimeout == 0 {
		opt.RequestTimeout = DefaultRequestTimeout
	}
	if opt.BodyTimeout == 0 {
		opt.BodyTimeout = DefaultBodyTimeout
	}
	return opt, nil
}

// New builds the search structures for m (a cosine index and sign codes of
// its embedding) and the routes. It returns an error for a model that
// dpmne.Model.Check refuses (ids not one per row or repeated, a value that
// is not finite anywhere), or for negative options.
func New(m *dpmne.Model, opt Options) (*Server, error) {
	if m == nil || m.Y == nil {
		return nil, errors.New("serve: no model")
	}
	// The check every model file gets on load (dpmne.ReadModel), for a
	// model built in memory: one row per id, no id twice, finite values.
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	n, d := m.Y.Dims()
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{model: m, ids: m.IDs, index: make(map[string]int, n), n: n, d: d, opt: opt,
		inFlight: make(chan struct{}, opt.MaxInFlight)}
	for i, id := range m.IDs {
		s.index[id] = i // unique: m.Check
	}
	e := m.Embedding() // Embed's results are in its space
	s.y = e.RawMatrix().Data
	if e.RawMatrix().Stride != d {
		s.y = make([]float64, 0, n*d)
		for i := range n {
			s.y = append(s.y, e.RawRowView(i)...)
		}
	}
	s.cos = codes.NewIndex(s.y, n, d)
	s.mean = codes.ColumnMeans(s.y, n, d)
	s.bits = codes.EncodeSign(s.y, n, d, s.mean)
	if c := opt.Codes; c != nil {
		if c.N != n {
			return nil, fmt.Errorf("serve: %d codes for the model's %d nodes", c.N, n)
		}
		if r := opt.Rotation; r != nil && (c.Bits != d || len(r.Mean) != d || len(r.R) != d*d) {
			return nil, fmt.Errorf("serve: ITQ codes of %d bits with a rotation of %d means and %d entries, for d = %d: want d of each and d² entries", c.Bits, len(r.Mean), len(r.R), d)
		}
		if opt.Rotation == nil && c.Bits != d {
			return nil, fmt.Errorf("serve: sign codes of %d bits for d = %d", c.Bits, d)
		}
		s.bits = c
	}

	s.reg = opt.Registry
	if s.reg == nil {
		s.reg = prometheus.NewRegistry()
		s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dpmne_http_requests_total",
		Help: "HTTP requests by endpoint, status code and method.",
	}, []string{"endpoint", "code", "method"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "dpmne_http_request_duration_seconds",
		Help:    "HTTP request latency by endpoint.",
		Buckets: prometheus.ExponentialBuckets(50e-6, 2, 16), // 50 µs … 1.6 s
	}, []string{"endpoint"})
	inFlight := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "dpmne_http_requests_in_flight",
		Help: "HTTP requests being served.",
	})
	s.connsOpen = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "dpmne_http_connections_open",
		Help: "Connections open (under the cap MaxConns).",
	})
	refused := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dpmne_http_connections_refused_total",
		Help: "Connections closed unserved for being over the cap MaxConns, by answer: " +
			"503, or none (closed at once while 64 others were being answered).",
	}, []string{"answer"})
	s.connsAnswered = refused.WithLabelValues("503")
	s.connsUnanswered = refused.WithLabelValues("none")
	for _, c := range []prometheus.Collector{requests, latency, inFlight, s.connsOpen, refused} {
		if err := s.reg.Register(c); err != nil {
			return nil, fmt.Errorf("serve: registering metrics: %w", err)
		}
	}
	instrument := func(endpoint string, h http.HandlerFunc) http.Handler {
		l := prometheus.Labels{"endpoint": endpoint}
		return promhttp.InstrumentHandlerInFlight(inFlight,
			promhttp.InstrumentHandlerDuration(latency.MustCurryWith(l),
				promhttp.InstrumentHandlerCounter(requests.MustCurryWith(l), h)))
	}
	s.mux = http.NewServeMux()
	route := func(method, path, endpoint string, h http.HandlerFunc) {
		s.mux.Handle(method+" "+path, instrument(endpoint, h))
		// Any other method: a JSON 405 (the bare pattern is less specific
		// than the one with a method, so it only gets the rest).
		s.mux.Handle(path, instrument(endpoint, func(w http.ResponseWriter, r *http.Request) {
			allow := method
			if method == http.MethodGet {
				allow += ", HEAD"
			}
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, "method %s not allowed on %s: use %s", r.Method, path, method)
		}))
	}
	route(http.MethodGet, "/v1/nodes/{id}/neighbors", "neighbors", s.limit(s.neighbors))
	route(http.MethodPost, "/v1/embed", "embed", s.withBody(func(w http.ResponseWriter, r *http.Request, body []byte) {
		s.limit(func(w http.ResponseWriter, r *http.Request) { s.embed(w, r, body) })(w, r)
	}))
	route(http.MethodGet, "/healthz", "healthz", s.healthz)
	metrics := promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg})
	route(http.MethodGet, "/metrics", "metrics", metrics.ServeHTTP)
	s.mux.Handle("/", instrument("other", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no endpoint %s: see /v1/nodes/{id}/neighbors, /v1/embed, /healthz, /metrics", r.URL.Path)
	}))
	return s, nil
}

// ServeHTTP routes a request, its context bounded by Options.RequestTimeout.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.opt.RequestTimeout)
	defer cancel()
	s.mux.ServeHTTP(w, r.WithContext(ctx))
}

// RetryAfter is the Retry-After header, in seconds, of every 503 answer.
const RetryAfter = "1"

// writeBusy writes a 503 answer, with Retry-After, the JSON error of
// format and args.
func writeBusy(w http.ResponseWriter, format string, args ...any) {
	w.Header().Set("Retry-After", RetryAfter)
	writeError(w, http.StatusServiceUnavailable, format, args...)
}

// limit runs h unless Options.MaxInFlight searches are being served
// already, and then answers 503.
func (s *Server) limit(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.inFlight <- struct{}{}:
			defer func() { <-s.inFlight }()
			h(w, r)
		default:
			writeBusy(w, "server busy: %d searches in flight, the most it serves at once; retry later", cap(s.inFlight))
		}
	}
}

// stopped answers 503 to a request whose context ended with err: its
// deadline passed, or its client went away.
func (s *Server) stopped(w http.ResponseWriter, err error) {
	if errors.Is(err, context.DeadlineExceeded) {
		writeBusy(w, "request timed out: not answered within %v; retry later", s.opt.RequestTimeout)
		return
	}
	writeBusy(w, "request cancelled: %v", err)
}

// Registry returns the registry /metrics exposes.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// Neighbor is one search result: a node's id and its score (cosine
// similarity, or Hamming distance).
type Neighbor struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
}

// NeighborsResponse is the answer of GET /v1/nodes/{id}/neighbors.
type NeighborsResponse struct {
	ID        string     `json:"id"`
	Metric    string     `json:"metric"`
	K         int        `json:"k"`
	Neighbors []Neighbor `json:"neighbors"`
}

// EmbedRequest is the body of POST /v1/embed. Features maps view names to
// the node's features there: a JSON array (dense, the view's width) or an
// object {"indices": [...], "values": [...]} (sparse; values default to
// 1). K and Metric are as for the neighbours endpoint (defaults 10 and
// cosine).
type EmbedRequest struct {
	Features map[string]json.RawMessage `json:"features"`
	// Edges gives, for a view without features of its own (whose
	// autoencoder reads adjacency rows over the model's nodes), the ids of
	// the model's nodes the node has edges to there: its adjacency row,
	// each edge of weight 1. (Not the response's "neighbors", the nodes
	// found nearest.)
	Edges map[string][]string `json:"edges,omitempty"`
	// Neighbors is Edges under its former name, which the response's
	// "neighbors" made ambiguous; it is still read, and refused beside
	// Edges.
	Neighbors map[string][]string `json:"neighbors,omitempty"`
	K         *int                `json:"k,omitempty"`
	Metric    string              `json:"metric,omitempty"`
}

// SparseFeatures is the sparse form of one view's features.
type SparseFeatures struct {
	Indices []int     `json:"indices"`
	Values  []float64 `json:"values,omitempty"`
}

// EmbedResponse is the answer of POST /v1/embed.
type EmbedResponse struct {
	Embedding []float64  `json:"embedding"`
	Views     []string   `json:"views"`
	Metric    string     `json:"metric"`
	K         int        `json:"k"`
	Neighbors []Neighbor `json:"neighbors"`
}

// HealthResponse is the answer of GET /healthz.
type HealthResponse struct {
	Status string       `json:"status"`
	Nodes  int          `json:"nodes"`
	Dim    int          `json:"dim"`
	Views  []HealthView `json:"views"`
}

// HealthView is a view of the model and its feature width.
type HealthView struct {
	Name     string `json:"name"`
	Features int    `json:"features"`
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	h := HealthResponse{Status: "ok", Nodes: s.n, Dim: s.d}
	for _, v := range s.model.Views {
		h.Views = append(h.Views, HealthView{Name: v.Name, Features: v.In})
	}
	writeJSON(w, http.StatusOK, h)
}

// parseK reads k from its text (empty: the default).
func (s *Server) parseK(text string) (int, error) {
	if text == "" {
		return DefaultK, nil
	}
	k, err := strconv.Atoi(text)
	if err != nil {
		return 0, fmt.Errorf("k: %q is not an integer", text)
	}
	return s.checkK(k)
}

func (s *Server) checkK(k int) (int, error) {
	if k < 1 || k > s.opt.MaxK {
		return 0, fmt.Errorf("k = %d: want 1 to %d", k, s.opt.MaxK)
	}
	return k, nil
}

func parseMetric(m string) (string, error) {
	switch m {
	case "":
		return "cosine", nil
	case "cosine", "hamming":
		return m, nil
	}
	return "", fmt.Errorf("metric %q: want cosine or hamming", m)
}

func (s *Server) neighbors(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	q := r.URL.Query()
	k, err := s.parseK(q.Get("k"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	metric, err := parseMetric(q.Get("metric"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	i, ok := s.index[id]
	if !ok {
		writeError(w, http.StatusNotFound, "node %q is not in the model", id)
		return
	}
	var hits []codes.Hit
	if metric == "hamming" {
		hits, err = s.bits.HammingTopKContext(r.Context(), s.bits.Row(i), k, i, s.opt.Workers)
	} else {
		hits, err = s.cos.CosineTopKContext(r.Context(), s.y[i*s.d:(i+1)*s.d], k, i, s.opt.Workers)
	}
	if errors.Is(err, codes.ErrZeroQuery) {
		writeError(w, http.StatusBadRequest, "node %q: its embedding is all zero: it has no direction, so no node is nearer to it by cosine than another (metric=hamming ranks its sign code)", id)
		return
	}
	if err != nil {
		s.stopped(w, err)
		return
	}
	writeJSON(w, http.StatusOK, NeighborsResponse{ID: id, Metric: metric, K: k, Neighbors: s.named(hits)})
}

func (s *Server) named(hits []codes.Hit) []Neighbor {
	out := make([]Neighbor, len(hits))
	for j, h := range hits {
		out[j] = Neighbor{ID: s.ids[h.Index], Score: h.Score}
	}
	return out
}

// withBody reads a request's body, at most Options.MaxBodyBytes, before
// h runs with it: before a search slot is taken (limit), so that clients
// sending their bodies slowly hold none. The body must arrive within
// Options.BodyTimeout of the headers (and the request's deadline): a
// read deadline on the connection, where the ResponseWriter supports one
// (httptest's does not: no matter); past it the request is answered 408.
func (s *Server) withBody(h func(http.ResponseWriter, *http.Request, []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		deadline := time.Now().Add(s.opt.BodyTimeout)
		end, hasEnd := r.Context().Deadline()
		if !hasEnd {
			end = deadline.Add(time.Second) // after it: the body's deadline is the one
		}
		if hasEnd && end.Before(deadline) {
			deadline = end
		}
		_ = rc.SetReadDeadline(deadline)
		s.reading.Add(1)
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes))
		s.reading.Add(-1)
		// The connection's reads then wait as long as the request may
		// last: a deadline passing during the search would look like the
		// client gone and cancel it.
		if hasEnd {
			_ = rc.SetReadDeadline(end)
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			switch {
			case errors.As(err, &tooBig):
				writeError(w, http.StatusRequestEntityTooLarge, "request body exceeds %d bytes", tooBig.Limit)
			case errors.Is(err, os.ErrDeadlineExceeded) && deadline.Before(end):
				// The body's own deadline (the failed read has also
				// cancelled the request's context).
				w.Header().Set("Connection", "close")
				writeError(w, http.StatusRequestTimeout, "request body not received within %v of the headers", s.opt.BodyTimeout)
			case r.Context().Err() != nil || errors.Is(err, os.ErrDeadlineExceeded):
				s.stopped(w, cmp.Or(r.Context().Err(), context.DeadlineExceeded))
			default:
				writeError(w, http.StatusBadRequest, "reading the request body: %v", err)
			}
			return
		}
		h(w, r, body)
	}
}

func (s *Server) embed(w http.ResponseWriter, r *http.Request, body []byte) {
	var req EmbedRequest
	if err := decodeStrict(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "request body: %v", err)
		return
	}
	k := DefaultK
	if req.K != nil {
		var err error
		if k, err = s.checkK(*req.K); err != nil {
			writeError(w, http.StatusBadRequest, "%v", err)
			return
		}
	}
	metric, err := parseMetric(req.Metric)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	edges, edgesKey := req.Edges, "edges"
	if req.Neighbors != nil {
		if req.Edges != nil {
			writeError(w, http.StatusBadRequest, `request body: give "edges" ("neighbors" is its former name), not both`)
			return
		}
		edges, edgesKey = req.Neighbors, "neighbors"
	}
	x, views, err := s.features(req.Features, edges, edgesKey)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	emb, err := s.model.Embed(x, nil)
	if err != nil {
		// Shapes were checked above; what remains is the model's own
		// failure (a singular system), not the request's fault.
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	y := emb.RawRowView(0)
	for j, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			writeError(w, http.StatusBadRequest, "features: the embedding is not finite (column %d): feature values too large", j)
			return
		}
	}
	var hits []codes.Hit
	if metric == "hamming" {
		c := s.encode(y)
		hits, err = s.bits.HammingTopKContext(r.Context(), c.Row(0), k, -1, s.opt.Workers)
	} else {
		hits, err = s.cos.CosineTopKContext(r.Context(), y, k, -1, s.opt.Workers)
	}
	if errors.Is(err, codes.ErrZeroQuery) {
		writeError(w, http.StatusBadRequest, "features: the embedding is all zero: it has no direction, so no node is nearer to it by cosine than another (metric=hamming ranks its sign code)")
		return
	}
	if err != nil {
		s.stopped(w, err)
		return
	}
	writeJSON(w, http.StatusOK, EmbedResponse{Embedding: y, Views: views, Metric: metric, K: k, Neighbors: s.named(hits)})
}

// features turns the request's features and edges (nb, under the request's
// key nbKey) into one 1-row CSR per model view (nil for the views not
// given) and the names of the given views, in the model's order.
func (s *Server) features(f map[string]json.RawMessage, nb map[string][]string, nbKey string) ([]*sparse.CSR, []string, error) {
	if len(f) == 0 && len(nb) == 0 {
		return nil, nil, fmt.Errorf("features: give the node's features in at least one view (%s), or its edges to the model's nodes in a view without features (\"edges\")", s.viewList())
	}
	x := make([]*sparse.CSR, len(s.model.Views))
	var names []string
	known := func(what, name string) error {
		if !slices.ContainsFunc(s.model.Views, func(v dpmne.ViewModel) bool { return v.Name == name }) {
			return fmt.Errorf("%s: unknown view %q (the model's views: %s)", what, name, s.viewList())
		}
		return nil
	}
	for name := range f {
		if err := known("features", name); err != nil {
			return nil, nil, err
		}
	}
	for name := range nb {
		if err := known(nbKey, name); err != nil {
			return nil, nil, err
		}
	}
	for v, view := range s.model.Views {
		raw, feat := f[view.Name]
		ids, edges := nb[view.Name]
		switch {
		case feat && edges:
			return nil, nil, fmt.Errorf("view %q: give its features or its %s, not both", view.Name, nbKey)
		case feat:
			row, err := parseRow(raw, view.In)
			if err != nil {
				return nil, nil, fmt.Errorf("features.%s: %w", view.Name, err)
			}
			x[v] = row
		case edges:
			if view.In != s.n {
				return nil, nil, fmt.Errorf("%s.%s: the view's autoencoder reads %d features, not the adjacency rows of the model's %d nodes: give its features", nbKey, view.Name, view.In, s.n)
			}
			b := sparse.NewBuilder(1, s.n)
			for _, id := range ids {
				j, ok := s.index[id]
				if !ok {
					return nil, nil, fmt.Errorf("%s.%s: unknown node %q", nbKey, view.Name, id)
				}
				b.Add(0, j, 1)
			}
			row, err := b.Build(sparse.MergeMax)
			if err != nil {
				return nil, nil, fmt.Errorf("%s.%s: %w", nbKey, view.Name, err)
			}
			x[v] = row
		default:
			continue
		}
		names = append(names, view.Name)
	}
	return x, names, nil
}

// encode returns the binary code of the embedding row y as the served
// codes were made: the signs of (y − Mean)·R for ITQ codes, else of y less
// the embedding's column means.
func (s *Server) encode(y []float64) *codes.Codes {
	r := s.opt.Rotation
	if r == nil {
		return codes.EncodeSign(y, 1, s.d, s.mean)
	}
	v := make([]float64, s.d)
	for j := range s.d {
		for i, x := range y {
			v[j] += (x - r.Mean[i]) * r.R[i*s.d+j]
		}
	}
	return codes.EncodeSign(v, 1, s.d, nil)
}

func (s *Server) viewList() string {
	var b strings.Builder
	for v, view := range s.model.Views {
		if v > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s of width %d", view.Name, view.In)
	}
	return b.String()
}

// parseRow reads one view's features, dense or sparse, as a 1×width CSR.
func parseRow(raw json.RawMessage, width int) (*sparse.CSR, error) {
	raw = bytes.TrimSpace(raw)
	type entry struct {
		j int
		v float32
	}
	var entries []entry
	check := func(v float64, where string) (float32, error) {
		if math.Abs(v) > math.MaxFloat32 {
			return 0, fmt.Errorf("%s: value %g is outside the float32 range", where, v)
		}
		return float32(v), nil
	}
	switch {
	case len(raw) > 0 && raw[0] == '[':
		var dense []float64
		if err := decodeStrict(raw, &dense); err != nil {
			return nil, err
		}
		if len(dense) != width {
			return nil, fmt.Errorf("%d values, want the view's feature width %d", len(dense), width)
		}
		for j, v := range dense {
			f, err := check(v, fmt.Sprintf("value %d", j))
			if err != nil {
				return nil, err
			}
			if f != 0 {
				entries = append(entries, entry{j, f})
			}
		}
	case len(raw) > 0 && raw[0] == '{':
		var sp SparseFeatures
		if err := decodeStrict(raw, &sp); err != nil {
			return nil, err
		}
		if sp.Values != nil && len(sp.Values) != len(sp.Indices) {
			return nil, fmt.Errorf("%d values for %d indices", len(sp.Values), len(sp.Indices))
		}
		for a, j := range sp.Indices {
			if j < 0 || j >= width {
				return nil, fmt.Errorf("indices[%d] = %d: outside the view's feature width [0, %d)", a, j, width)
			}
			f := float32(1)
			if sp.Values != nil {
				var err error
				if f, err = check(sp.Values[a], fmt.Sprintf("values[%d]", a)); err != nil {
					return nil, err
				}
			}
			entries = append(entries, entry{j, f})
		}
		slices.SortStableFunc(entries, func(a, b entry) int { return a.j - b.j })
		for a := 1; a < len(entries); a++ {
			if entries[a].j == entries[a-1].j {
				return nil, fmt.Errorf("index %d appears twice", entries[a].j)
			}
		}
		entries = slices.DeleteFunc(entries, func(e entry) bool { return e.v == 0 })
	default:
		return nil, errors.New("want an array of feature values or an object {\"indices\": [...], \"values\": [...]}")
	}
	row := &sparse.CSR{Rows: 1, Cols: width, Ptr: []int{0, len(entries)},
		Ind: make([]int32, len(entries)), Val: make([]float32, len(entries))}
	for a, e := range entries {
		row.Ind[a], row.Val[a] = int32(e.j), e.v
	}
	return row, nil
}

// decodeStrict decodes exactly one JSON value into v, rejecting unknown
// fields, trailing data and a key given twice in one object (which
// encoding/json takes, the last winning): where v's objects are structs,
// keys that differ in case only, which fill one field; in the maps by
// view name ("features", "edges", "neighbors" of an EmbedRequest), equal
// keys.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty; want a JSON object")
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	if d, ok := jsonkeys.Find(data, isStructObject); ok {
		return errors.New(d.String())
	}
	return nil
}

// isStructObject reports whether the object at object (jsonkeys'
// Duplicate.Object) of a request body is a struct's, whose keys
// encoding/json matches ignoring case, rather than a map by view name.
func isStructObject(object string) bool {
	switch object {
	case "features", "edges", "neighbors":
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	_ = enc.Encode(v) // the client went away: nothing to do
}

// ErrorResponse is the body of every error answer.
type ErrorResponse struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, ErrorResponse{Error: fmt.Sprintf(format, args...)})
}
