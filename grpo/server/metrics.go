package server

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/atma-dev/atma/grpo/reward"
)

// serverMetrics are the reward server's Prometheus metrics, kept in a registry of the
// server's own so that several servers (and tests) in one process do not share or
// collide on series. Their methods are safe for concurrent use.
type serverMetrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec // endpoint, code
	completions *prometheus.CounterVec // endpoint
	flags       *prometheus.CounterVec // flag
	// components and total are gauges, not counters: the echo and preservation terms,
	// and so the total, can be negative, and a counter only goes up.
	components *prometheus.GaugeVec // component
	total      prometheus.Gauge
	scored     prometheus.Counter
	inflight   prometheus.Gauge
	durations  *prometheus.HistogramVec // endpoint
}

var durationBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30}

func newServerMetrics() *serverMetrics {
	counterVec := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	}
	m := &serverMetrics{
		reg:         prometheus.NewRegistry(),
		requests:    counterVec("atma_reward_requests_total", "Reward requests by endpoint and HTTP status.", "endpoint", "code"),
		completions: counterVec("atma_reward_completions_total", "Completions scored, by endpoint.", "endpoint"),
		flags: counterVec("atma_reward_flags_total",
			"Scored completions by flag (empty, too_long, invalid_utf8, no_label, no_verdict, lenient_verdict, prompt_mismatch).", "flag"),
		components: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "atma_reward_component_sum",
			Help: "Sum of each reward component over scored completions (divide by atma_reward_scored_total for the mean).",
		}, []string{"component"}),
		total:    gauge("atma_reward_total_sum", "Sum of the total reward over scored completions."),
		scored:   prometheus.NewCounter(prometheus.CounterOpts{Name: "atma_reward_scored_total", Help: "Completions scored."}),
		inflight: gauge("atma_reward_inflight_requests", "Requests being served."),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "atma_reward_request_duration_seconds",
			Help:    "Time to serve a request.",
			Buckets: durationBuckets,
		}, []string{"endpoint"}),
	}
	m.reg.MustRegister(m.requests, m.completions, m.flags, m.components, m.total, m.scored, m.inflight, m.durations)
	// Every flag and component is exposed from the start, at zero.
	for _, f := range reward.FlagNames() {
		m.flags.WithLabelValues(f)
	}
	for _, n := range reward.ComponentNames() {
		m.components.WithLabelValues(n)
	}
	return m
}

func (m *serverMetrics) begin() { m.inflight.Inc() }

// end records a finished request.
func (m *serverMetrics) end(endpoint string, code int, took time.Duration) {
	m.inflight.Dec()
	m.requests.WithLabelValues(endpoint, strconv.Itoa(code)).Inc()
	m.durations.WithLabelValues(endpoint).Observe(took.Seconds())
}

// scoredAll records the scores of one request.
func (m *serverMetrics) scoredAll(endpoint string, scores []reward.Score) {
	m.completions.WithLabelValues(endpoint).Add(float64(len(scores)))
	names := reward.ComponentNames()
	for _, s := range scores {
		for i, v := range s.Components.Values() {
			m.components.WithLabelValues(names[i]).Add(v)
		}
		m.total.Add(s.Total)
		m.scored.Inc()
		for _, f := range s.Flags.Names() {
			m.flags.WithLabelValues(f).Inc()
		}
	}
}
