package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/codes"
	"github.com/dpmne/dpmne/sparse"
)

// testModel returns a model of n nodes in d dimensions with two views
// without autoencoders ("a" of width 6, "b" of width 5), random Gaussian
// embedding and bases. Node ids are "n0", "n1", …; node 7 copies node 3's
// row, so both metrics have an exact tie.
func testModel(n, d int, seed uint64) *dpmne.Model {
	rng := rand.New(rand.NewPCG(seed, 1))
	y := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			y.Set(i, j, rng.NormFloat64())
		}
	}
	if n > 7 {
		y.SetRow(7, y.RawRowView(3))
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%d", i)
	}
	view := func(name string, in int) dpmne.ViewModel {
		b := mat.NewDense(d, in, nil)
		for p := range d {
			for q := range in {
				b.Set(p, q, rng.NormFloat64())
			}
		}
		return dpmne.ViewModel{Name: name, In: in, B: b}
	}
	cfg := func() dpmne.Config { c := dpmne.DefaultConfig(); c.NoAutoencoder = true; return c }()
	return &dpmne.Model{Config: cfg, IDs: ids, Y: y, Views: []dpmne.ViewModel{view("a", 6), view("b", 5)}}
}

func newTestServer(t *testing.T, m *dpmne.Model, opt Options) *Server {
	t.Helper()
	s, err := New(m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// do sends one request to h and returns the status, the body and the
// Content-Type.
func do(h http.Handler, method, target, body string) (int, []byte, string) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Code, w.Body.Bytes(), w.Header().Get("Content-Type")
}

// bruteNeighbors ranks all rows but q by float64 cosine similarity
// (descending) or by Hamming distance of the sign codes of the centred
// rows (ascending), ties by smaller index.
func bruteNeighbors(m *dpmne.Model, query []float64, exclude, k int, metric string) []Neighbor {
	y := m.Embedding()
	n, d := y.Dims()
	mean := make([]float64, d)
	for i := range n {
		for j := range d {
			mean[j] += y.At(i, j) / float64(n)
		}
	}
	type cand struct {
		i int
		s float64
	}
	var cs []cand
	for i := range n {
		if i == exclude {
			continue
		}
		var s float64
		if metric == "hamming" {
			for j := range d {
				if (query[j]-mean[j] > 0) != (y.At(i, j)-mean[j] > 0) {
					s++
				}
			}
		} else {
			var ab, aa, bb float64
			for j := range d {
				ab += query[j] * y.At(i, j)
				aa += query[j] * query[j]
				bb += y.At(i, j) * y.At(i, j)
			}
			s = -ab / math.Sqrt(aa*bb)
		}
		cs = append(cs, cand{i, s})
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		switch {
		case a.s < b.s:
			return -1
		case a.s > b.s:
			return 1
		}
		return 0
	})
	out := make([]Neighbor, min(k, len(cs)))
	for j := range out {
		out[j] = Neighbor{ID: m.IDs[cs[j].i], Score: cs[j].s}
		if metric != "hamming" {
			out[j].Score = -cs[j].s
		}
	}
	return out
}

// sameNeighbors compares ids exactly and scores to tol (cosine scores are
// float32 dot products of float32-rounded unit rows: ~1e-7 off).
func sameNeighbors(t *testing.T, what string, got, want []Neighbor, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d neighbours, want %d", what, len(got), len(want))
	}
	for j := range got {
		if got[j].ID != want[j].ID || math.Abs(got[j].Score-want[j].Score) > tol {
			t.Errorf("%s: neighbour %d = %+v, want %+v", what, j, got[j], want[j])
		}
	}
}

func TestHealthz(t *testing.T) {
	s := newTestServer(t, testModel(30, 4, 1), Options{})
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		code, body, ctype := do(s, method, "/healthz", "")
		if code != http.StatusOK || ctype != "application/json" {
			t.Fatalf("%s /healthz: %d %q", method, code, ctype)
		}
		if method == http.MethodHead {
			continue
		}
		var h HealthResponse
		if err := json.Unmarshal(body, &h); err != nil {
			t.Fatal(err)
		}
		want := HealthResponse{Status: "ok", Nodes: 30, Dim: 4, Views: []HealthView{{"a", 6}, {"b", 5}}}
		if fmt.Sprint(h) != fmt.Sprint(want) {
			t.Errorf("healthz %+v, want %+v", h, want)
		}
	}
}

// TestNeighbors compares both metrics with a brute-force ranking on every
// node, including the tie of nodes 3 and 7 (identical rows: for node 3,
// node 7 is first with cosine 1 and distance 0, and vice versa).
func TestNeighbors(t *testing.T) {
	m := testModel(40, 6, 2)
	s := newTestServer(t, m, Options{})
	tests := []struct {
		query string
		k     int
		tol   float64
	}{
		{"", 10, 1e-6},
		{"?k=5", 5, 1e-6},
		{"?metric=cosine&k=39", 39, 1e-6},
		{"?metric=cosine&k=1000", 39, 1e-6}, // all 39 other nodes
		{"?metric=hamming", 10, 0},
		{"?metric=hamming&k=3", 3, 0},
	}
	for _, tc := range tests {
		metric := "cosine"
		if strings.Contains(tc.query, "hamming") {
			metric = "hamming"
		}
		for i := range 40 {
			id := fmt.Sprintf("n%d", i)
			code, body, _ := do(s, http.MethodGet, "/v1/nodes/"+id+"/neighbors"+tc.query, "")
			if code != http.StatusOK {
				t.Fatalf("%s%s: %d %s", id, tc.query, code, body)
			}
			var r NeighborsResponse
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatal(err)
			}
			if r.ID != id || r.Metric != metric {
				t.Errorf("%s%s: answer for %q by %q", id, tc.query, r.ID, r.Metric)
			}
			want := bruteNeighbors(m, m.Embedding().RawRowView(i), i, tc.k, metric)
			sameNeighbors(t, id+tc.query, r.Neighbors, want, tc.tol)
			if i == 3 && (r.Neighbors[0].ID != "n7") {
				t.Errorf("n3%s: first neighbour %v, want n7 (identical row)", tc.query, r.Neighbors[0])
			}
		}
	}
}

// TestEmbed posts features dense and sparse and checks the embedding
// against Model.Embed and the neighbours against a brute-force ranking.
func TestEmbed(t *testing.T) {
	m := testModel(40, 6, 3)
	s := newTestServer(t, m, Options{})
	a := []float64{0, 1.5, 0, -2, 0, 0.25}
	tests := []struct {
		name, body string
		xa, xb     []float64 // nil: view absent
		metric     string
		k          int
	}{
		{"dense a", `{"features": {"a": [0, 1.5, 0, -2, 0, 0.25]}}`, a, nil, "cosine", 10},
		{"sparse a", `{"features": {"a": {"indices": [5, 1, 3], "values": [0.25, 1.5, -2]}}, "k": 4}`, a, nil, "cosine", 4},
		{"sparse b, default values", `{"features": {"b": {"indices": [0, 4]}}, "metric": "hamming", "k": 7}`, nil, []float64{1, 0, 0, 0, 1}, "hamming", 7},
		{"both views", `{"features": {"b": [0, 0, 3, 0, 0], "a": {"indices": [2], "values": [1]}}, "metric": "cosine", "k": 39}`,
			[]float64{0, 0, 1, 0, 0, 0}, []float64{0, 0, 3, 0, 0}, "cosine", 39},
	}
	for _, tc := range tests {
		code, body, _ := do(s, http.MethodPost, "/v1/embed", tc.body)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.name, code, body)
		}
		var r EmbedResponse
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		x := make([]*sparse.CSR, 2)
		var views []string
		for v, dense := range [][]float64{tc.xa, tc.xb} {
			if dense == nil {
				continue
			}
			b := sparse.NewBuilder(1, len(dense))
			for j, val := range dense {
				if val != 0 {
					b.Add(0, j, float32(val))
				}
			}
			x[v], _ = b.Build(sparse.MergeFirst)
			views = append(views, m.Views[v].Name)
		}
		want, err := m.Embed(x, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Embedding, want.RawRowView(0)) {
			t.Errorf("%s: embedding %v, want %v", tc.name, r.Embedding, want.RawRowView(0))
		}
		if !slices.Equal(r.Views, views) || r.Metric != tc.metric || r.K != tc.k {
			t.Errorf("%s: views %v metric %q k %d, want %v %q %d", tc.name, r.Views, r.Metric, r.K, views, tc.metric, tc.k)
		}
		tol := 1e-6
		if tc.metric == "hamming" {
			tol = 0
		}
		sameNeighbors(t, tc.name, r.Neighbors, bruteNeighbors(m, r.Embedding, -1, tc.k, tc.metric), tol)
	}
}

// TestErrors sends every kind of bad request: each gets its status and a
// JSON {"error": …} naming the problem.
func TestErrors(t *testing.T) {
	s := newTestServer(t, testModel(20, 4, 4), Options{MaxK: 50, MaxBodyBytes: 512})
	big := `{"features": {"a": [` + strings.Repeat("0, ", 300) + `0]}}`
	tests := []struct {
		method, target, body string
		status               int
		want                 string
	}{
		{"GET", "/v1/nodes/nosuch/neighbors", "", 404, `node "nosuch" is not in the model`},
		{"GET", "/v1/nodes/n1%20x/neighbors", "", 404, `node "n1 x" is not in the model`},
		{"GET", "/v1/nodes/n1/neighbors?k=0", "", 400, "k = 0: want 1 to 50"},
		{"GET", "/v1/nodes/n1/neighbors?k=-3", "", 400, "k = -3: want 1 to 50"},
		{"GET", "/v1/nodes/n1/neighbors?k=51", "", 400, "k = 51: want 1 to 50"},
		{"GET", "/v1/nodes/n1/neighbors?k=ten", "", 400, `k: "ten" is not an integer`},
		{"GET", "/v1/nodes/n1/neighbors?k=99999999999999999999", "", 400, "is not an integer"},
		{"GET", "/v1/nodes/n1/neighbors?metric=euclid", "", 400, `metric "euclid": want cosine or hamming`},
		{"POST", "/v1/nodes/n1/neighbors", "", 405, "method POST not allowed"},
		{"DELETE", "/healthz", "", 405, "use GET"},
		{"GET", "/v1/embed", "", 405, "use POST"},
		{"GET", "/v2/whatever", "", 404, "no endpoint /v2/whatever"},
		{"GET", "/v1/nodes/n1", "", 404, "no endpoint"},
		{"POST", "/v1/embed", "", 400, "empty"},
		{"POST", "/v1/embed", "{", 400, "request body: unexpected EOF"},
		{"POST", "/v1/embed", "[1, 2]", 400, "cannot unmarshal array"},
		{"POST", "/v1/embed", `{"features": {"a": [0,0,0,0,0,1]}} {}`, 400, "trailing data"},
		{"POST", "/v1/embed", `{"featurez": {}}`, 400, `unknown field "featurez"`},
		{"POST", "/v1/embed", `{"features": {}}`, 400, "at least one view (a of width 6, b of width 5)"},
		{"POST", "/v1/embed", `{}`, 400, "at least one view"},
		{"POST", "/v1/embed", `{"features": {"zz": [1]}}`, 400, `unknown view "zz"`},
		{"POST", "/v1/embed", `{"features": {"a": [1, 2, 3]}}`, 400, "features.a: 3 values, want the view's feature width 6"},
		{"POST", "/v1/embed", `{"features": {"a": [0,0,0,0,0,1e39]}}`, 400, "features.a: value 5: value 1e+39 is outside the float32 range"},
		{"POST", "/v1/embed", `{"features": {"a": [0,0,0,0,0,1e999]}}`, 400, "features.a: json: cannot unmarshal number 1e999"},
		{"POST", "/v1/embed", `{"features": {"a": [0,0,0,0,0,"x"]}}`, 400, "features.a: json: cannot unmarshal string"},
		{"POST", "/v1/embed", `{"features": {"b": {"indices": [5]}}}`, 400, "features.b: indices[0] = 5: outside the view's feature width [0, 5)"},
		{"POST", "/v1/embed", `{"features": {"b": {"indices": [-1]}}}`, 400, "indices[0] = -1"},
		{"POST", "/v1/embed", `{"features": {"b": {"indices": [1, 2, 1]}}}`, 400, "features.b: index 1 appears twice"},
		{"POST", "/v1/embed", `{"features": {"b": {"indices": [1, 2], "values": [1]}}}`, 400, "features.b: 1 values for 2 indices"},
		{"POST", "/v1/embed", `{"features": {"b": {"indices": [1], "weights": [1]}}}`, 400, `features.b: json: unknown field "weights"`},
		{"POST", "/v1/embed", `{"features": {"b": "dense"}}`, 400, "features.b: want an array of feature values or an object"},
		{"POST", "/v1/embed", `{"features": {"b": null}}`, 400, "features.b: want an array"},
		{"POST", "/v1/embed", `{"features": {"b": [0,0,0,0,1]}, "k": 0}`, 400, "k = 0: want 1 to 50"},
		{"POST", "/v1/embed", `{"features": {"b": [0,0,0,0,1]}, "k": 1.5}`, 400, "cannot unmarshal number 1.5"},
		{"POST", "/v1/embed", `{"features": {"b": [0,0,0,0,1]}, "metric": "l2"}`, 400, `metric "l2"`},
		{"POST", "/v1/embed", `{"features": {"b": [0,0,0,0,1]}, "k": 3, "k": 4}`, 400, `request body: key "k" given twice in the top-level object`},
		{"POST", "/v1/embed", `{"features": {"b": [0,0,0,0,1]}, "metric": "cosine", "Metric": "hamming"}`, 400, `request body: keys "metric" and "Metric", which name one field`},
		{"POST", "/v1/embed", `{"features": {"b": [0,0,0,0,1], "b": [1,0,0,0,0]}}`, 400, `request body: key "b" given twice in "features"`},
		{"POST", "/v1/embed", `{"features": {"b": {"indices": [1], "indices": [2]}}}`, 400, `request body: key "indices" given twice in "features.b"`},
		{"POST", "/v1/embed", `{"edges": {"b": ["n1"], "b": ["n2"]}}`, 400, `request body: key "b" given twice in "edges"`},
		{"POST", "/v1/embed", big, 413, "request body exceeds 512 bytes"},
	}
	for _, tc := range tests {
		code, body, ctype := do(s, tc.method, tc.target, tc.body)
		var e ErrorResponse
		if err := json.Unmarshal(body, &e); err != nil || ctype != "application/json" {
			t.Errorf("%s %s %.40q: body %q (%s) is not a JSON error: %v", tc.method, tc.target, tc.body, body, ctype, err)
			continue
		}
		if code != tc.status || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s %s %.40q: %d %q, want %d containing %q", tc.method, tc.target, tc.body, code, e.Error, tc.status, tc.want)
		}
	}
	// 405 answers say what is allowed.
	req := httptest.NewRequest("PUT", "/v1/nodes/n1/neighbors", nil)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if got := w.Header().Get("Allow"); got != "GET, HEAD" {
		t.Errorf("Allow: %q", got)
	}
}

// TestConcurrent: 8 goroutines × 60 requests through a real HTTP server
// (every endpoint, valid and invalid) get byte-identical answers to the
// same requests sent one at a time.
func TestConcurrent(t *testing.T) {
	s := newTestServer(t, testModel(300, 16, 5), Options{})
	ts := httptest.NewServer(s)
	defer ts.Close()
	type request struct{ method, target, body string }
	var reqs []request
	for i := range 60 {
		id := fmt.Sprintf("n%d", (i*37)%300)
		switch i % 6 {
		case 0:
			reqs = append(reqs, request{"GET", "/v1/nodes/" + id + "/neighbors?k=25", ""})
		case 1:
			reqs = append(reqs, request{"GET", "/v1/nodes/" + id + "/neighbors?metric=hamming&k=40", ""})
		case 2:
			reqs = append(reqs, request{"POST", "/v1/embed", fmt.Sprintf(`{"features": {"a": {"indices": [%d, %d]}}, "k": 15}`, i%6, (i+1)%6)})
		case 3:
			reqs = append(reqs, request{"POST", "/v1/embed", fmt.Sprintf(`{"features": {"b": [0, %d, 0, 1, 0]}, "metric": "hamming"}`, i)})
		case 4:
			reqs = append(reqs, request{"GET", "/v1/nodes/missing" + id + "/neighbors", ""})
		case 5:
			reqs = append(reqs, request{"POST", "/v1/embed", `{"features": {"a": [1]}}`})
		}
	}
	reqs = append(reqs, request{"GET", "/healthz", ""})
	send := func(r request) (string, error) {
		req, err := http.NewRequest(r.method, ts.URL+r.target, strings.NewReader(r.body))
		if err != nil {
			return "", err
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, b), err
	}
	serial := make([]string, len(reqs))
	for i, r := range reqs {
		var err error
		if serial[i], err = send(r); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(reqs))
	for g := range 8 {
		wg.Go(func() {
			for j := range reqs {
				i := (j + g*7) % len(reqs) // each goroutine in its own order
				got, err := send(reqs[i])
				if err != nil {
					errs <- err.Error()
					continue
				}
				if got != serial[i] {
					errs <- fmt.Sprintf("request %d %s %s: concurrent answer %.200s, serial %.200s", i, reqs[i].method, reqs[i].target, got, serial[i])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestMetrics: requests are counted by endpoint, status and method, and
// timed by endpoint.
func TestMetrics(t *testing.T) {
	s := newTestServer(t, testModel(20, 4, 6), Options{})
	do(s, "GET", "/v1/nodes/n1/neighbors", "")
	do(s, "GET", "/v1/nodes/n1/neighbors", "")
	do(s, "GET", "/v1/nodes/zz/neighbors", "")
	do(s, "POST", "/v1/embed", "{")
	do(s, "GET", "/nowhere", "")
	code, body, _ := do(s, "GET", "/metrics", "")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	text := string(body)
	for _, want := range []string{
		`dpmne_http_requests_total{code="200",endpoint="neighbors",method="get"} 2`,
		`dpmne_http_requests_total{code="404",endpoint="neighbors",method="get"} 1`,
		`dpmne_http_requests_total{code="400",endpoint="embed",method="post"} 1`,
		`dpmne_http_requests_total{code="404",endpoint="other",method="get"} 1`,
		`dpmne_http_request_duration_seconds_count{endpoint="neighbors"} 3`,
		`dpmne_http_request_duration_seconds_bucket{endpoint="embed",le="5e-05"}`,
		`dpmne_http_requests_in_flight 1`, // the /metrics request itself
		"go_goroutines",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestNewErrors(t *testing.T) {
	dup := testModel(10, 3, 7)
	dup.IDs[4] = "n2"
	nan := testModel(10, 3, 7)
	nan.Y.Set(5, 1, math.NaN())
	short := testModel(10, 3, 7)
	short.IDs = short.IDs[:9]
	tests := []struct {
		name string
		m    *dpmne.Model
		opt  Options
		want string
	}{
		{"nil", nil, Options{}, "no model"},
		{"dup", dup, Options{}, `node id "n2" appears twice (rows 2 and 4)`},
		{"NaN", nan, Options{}, `serve: model: embedding Y [5][1] (node "n5") is NaN`},
		{"ids", short, Options{}, "9 ids for 10 embedding rows"},
		{"MaxK", testModel(10, 3, 7), Options{MaxK: -1}, "MaxK = -1"},
		{"MaxBodyBytes", testModel(10, 3, 7), Options{MaxBodyBytes: -1}, "MaxBodyBytes = -1"},
		{"MaxConns", testModel(10, 3, 7), Options{MaxConns: -1}, "MaxConns = -1"},
		{"MaxInFlight", testModel(10, 3, 7), Options{MaxInFlight: -2}, "MaxInFlight = -2"},
		{"RequestTimeout", testModel(10, 3, 7), Options{RequestTimeout: -time.Second}, "RequestTimeout = -1s"},
	}
	for _, tc := range tests {
		if _, err := New(tc.m, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// Two servers cannot share a registry (the metric names collide).
	s := newTestServer(t, testModel(10, 3, 7), Options{})
	if _, err := New(testModel(10, 3, 7), Options{Registry: s.Registry()}); err == nil || !strings.Contains(err.Error(), "registering metrics") {
		t.Errorf("shared registry: %v", err)
	}
}

// checkBusy checks a 503 answer: Retry-After, and a JSON error containing
// want.
func checkBusy(t *testing.T, what string, code int, header http.Header, body []byte, want string) {
	t.Helper()
	var e ErrorResponse
	if code != http.StatusServiceUnavailable || header.Get("Retry-After") != RetryAfter ||
		header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, want) {
		t.Errorf("%s: %d, Retry-After %q, Content-Type %q, body %s; want 503, %s and a JSON error with %q",
			what, code, header.Get("Retry-After"), header.Get("Content-Type"), body, RetryAfter, want)
	}
}

// TestInFlightLimit: with MaxInFlight searches running (their tokens
// taken here), another search is answered 503 at once, and health and
// metrics are still served; once one finishes, searches are served again.
func TestInFlightLimit(t *testing.T) {
	s := newTestServer(t, testModel(20, 4, 9), Options{MaxInFlight: 3})
	for range 3 {
		s.inFlight <- struct{}{}
	}
	for _, r := range []struct{ method, target, body string }{
		{"GET", "/v1/nodes/n1/neighbors", ""},
		{"POST", "/v1/embed", `{"features": {"a": [1, 0, 0, 0, 0, 0]}}`},
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(r.method, r.target, strings.NewReader(r.body)))
		checkBusy(t, r.target, w.Code, w.Header(), w.Body.Bytes(), "server busy: 3 searches in flight")
	}
	for _, target := range []string{"/healthz", "/metrics"} {
		if code, body, _ := do(s, "GET", target, ""); code != 200 {
			t.Errorf("%s with the searches at their cap: %d %s", target, code, body)
		}
	}
	<-s.inFlight
	if code, body, _ := do(s, "GET", "/v1/nodes/n1/neighbors", ""); code != 200 {
		t.Errorf("under the cap: %d %s", code, body)
	}
	if len(s.inFlight) != 2 {
		t.Errorf("%d tokens taken after the request, want the 2 the test holds", len(s.inFlight))
	}
	_, body, _ := do(s, "GET", "/metrics", "")
	if want := `dpmne_http_requests_total{code="503",endpoint="embed",method="post"} 1`; !strings.Contains(string(body), want) {
		t.Errorf("/metrics lacks %q", want)
	}
}

// TestRequestTimeout: a search whose deadline has passed, by
// RequestTimeout or by the client's own context, stops before its scan
// and is answered 503; a cancelled one too.
func TestRequestTimeout(t *testing.T) {
	s := newTestServer(t, testModel(20, 4, 10), Options{RequestTimeout: time.Nanosecond})
	for _, r := range []struct{ method, target, body string }{
		{"GET", "/v1/nodes/n1/neighbors?metric=hamming", ""},
		{"POST", "/v1/embed", `{"features": {"a": [1, 0, 0, 0, 0, 0]}}`},
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(r.method, r.target, strings.NewReader(r.body)))
		checkBusy(t, r.target, w.Code, w.Header(), w.Body.Bytes(), "request timed out: not answered within 1ns")
	}
	if code, body, _ := do(s, "GET", "/healthz", ""); code != 200 {
		t.Errorf("/healthz: %d %s", code, body)
	}

	s = newTestServer(t, testModel(20, 4, 10), Options{})
	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	for _, tc := range []struct {
		ctx  context.Context
		want string
	}{
		{past, "request timed out"},
		{cancelled, "request cancelled: context canceled"},
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", "/v1/nodes/n2/neighbors", nil).WithContext(tc.ctx))
		checkBusy(t, tc.want, w.Code, w.Header(), w.Body.Bytes(), tc.want)
	}
	if code, body, _ := do(s, "GET", "/v1/nodes/n2/neighbors", ""); code != 200 {
		t.Errorf("within the default deadline: %d %s", code, body)
	}
}

// TestGracefulShutdown: cancelling the context while a request is in
// flight (its body half sent) lets it finish, then ListenAndServe returns
// nil and the port is closed.
func TestGracefulShutdown(t *testing.T) {
	s := newTestServer(t, testModel(20, 4, 11), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() { errc <- s.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	addr := (<-addrc).String()
	body, send := io.Pipe()
	respc := make(chan string, 1)
	go func() {
		resp, err := http.Post("http://"+addr+"/v1/embed", "application/json", body)
		if err != nil {
			respc <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		respc <- fmt.Sprint(resp.StatusCode, " ", string(b))
	}()
	io.WriteString(send, `{"features": {"a": `)
	for s.reading.Load() == 0 { // the handler is reading the body
		time.Sleep(time.Millisecond)
	}
	cancel()
	time.Sleep(50 * time.Millisecond) // Shutdown has begun; the request is still in flight
	select {
	case err := <-errc:
		t.Fatalf("returned before the request finished: %v", err)
	default:
	}
	io.WriteString(send, `[1, 0, 0, 0, 0, 0]}, "k": 1}`)
	send.Close()
	if got := <-respc; !strings.HasPrefix(got, `200 {"embedding":`) {
		t.Errorf("in-flight request got %q", got)
	}
	if err := <-errc; err != nil {
		t.Errorf("ListenAndServe: %v", err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("still accepting connections after shutdown")
	}
	if err := s.ListenAndServe(context.Background(), "256.0.0.1:0", nil); err == nil {
		t.Error("bad address: no error")
	}
}

// The handler never panics on arbitrary bodies (a fuzz target; the seeds
// run with go test).
func FuzzEmbed(f *testing.F) {
	s, err := New(testModel(20, 4, 8), Options{})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"features": {"a": [0,1,0,0,0,0]}}`,
		`{"features": {"b": {"indices": [1, 3], "values": [2, -1]}}, "k": 3, "metric": "hamming"}`,
		`{"features": {"a": {"indices": []}}}`,
		`{"features": {"a": [1e38,1e38,1e38,1e38,1e38,1e38]}}`,
		`null`, `{"features": null}`, `{"k": null}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		code, out, _ := do(s, http.MethodPost, "/v1/embed", body)
		if code != http.StatusOK && !bytes.Contains(out, []byte(`"error"`)) {
			t.Errorf("status %d without a JSON error: %s", code, out)
		}
	})
}

// TestEmbedNeighbors: a view without features of its own (its autoencoder
// reads adjacency rows over the model's nodes) takes the node's neighbours
// by id, as Model.Embed takes that row; an unknown id, neighbours for a
// view with features, or both for one view are errors naming them.
func TestEmbedNeighbors(t *testing.T) {
	m := testModel(40, 6, 3)
	c := mat.NewDense(6, 40, nil)
	for p := range 6 {
		for q := range 40 {
			c.Set(p, q, float64((p+1)*(q%7))-3)
		}
	}
	m.Views = append(m.Views, dpmne.ViewModel{Name: "c", In: 40, B: c})
	s := newTestServer(t, m, Options{})
	code, body, _ := do(s, http.MethodPost, "/v1/embed", `{"edges": {"c": ["n3", "n7"]}, "features": {"a": [0, 1, 0, 0, 0, 0]}}`)
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	var r EmbedResponse
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	row := func(width int, cols ...int) *sparse.CSR {
		b := sparse.NewBuilder(1, width)
		for _, j := range cols {
			b.Add(0, j, 1)
		}
		x, _ := b.Build(sparse.MergeFirst)
		return x
	}
	want, err := m.Embed([]*sparse.CSR{row(6, 1), nil, row(40, 3, 7)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Embedding, want.RawRowView(0)) || !slices.Equal(r.Views, []string{"a", "c"}) {
		t.Errorf("embedding %v views %v, want %v [a c]", r.Embedding, r.Views, want.RawRowView(0))
	}
	// "neighbors", the former name of "edges", reads the same.
	if code, old, _ := do(s, http.MethodPost, "/v1/embed", `{"neighbors": {"c": ["n3", "n7"]}, "features": {"a": [0, 1, 0, 0, 0, 0]}}`); code != http.StatusOK || !bytes.Equal(old, body) {
		t.Errorf("\"neighbors\": %d %s, want %s", code, old, body)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"edges": {"c": ["n3", "zz"]}}`, `edges.c: unknown node \"zz\"`},
		{`{"edges": {"a": ["n3"]}}`, "edges.a: the view's autoencoder reads 6 features"},
		{`{"edges": {"c": ["n3"]}, "features": {"c": {"indices": [1]}}}`, `view \"c\": give its features or its edges, not both`},
		{`{"edges": {"d": ["n3"]}}`, `edges: unknown view \"d\"`},
		{`{"neighbors": {"c": ["n3", "zz"]}}`, `neighbors.c: unknown node \"zz\"`},
		{`{"neighbors": {"c": ["n3"]}, "edges": {"c": ["n3"]}}`, `give \"edges\" (\"neighbors\" is its former name), not both`},
	} {
		code, body, _ := do(s, http.MethodPost, "/v1/embed", tc.body)
		if code != http.StatusBadRequest || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %d %s, want 400 with %q", tc.body, code, body, tc.want)
		}
	}
}

// TestServedCodes: with Options.Codes, Hamming neighbours scan those codes,
// and an unseen node is encoded by the rotation as ITQ encoded the model's
// rows: its embedding is a model node's row, so its code is that node's.
func TestServedCodes(t *testing.T) {
	m := testModel(50, 8, 4)
	e := m.Embedding().RawMatrix().Data
	r, err := codes.ITQ(e, 50, 8, 20, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, m, Options{Codes: r.Codes, Rotation: &Rotation{Mean: r.Mean, R: r.R}})
	for i := range 50 {
		if got := s.encode(e[i*8 : (i+1)*8]); !slices.Equal(got.Row(0), r.Codes.Row(i)) {
			t.Fatalf("row %d encodes to %v, ITQ gave %v", i, got.Row(0), r.Codes.Row(i))
		}
	}
	if _, err := New(m, Options{Codes: codes.NewCodes(49, 8)}); err == nil || !strings.Contains(err.Error(), "49 codes for the model's 50 nodes") {
		t.Errorf("49 codes: err = %v", err)
	}
	if _, err := New(m, Options{Codes: r.Codes, Rotation: &Rotation{Mean: r.Mean, R: r.R[:10]}}); err == nil || !strings.Contains(err.Error(), "rotation") {
		t.Errorf("short rotation: err = %v", err)
	}
}

// TestZeroRow: a node whose embedding is all zero has no direction: its
// cosine neighbours are refused with 400 naming it (Hamming still ranks
// its sign code), and it is never another's cosine neighbour; features
// that embed at zero are refused the same way.
func TestZeroRow(t *testing.T) {
	m := testModel(12, 4, 9)
	m.Config.Uncentred = true // the embedding is Y itself
	for j := range 4 {
		m.Y.Set(5, j, 0)
	}
	s := newTestServer(t, m, Options{})
	code, body, _ := do(s, http.MethodGet, "/v1/nodes/n5/neighbors", "")
	if code != http.StatusBadRequest || !strings.Contains(string(body), `node \"n5\": its embedding is all zero: it has no direction`) {
		t.Errorf("n5 cosine: %d %s", code, body)
	}
	if code, body, _ := do(s, http.MethodGet, "/v1/nodes/n5/neighbors?metric=hamming&k=11", ""); code != http.StatusOK || strings.Count(string(body), `"id"`) != 12 {
		t.Errorf("n5 hamming: %d %s", code, body)
	}
	code, body, _ = do(s, http.MethodGet, "/v1/nodes/n0/neighbors?k=100", "")
	var r NeighborsResponse
	if err := json.Unmarshal(body, &r); code != http.StatusOK || err != nil {
		t.Fatalf("n0: %d %s", code, body)
	}
	if len(r.Neighbors) != 10 {
		t.Errorf("n0: %d neighbours, want the 10 others with a direction", len(r.Neighbors))
	}
	for _, nb := range r.Neighbors {
		if nb.ID == "n5" {
			t.Errorf("n0: the zero row n5 listed: %v", r.Neighbors)
		}
	}
	code, body, _ = do(s, http.MethodPost, "/v1/embed", `{"features": {"a": [0, 0, 0, 0, 0, 0]}}`)
	if code != http.StatusBadRequest || !strings.Contains(string(body), "features: the embedding is all zero") {
		t.Errorf("zero features: %d %s", code, body)
	}
}
