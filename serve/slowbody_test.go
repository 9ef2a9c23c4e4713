package serve

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSlowBodies: 8 clients sending /v1/embed bodies of a declared
// Content-Length at a byte every 100 ms hold no search slot while their
// bodies arrive (2 slots here), so neighbour queries beside them are all
// answered 200; the slow bodies are answered 408 once BodyTimeout passes.
func TestSlowBodies(t *testing.T) {
	s := newTestServer(t, testModel(50, 4, 21), Options{MaxInFlight: 2, BodyTimeout: time.Second})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()

	const slow = 8
	statuses := make(chan string, slow)
	var wg sync.WaitGroup
	for range slow {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				statuses <- err.Error()
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "POST /v1/embed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
			answered := make(chan string, 1)
			go func() {
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					answered <- err.Error()
					return
				}
				resp.Body.Close()
				answered <- resp.Status
			}()
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case st := <-answered:
					statuses <- st
					return
				case <-tick.C:
					if _, err := c.Write([]byte(" ")); err != nil {
						statuses <- <-answered
						return
					}
				}
			}
		}()
	}
	// Until the slow bodies are refused, neighbour queries keep coming.
	for s.reading.Load() < slow {
		time.Sleep(5 * time.Millisecond)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for i := range 10 {
		resp, err := client.Get(fmt.Sprintf("http://%s/v1/nodes/n%d/neighbors?k=3", addr, i))
		if err != nil {
			t.Fatalf("query %d beside the slow bodies: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("query %d beside the slow bodies: %s, want 200 OK", i, resp.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := s.reading.Load(); n != slow {
		t.Logf("%d slow bodies still being read after the queries, want %d (a slow machine)", n, slow)
	}
	wg.Wait()
	close(statuses)
	for st := range statuses {
		if !strings.HasPrefix(st, "408") {
			t.Errorf("slow body answered %q, want 408 Request Timeout", st)
		}
	}
}
