package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
