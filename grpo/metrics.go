package grpo

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// serverMetrics are the reward server's Prometheus metrics, written in the text
// exposition format by hand: a handful of counters, one gauge and one histogram with
// label values from fixed sets (endpoints, status codes, flag and component names), which
// need neither escaping nor registries. github.com/prometheus/client_golang would bring
// six modules into the build for this.
type serverMetrics struct {
	mu          sync.Mutex
	requests    map[[2]string]uint64 // endpoint, code
	completions map[string]uint64    // endpoint
	flags       map[string]uint64    // flag name
	components  [NumComponents]float64
	total       float64
	scored      uint64
	inflight    int
	durations   map[string]*histogram // endpoint
}

var durationBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

func newServerMetrics() *serverMetrics {
	return &serverMetrics{
		requests:    map[[2]string]uint64{},
		completions: map[string]uint64{},
		flags:       map[string]uint64{},
		durations:   map[string]*histogram{},
	}
}

func (m *serverMetrics) begin() {
	m.mu.Lock()
	m.inflight++
	m.mu.Unlock()
}

// end records a finished request.
func (m *serverMetrics) end(endpoint string, code int, took time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inflight--
	m.requests[[2]string{endpoint, strconv.Itoa(code)}]++
	h := m.durations[endpoint]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(durationBuckets)+1)}
		m.durations[endpoint] = h
	}
	s := took.Seconds()
	i, _ := slices.BinarySearch(durationBuckets, s)
	h.counts[i]++
	h.sum += s
	h.n++
}

// scored records the scores of one request.
func (m *serverMetrics) scoredAll(endpoint string, scores []Score) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.completions[endpoint] += uint64(len(scores))
	for _, s := range scores {
		for i, v := range s.Components.Values() {
			m.components[i] += v
		}
		m.total += s.Total
		m.scored++
		for _, f := range s.Flags.Names() {
			m.flags[f]++
		}
	}
}

// write writes the metrics in the text exposition format (version 0.0.4).
func (m *serverMetrics) write(w io.Writer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	p("# HELP atma_reward_requests_total Reward requests by endpoint and HTTP status.\n# TYPE atma_reward_requests_total counter\n")
	keys := make([][2]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if a[0] != b[0] {
			return strings.Compare(a[0], b[0])
		}
		return strings.Compare(a[1], b[1])
	})
	for _, k := range keys {
		p("atma_reward_requests_total{endpoint=%q,code=%q} %d\n", k[0], k[1], m.requests[k])
	}
	p("# HELP atma_reward_completions_total Completions scored, by endpoint.\n# TYPE atma_reward_completions_total counter\n")
	for _, e := range sortedKeys(m.completions) {
		p("atma_reward_completions_total{endpoint=%q} %d\n", e, m.completions[e])
	}
	p("# HELP atma_reward_flags_total Scored completions by flag (empty, too_long, invalid_utf8, no_label, no_verdict, lenient_verdict, prompt_mismatch).\n# TYPE atma_reward_flags_total counter\n")
	for _, f := range flagNames {
		p("atma_reward_flags_total{flag=%q} %d\n", f, m.flags[f])
	}
	p("# HELP atma_reward_component_sum Sum of each reward component over scored completions (divide by atma_reward_scored_total for the mean).\n# TYPE atma_reward_component_sum counter\n")
	for i, n := range ComponentNames() {
		p("atma_reward_component_sum{component=%q} %s\n", n, formatFloat(m.components[i]))
	}
	p("# HELP atma_reward_total_sum Sum of the total reward over scored completions.\n# TYPE atma_reward_total_sum counter\n")
	p("atma_reward_total_sum %s\n", formatFloat(m.total))
	p("# HELP atma_reward_scored_total Completions scored.\n# TYPE atma_reward_scored_total counter\n")
	p("atma_reward_scored_total %d\n", m.scored)
	p("# HELP atma_reward_inflight_requests Requests being served.\n# TYPE atma_reward_inflight_requests gauge\n")
	p("atma_reward_inflight_requests %d\n", m.inflight)
	p("# HELP atma_reward_request_duration_seconds Time to serve a request.\n# TYPE atma_reward_request_duration_seconds histogram\n")
	for _, e := range sortedKeys(m.durations) {
		h := m.durations[e]
		cum := uint64(0)
		for i, b := range durationBuckets {
			cum += h.counts[i]
			p("atma_reward_request_duration_seconds_bucket{endpoint=%q,le=%q} %d\n", e, formatFloat(b), cum)
		}
		p("atma_reward_request_duration_seconds_bucket{endpoint=%q,le=\"+Inf\"} %d\n", e, h.n)
		p("atma_reward_request_duration_seconds_sum{endpoint=%q} %s\n", e, formatFloat(h.sum))
		p("atma_reward_request_duration_seconds_count{endpoint=%q} %d\n", e, h.n)
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

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
