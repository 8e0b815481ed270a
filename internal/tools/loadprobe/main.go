// Package main implements the loadprobe command, which puts load on a running `atma
// overlay serve`: clients that each add a
// memory and ask a question in turn, for a while, each as its own user (or all as one
// with -same-user), and reports what the server held — adds/s, queries/s, p50 and p99 by
// route, answers by status. It is the load probe of the reliability issue; it uses only
// the standard library's HTTP client, so it measures the server, not a tool.
//
//	go run ./internal/tools/loadprobe -url http://127.0.0.1:8088 -token "$ATMA_TOKEN" -clients 16 -duration 20s
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"sync"
	"time"
)

type sample struct {
	route  string
	status int
	took   time.Duration
}

func main() {
	url := flag.String("url", "http://127.0.0.1:8088", "the server's base URL")
	token := flag.String("token", os.Getenv("ATMA_TOKEN"), "bearer token (env ATMA_TOKEN)")
	clients := flag.Int("clients", 16, "concurrent clients")
	duration := flag.Duration("duration", 20*time.Second, "how long to keep the load on")
	sameUser := flag.Bool("same-user", false, "every client writes the same user (contention on one user's lock)")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	hc := &http.Client{Timeout: 2 * time.Minute}
	var mu sync.Mutex
	var samples []sample
	var wg sync.WaitGroup
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("load%02d", c)
			if *sameUser {
				user = "load"
			}
			for i := 0; ctx.Err() == nil; i++ {
				add, _ := json.Marshal(map[string]any{"memories": []map[string]string{{"content": fmt.Sprintf("note %d of client %d: I moved to city number %d last month.", i, c, i%7)}}})
				for _, rq := range []struct{ route, path, body string }{
					{"add", "/v1/users/" + user + "/memories", string(add)},
					{"query", "/v1/users/" + user + "/query", `{"query":"Where do I live now?"}`},
				} {
					s := do(hc, *url+rq.path, *token, rq.body)
					s.route = rq.route
					mu.Lock()
					samples = append(samples, s)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	report(os.Stdout, samples, *clients, *duration)
}

func do(hc *http.Client, url, token, body string) sample {
	req, err := http.NewRequest("POST", url, bytes.NewReader([]byte(body)))
	if err != nil {
		return sample{status: -1}
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	t0 := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return sample{status: 0, took: time.Since(t0)}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return sample{status: resp.StatusCode, took: time.Since(t0)}
}

func report(w io.Writer, samples []sample, clients int, d time.Duration) {
	fmt.Fprintf(w, "%d clients × %v\n", clients, d)
	byRoute := map[string][]time.Duration{}
	statuses := map[string]map[int]int{}
	for _, s := range samples {
		if s.status == http.StatusOK {
			byRoute[s.route] = append(byRoute[s.route], s.took)
		}
		if statuses[s.route] == nil {
			statuses[s.route] = map[int]int{}
		}
		statuses[s.route][s.status]++
	}
	routes := make([]string, 0, len(statuses))
	for r := range statuses {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	for _, r := range routes {
		ts := byRoute[r]
		slices.Sort(ts)
		q := func(p float64) time.Duration {
			if len(ts) == 0 {
				return 0
			}
			return ts[min(len(ts)-1, int(p*float64(len(ts))))]
		}
		codes := make([]int, 0, len(statuses[r]))
		for c := range statuses[r] {
			codes = append(codes, c)
		}
		slices.Sort(codes)
		var by []string
		for _, c := range codes {
			by = append(by, fmt.Sprintf("%d×%d", statuses[r][c], c))
		}
		fmt.Fprintf(w, "%-6s %7.1f/s ok  p50 %6.1f ms  p99 %7.1f ms  answers %v\n", r, float64(len(ts))/d.Seconds(),
			float64(q(0.5).Microseconds())/1000, float64(q(0.99).Microseconds())/1000, by)
	}
}
