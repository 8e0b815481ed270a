package api

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atma-dev/atma/overlay"
)

// metrics are the API's Prometheus metrics, written in the text exposition format by
// hand: counters and one histogram whose label values come from fixed sets (route
// names, status codes, record statuses, commit actions, tool names), which need neither
// escaping nor a client library.
type metrics struct {
	mu        sync.Mutex
	requests  map[[2]string]uint64 // route, code
	durations map[string]*histogram
	inFlight  int
	memories  map[string]uint64 // record status after the ingest
	commits   map[string]uint64 // action
	routed    uint64            // pairs the gate sent to the Judge
	audited   uint64            // pairs the Judge gave a verdict on
	fallbacks uint64            // verdicts the rule auditor gave for a failed model
	judgeErrs uint64            // routed pairs that got no verdict
	queries   map[string]uint64 // mode
	toolCalls map[[2]string]uint64
}

var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

func newMetrics() *metrics {
	return &metrics{
		requests: map[[2]string]uint64{}, durations: map[string]*histogram{},
		memories: map[string]uint64{}, commits: map[string]uint64{},
		queries: map[string]uint64{}, toolCalls: map[[2]string]uint64{},
	}
}

func (m *metrics) request(route string, code int, took time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{route, strconv.Itoa(code)}]++
	h := m.durations[route]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(durationBuckets)+1)}
		m.durations[route] = h
	}
	sec := took.Seconds()
	i, _ := slices.BinarySearch(durationBuckets, sec)
	h.counts[i]++
	h.sum += sec
	h.n++
}

func (m *metrics) inflight(d int) {
	m.mu.Lock()
	m.inFlight += d
	m.mu.Unlock()
}

// ingested counts committed memories and what the commit path did with them.
func (m *metrics) ingested(traces []overlay.IngestTrace) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, tr := range traces {
		m.memories[string(tr.Status)]++
		m.routed += uint64(tr.Timings.Routed)
		m.audited += uint64(tr.Timings.Audited)
		for _, c := range tr.Candidates {
			if c.Fallback != "" {
				m.fallbacks++
			}
			if c.Routed && c.Verdict == nil {
				m.judgeErrs++
			}
		}
		for _, c := range tr.Commits {
			m.commits[string(c.Action)]++
		}
	}
}

func (m *metrics) queried(mode string) {
	m.mu.Lock()
	m.queries[mode]++
	m.mu.Unlock()
}

func (m *metrics) toolCall(name, outcome string) {
	if _, ok := lookupTool(name); !ok {
		name = "unknown"
	}
	m.mu.Lock()
	m.toolCalls[[2]string{name, outcome}]++
	m.mu.Unlock()
}

// write writes the metrics in the text exposition format (version 0.0.4).
func (m *metrics) write(w io.Writer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	head := func(name, typ, help string) { p("# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ) }

	head("atma_api_requests_total", "counter", "API requests by route and HTTP status.")
	for _, k := range sortedPairs(m.requests) {
		p("atma_api_requests_total{route=%q,code=%q} %d\n", k[0], k[1], m.requests[k])
	}
	head("atma_api_request_duration_seconds", "histogram", "Time to serve an API request, by route.")
	for _, route := range sortedKeys(m.durations) {
		h := m.durations[route]
		cum := uint64(0)
		for i, b := range durationBuckets {
			cum += h.counts[i]
			p("atma_api_request_duration_seconds_bucket{route=%q,le=%q} %d\n", route, formatFloat(b), cum)
		}
		p("atma_api_request_duration_seconds_bucket{route=%q,le=\"+Inf\"} %d\n", route, h.n)
		p("atma_api_request_duration_seconds_sum{route=%q} %s\n", route, formatFloat(h.sum))
		p("atma_api_request_duration_seconds_count{route=%q} %d\n", route, h.n)
	}
	head("atma_api_inflight_requests", "gauge", "API requests being served.")
	p("atma_api_inflight_requests %d\n", m.inFlight)
	head("atma_api_memories_ingested_total", "counter", "Memories committed, by the status they got.")
	for _, s := range sortedKeys(m.memories) {
		p("atma_api_memories_ingested_total{status=%q} %d\n", s, m.memories[s])
	}
	head("atma_api_commits_total", "counter", "Changes the commit path made, by action.")
	for _, a := range sortedKeys(m.commits) {
		p("atma_api_commits_total{action=%q} %d\n", a, m.commits[a])
	}
	head("atma_api_judge_routed_total", "counter", "Candidate pairs the Sentry gate routed to the Judge.")
	p("atma_api_judge_routed_total %d\n", m.routed)
	head("atma_api_judge_audited_total", "counter", "Routed pairs the Judge gave a verdict on.")
	p("atma_api_judge_audited_total %d\n", m.audited)
	head("atma_api_judge_fallbacks_total", "counter", "Verdicts the rule auditor gave because the Judge model failed.")
	p("atma_api_judge_fallbacks_total %d\n", m.fallbacks)
	head("atma_api_judge_errors_total", "counter", "Routed pairs that got no verdict at all.")
	p("atma_api_judge_errors_total %d\n", m.judgeErrs)
	head("atma_api_queries_total", "counter", "Queries, by mode (packet, answer, semantic_search).")
	for _, q := range sortedKeys(m.queries) {
		p("atma_api_queries_total{mode=%q} %d\n", q, m.queries[q])
	}
	head("atma_api_tool_calls_total", "counter", "Agent tool calls, by tool and outcome (ok, error: the model's mistake, failed: a server error).")
	for _, k := range sortedPairs(m.toolCalls) {
		p("atma_api_tool_calls_total{tool=%q,outcome=%q} %d\n", k[0], k[1], m.toolCalls[k])
	}
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sortedPairs(m map[[2]string]uint64) [][2]string {
	out := make([][2]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	return out
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
