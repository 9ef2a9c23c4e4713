package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dpmne/dpmne"
)

// TestLoadLimits is the load test of the server's limits, on a model of
// 8,000 nodes served capped at 16 connections and 4 searches in flight:
//
//  1. 200 idle connections (dialled, nothing sent): 16 are kept, 184
//     refused (answered 503, or closed unanswered past the 64 being
//     answered). The goroutines grow by at most 16 + 64 + 4 (one per kept
//     connection, one per connection being refused, at most 64 of
//     those, and slack), not by 200, and HeapInuse by under 1 MiB (the
//     16 kept connections' buffers, some 4 KiB each way; 200 would take
//     about 2 MiB).
//  2. While those 16 hold the cap, 32 requests, 8 at a time, on new
//     connections: each is answered 503 with Retry-After.
//  3. The idle connections closed, 24 clients send 8 searches each over
//     keep-alive connections (fewer than 64 being refused at once, so
//     none closed unanswered): every one is answered 200 or 503 (the
//     connection cap or the search cap), and at least one 200.
//
// Afterwards the goroutines are back to their count before, within 4,
// and HeapInuse within 1 MiB. The counts are logged (go test -v).
func TestLoadLimits(t *testing.T) {
	const (
		maxConns, maxInFlight = 16, 4
		idle                  = 200
		clients, perClient    = 24, 8
		heapBound             = 1 << 20
	)
	m := testModel(8000, 32, 12)
	s := newTestServer(t, m, Options{MaxConns: maxConns, MaxInFlight: maxInFlight})
	var mix []loadRequest
	for v := range 4 {
		for _, r := range loadMix(m, v) {
			if r.status == http.StatusOK {
				mix = append(mix, r)
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()

	// metric returns the sum of the samples of /metrics named name, with
	// any labels (or with those name gives).
	metric := func(name string) float64 {
		_, body, _ := do(s, "GET", "/metrics", "")
		var sum float64
		found := false
		for line := range strings.Lines(string(body)) {
			if rest, ok := strings.CutPrefix(line, name); ok && (rest[0] == ' ' || rest[0] == '{') {
				f := strings.Fields(rest)
				v, _ := strconv.ParseFloat(f[len(f)-1], 64)
				sum, found = sum+v, true
			}
		}
		if !found {
			t.Fatalf("/metrics lacks %s", name)
		}
		return sum
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("gave up waiting for %s", what)
			}
		}
	}
	settle := func() (goroutines int, heap uint64) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return runtime.NumGoroutine(), ms.HeapInuse
	}
	newClient := func(conns int) *http.Client {
		return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	}
	type answer struct {
		code   int
		header http.Header
		body   []byte
		err    error
	}
	send := func(c *http.Client, r loadRequest) answer {
		var body io.Reader
		if r.body != "" {
			body = strings.NewReader(r.body)
		}
		req, _ := http.NewRequest(r.method, base+r.path, body)
		resp, err := c.Do(req)
		if err != nil {
			return answer{err: err}
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		return answer{resp.StatusCode, resp.Header, b, err}
	}

	// Warm up (the metrics of every endpoint, the server's goroutines),
	// then take the baseline with no connection open.
	warm := newClient(1)
	for _, r := range mix[:20] {
		if a := send(warm, r); a.err != nil || a.code != 200 {
			t.Fatalf("warm-up %s: %d %v %s", r.path, a.code, a.err, a.body)
		}
	}
	warm.CloseIdleConnections()
	waitFor("the warm-up connection to close", func() bool { return metric("dpmne_http_connections_open") == 0 })
	g0, h0 := settle()

	// 1. Idle connections.
	var idleConns []net.Conn
	for range idle {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		idleConns = append(idleConns, c)
	}
	waitFor("the idle connections to be accepted", func() bool {
		return metric("dpmne_http_connections_open")+metric("dpmne_http_connections_refused_total") == idle
	})
	if open := metric("dpmne_http_connections_open"); open != maxConns {
		t.Errorf("%v connections open, want the cap %d", open, maxConns)
	}
	g1, h1 := settle()
	t.Logf("%d idle connections: %v refused with 503, %v closed unanswered; goroutines %d → %d, HeapInuse %d → %d KiB",
		idle, metric(`dpmne_http_connections_refused_total{answer="503"}`), metric(`dpmne_http_connections_refused_total{answer="none"}`),
		g0, g1, h0>>10, h1>>10)
	if g1-g0 > maxConns+maxRefusing+4 {
		t.Errorf("%d idle connections took %d goroutines, want at most %d", idle, g1-g0, maxConns+maxRefusing+4)
	}
	if h1 > h0 && h1-h0 > heapBound {
		t.Errorf("%d idle connections took %d KiB of heap, want under %d", idle, (h1-h0)>>10, heapBound>>10)
	}
	// The connections being refused are done within refuseWait.
	waitFor("the refusals to end", func() bool { return runtime.NumGoroutine() <= g0+maxConns+4 })

	// 2. Requests while the idle connections hold the cap.
	refusedClient := newClient(8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for j := range 4 {
				r := mix[(4*g+j)%len(mix)]
				a := send(refusedClient, r)
				if a.err != nil {
					t.Errorf("%s %s at the connection cap: %v", r.method, r.path, a.err)
					continue
				}
				checkBusy(t, r.path+" at the connection cap", a.code, a.header, a.body, "server busy: 16 connections open")
			}
		})
	}
	wg.Wait()
	for _, c := range idleConns {
		c.Close()
	}
	waitFor("the idle connections to close", func() bool {
		refusedClient.CloseIdleConnections()
		return metric("dpmne_http_connections_open") == 0
	})

	// 3. Requests from more clients than the cap.
	client := newClient(clients)
	var ok, connBusy, searchBusy atomic.Int64
	for g := range clients {
		wg.Go(func() {
			for j := range perClient {
				r := mix[(g*perClient+j)%len(mix)]
				a := send(client, r)
				switch {
				case a.err != nil:
					t.Errorf("%s %s: %v", r.method, r.path, a.err)
				case a.code == http.StatusOK:
					ok.Add(1)
				case strings.Contains(string(a.body), "connections open"):
					checkBusy(t, r.path, a.code, a.header, a.body, "connections open")
					connBusy.Add(1)
				default:
					checkBusy(t, r.path, a.code, a.header, a.body, "searches in flight")
					searchBusy.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d clients × %d searches: %d answered 200, %d refused 503 at the connection cap, %d at the search cap",
		clients, perClient, ok.Load(), connBusy.Load(), searchBusy.Load())
	if ok.Load() == 0 {
		t.Error("no search answered 200")
	}
	waitFor("the clients' connections to close", func() bool {
		// A connection dialled for a request that another one took may
		// join the idle pool after the requests.
		client.CloseIdleConnections()
		return metric("dpmne_http_connections_open") == 0
	})
	waitFor("the goroutines to end", func() bool { return runtime.NumGoroutine() <= g0+4 })
	g2, h2 := settle()
	t.Logf("afterwards: goroutines %d, HeapInuse %d KiB", g2, h2>>10)
	if h2 > h0 && h2-h0 > heapBound {
		t.Errorf("the heap grew by %d KiB over the test, want under %d", (h2-h0)>>10, heapBound>>10)
	}
}

// loadClients is the number of concurrent client goroutines of
// BenchmarkLoad, each with its own keep-alive connection.
const loadClients = 8

// loadRequest is one request of the load mix and the status it must get.
type loadRequest struct {
	method, path, body string
	status             int
}

// loadMix returns a cycle of 20 requests on the model: 10 cosine and 3
// Hamming neighbour queries (k = 10) of nodes spread over the model, 3
// embeddings of unseen nodes (20 random features in the first view, k =
// 10), and 4 invalid requests (unknown node 404, k = 0 400, malformed JSON
// 400, wrong feature width 400). Variant v picks the nodes and features.
func loadMix(m *dpmne.Model, v int) []loadRequest {
	n := len(m.IDs)
	rng := rand.New(rand.NewPCG(uint64(v), 99))
	node := func() string { return m.IDs[rng.IntN(n)] }
	view := m.Views[0]
	embed := func() string {
		idx := rng.Perm(view.In)[:min(20, view.In)]
		slices.Sort(idx)
		var b strings.Builder
		fmt.Fprintf(&b, `{"features": {%q: {"indices": [`, view.Name)
		for a, j := range idx {
			if a > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(j))
		}
		b.WriteString(`]}}, "k": 10}`)
		return b.String()
	}
	var mix []loadRequest
	for range 10 {
		mix = append(mix, loadRequest{"GET", "/v1/nodes/" + node() + "/neighbors?k=10", "", 200})
	}
	for range 3 {
		mix = append(mix, loadRequest{"GET", "/v1/nodes/" + node() + "/neighbors?k=10&metric=hamming", "", 200})
	}
	for range 3 {
		mix = append(mix, loadRequest{"POST", "/v1/embed", embed(), 200})
	}
	mix = append(mix,
		loadRequest{"GET", "/v1/nodes/no-such-node-" + strconv.Itoa(v) + "/neighbors", "", 404},
		loadRequest{"GET", "/v1/nodes/" + node() + "/neighbors?k=0", "", 400},
		loadRequest{"POST", "/v1/embed", `{"features": {`, 400},
		loadRequest{"POST", "/v1/embed", fmt.Sprintf(`{"features": {%q: [1, 2, 3]}}`, view.Name), 400},
	)
	rng.Shuffle(len(mix), func(a, b int) { mix[a], mix[b] = mix[b], mix[a] })
	return mix
}

// peakRSS returns the process's peak resident set size (VmHWM) in bytes,
// or 0 where /proc/self/status is not available.
func peakRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// BenchmarkLoad is the server's load test: it starts ListenAndServe on
// 127.0.0.1:0 in this process and sends exactly b.N requests (run it with
// -benchtime Nx) of the mix of loadMix, from loadClients goroutines over
// keep-alive connections, checking every status. It reports throughput
// (req/s), client-side latency percentiles (p50-µs, p99-µs, max-µs), the
// process's peak RSS (VmHWM, client and server together), the live heap
// after the run and the bytes allocated per request. The model is
// $DPMNE_LOADTEST_MODEL (a file saved by dpmne train --model), else a
// random one of 10,000 nodes in 128 dimensions.
//
//	DPMNE_LOADTEST_MODEL=cora.dpmne go test -run '^$' -bench Load -benchtime 20000x ./serve
func BenchmarkLoad(b *testing.B) {
	m := loadTestModel(b)
	// Each client's request is served (on one CPU the default cap, 4,
	// would refuse some).
	s, err := New(m, Options{MaxInFlight: loadClients})
	if err != nil {
		b.Fatal(err)
	}
	var mix []loadRequest
	for v := range 50 {
		mix = append(mix, loadMix(m, v)...)
	}

	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() { served <- s.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	base := "http://" + (<-addrc).String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadClients, MaxConnsPerHost: loadClients}}

	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failures atomic.Int64
	var firstErr sync.Once
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range loadClients {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				r := mix[i%len(mix)]
				var body io.Reader
				if r.body != "" {
					body = strings.NewReader(r.body)
				}
				req, _ := http.NewRequest(r.method, base+r.path, body)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				lat[i] = time.Since(t0)
				if err != nil || resp.StatusCode != r.status {
					failures.Add(1)
					firstErr.Do(func() {
						status := 0
						if resp != nil {
							status = resp.StatusCode
						}
						b.Errorf("%s %s: status %d, error %v; want %d", r.method, r.path, status, err, r.status)
					})
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	cancel()
	if err := <-served; err != nil {
		b.Errorf("server: %v", err)
	}
	client.CloseIdleConnections()
	if f := failures.Load(); f > 0 {
		b.Errorf("%d of %d requests got the wrong status", f, b.N)
	}

	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds())
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds()), "max-µs")
	b.ReportMetric(peakRSS()/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(after.HeapAlloc)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N), "B/req")
}

// BenchmarkEndpoints times each kind of request of the load mix alone,
// serially and without the network (httptest.ResponseRecorder), on the
// model of BenchmarkLoad: what one request costs the server.
//
//	DPMNE_LOADTEST_MODEL=cora.dpmne go test -run '^$' -bench Endpoints ./serve
func BenchmarkEndpoints(b *testing.B) {
	m := loadTestModel(b)
	s, err := New(m, Options{})
	if err != nil {
		b.Fatal(err)
	}
	mix := loadMix(m, 0)
	kinds := []struct {
		name string
		pick func(r loadRequest) bool
	}{
		{"cosine", func(r loadRequest) bool { return r.status == 200 && strings.HasSuffix(r.path, "k=10") }},
		{"hamming", func(r loadRequest) bool { return strings.HasSuffix(r.path, "metric=hamming") }},
		{"embed", func(r loadRequest) bool { return r.status == 200 && r.method == "POST" }},
		{"invalid", func(r loadRequest) bool { return r.status != 200 }},
	}
	for _, kind := range kinds {
		var reqs []loadRequest
		for _, r := range mix {
			if kind.pick(r) {
				reqs = append(reqs, r)
			}
		}
		b.Run(kind.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				r := reqs[i%len(reqs)]
				if code, body, _ := do(s, r.method, r.path, r.body); code != r.status {
					b.Fatalf("%s %s: %d %s", r.method, r.path, code, body)
				}
			}
		})
	}
}

// loadTestModel returns the model the load benchmarks serve: the file named
// by $DPMNE_LOADTEST_MODEL, else a random one of 10,000 nodes in 128
// dimensions.
func loadTestModel(b *testing.B) *dpmne.Model {
	path := os.Getenv("DPMNE_LOADTEST_MODEL")
	if path == "" {
		return testModel(10000, 128, 1)
	}
	m, err := dpmne.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	return m
}
