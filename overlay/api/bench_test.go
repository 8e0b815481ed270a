package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var benchWords = strings.Fields(`live work city moved paris berlin cat dog coffee tea job teacher engineer
lisbon oslo garden piano violin running swimming sister brother car bike train morning evening`)

// BenchmarkAddMemories measures ingest throughput through the HTTP API (a real server
// on loopback, the SQLite bank, the bag-of-words embedder and the rule auditor), by
// batch size. The bank grows as the benchmark runs, as it would in service.
func BenchmarkAddMemories(b *testing.B) {
	for _, batch := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			e := newEnv(b, nil, nil)
			srv := httptest.NewServer(e.h)
			b.Cleanup(srv.Close)
			n := 0
			body := func() string {
				mems := make([]Memory, batch)
				for i := range mems {
					n++
					mems[i] = Memory{Content: fmt.Sprintf("I %s %s %s, note %d.", benchWords[n%len(benchWords)], benchWords[(n*7)%len(benchWords)], benchWords[(n*13)%len(benchWords)], n)}
				}
				bs, _ := json.Marshal(AddRequest{Memories: mems})
				return string(bs)
			}
			memories := 0
			for b.Loop() {
				r, _ := http.NewRequest("POST", srv.URL+"/v1/users/bench/memories", strings.NewReader(body()))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Authorization", "Bearer "+testToken)
				resp, err := srv.Client().Do(r)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
				memories += batch
			}
			b.ReportMetric(float64(memories)/b.Elapsed().Seconds(), "memories/s")
		})
	}
}

// BenchmarkMCPvsJSON measures an add and a query through the MCP endpoint (the go-sdk
// client over streamable HTTP, one initialised session) and through the JSON API, on one
// loopback server: the cost of the protocol layer, by operation.
func BenchmarkMCPvsJSON(b *testing.B) {
	e := newEnv(b, nil, nil)
	srv := httptest.NewServer(e.h)
	b.Cleanup(srv.Close)
	hc := &http.Client{Transport: bearerTransport{testToken}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(b.Context(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/v1/users/bench/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	n := 0
	text := func() string {
		n++
		return fmt.Sprintf("I %s %s, note %d.", benchWords[n%len(benchWords)], benchWords[(n*7)%len(benchWords)], n)
	}
	post := func(b *testing.B, path, body string) {
		r, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	call := func(b *testing.B, name string, args map[string]any) {
		res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", name, err, res)
		}
	}
	b.Run("add/json", func(b *testing.B) {
		for b.Loop() {
			bs, _ := json.Marshal(AddRequest{Memories: []Memory{{Content: text()}}})
			post(b, "/v1/users/bench/memories", string(bs))
		}
	})
	b.Run("add/mcp", func(b *testing.B) {
		for b.Loop() {
			call(b, "memory_add", map[string]any{"content": text()})
		}
	})
	b.Run("query/json", func(b *testing.B) {
		for b.Loop() {
			post(b, "/v1/users/bench/query", `{"query":"where do I live now?"}`)
		}
	})
	b.Run("query/mcp", func(b *testing.B) {
		for b.Loop() {
			call(b, "memory_query", map[string]any{"query": "where do I live now?"})
		}
	})
}

// bearerTransport adds the bearer token to every request.
type bearerTransport struct{ token string }

func (t bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}
