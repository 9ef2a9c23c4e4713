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
	s, err := New(m, Options{})
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
	go func() { served <- ListenAndServe(ctx, "127.0.0.1:0", s, func(a net.Addr) { addrc <- a }) }()
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
