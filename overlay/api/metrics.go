package api

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/store/pgdb"
)

// metrics are the API's Prometheus metrics, kept in a registry of the server's own so
// that several API handlers (and tests) in one process do not share or collide on
// series. Their methods are safe for concurrent use.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec   // route, code
	durations *prometheus.HistogramVec // route
	inFlight  prometheus.Gauge
	memories  *prometheus.CounterVec // record status after the ingest
	commits   *prometheus.CounterVec // action
	routed    prometheus.Counter     // pairs the gate sent to the Judge
	audited   prometheus.Counter     // pairs the Judge gave a verdict on
	fallbacks prometheus.Counter     // verdicts the rule auditor gave for a failed model
	judgeErrs prometheus.Counter     // routed pairs that got no verdict
	queries   *prometheus.CounterVec // mode
	toolCalls *prometheus.CounterVec // tool, outcome
}

var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

func newMetrics() *metrics {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	}
	counterVec := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	m := &metrics{
		reg:      prometheus.NewRegistry(),
		requests: counterVec("atma_api_requests_total", "API requests by route and HTTP status.", "route", "code"),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "atma_api_request_duration_seconds",
			Help:    "Time to serve an API request, by route.",
			Buckets: durationBuckets,
		}, []string{"route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "atma_api_inflight_requests",
			Help: "API requests being served.",
		}),
		memories:  counterVec("atma_api_memories_ingested_total", "Memories committed, by the status they got.", "status"),
		commits:   counterVec("atma_api_commits_total", "Changes the commit path made, by action.", "action"),
		routed:    counter("atma_api_judge_routed_total", "Candidate pairs the Sentry gate routed to the Judge."),
		audited:   counter("atma_api_judge_audited_total", "Routed pairs the Judge gave a verdict on."),
		fallbacks: counter("atma_api_judge_fallbacks_total", "Verdicts the rule auditor gave because the Judge model failed."),
		judgeErrs: counter("atma_api_judge_errors_total", "Routed pairs that got no verdict at all."),
		queries:   counterVec("atma_api_queries_total", "Queries, by mode (packet, answer, semantic_search).", "mode"),
		toolCalls: counterVec("atma_api_tool_calls_total",
			"Agent tool calls, by tool and outcome (ok, error: the model's mistake, failed: a server error).", "tool", "outcome"),
	}
	m.reg.MustRegister(m.requests, m.durations, m.inFlight, m.memories, m.commits,
		m.routed, m.audited, m.fallbacks, m.judgeErrs, m.queries, m.toolCalls)
	return m
}

// pool adds the metrics of the bank's connection pool, read from stats at each scrape.
func (m *metrics) pool(stats func() pgdb.PoolStats) { m.reg.MustRegister(poolCollector(stats)) }

// poolCollector reports a pgdb pool: its size, its connections in use and idle, the
// acquires that waited, and those that gave up with every connection in use (they
// answered 503).
type poolCollector func() pgdb.PoolStats

var poolDescs = struct{ max, inUse, idle, waits, waited, exhausted *prometheus.Desc }{
	max:    prometheus.NewDesc("atma_db_pool_max_connections", "Connections the bank's PostgreSQL pool may open.", nil, nil),
	inUse:  prometheus.NewDesc("atma_db_pool_in_use_connections", "Connections of the bank's pool in use.", nil, nil),
	idle:   prometheus.NewDesc("atma_db_pool_idle_connections", "Idle connections of the bank's pool.", nil, nil),
	waits:  prometheus.NewDesc("atma_db_pool_waits_total", "Connection acquires that found no idle connection and waited.", nil, nil),
	waited: prometheus.NewDesc("atma_db_pool_wait_seconds_total", "Time connection acquires waited.", nil, nil),
	exhausted: prometheus.NewDesc("atma_db_pool_exhausted_total",
		"Connection acquires that gave up after the acquire timeout with every connection in use (the request got 503).", nil, nil),
}

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolDescs.max, poolDescs.inUse, poolDescs.idle, poolDescs.waits, poolDescs.waited, poolDescs.exhausted} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c()
	gauge, counter := prometheus.GaugeValue, prometheus.CounterValue
	ch <- prometheus.MustNewConstMetric(poolDescs.max, gauge, float64(s.MaxConns))
	ch <- prometheus.MustNewConstMetric(poolDescs.inUse, gauge, float64(s.InUse))
	ch <- prometheus.MustNewConstMetric(poolDescs.idle, gauge, float64(s.Idle))
	ch <- prometheus.MustNewConstMetric(poolDescs.waits, counter, float64(s.Waits))
	ch <- prometheus.MustNewConstMetric(poolDescs.waited, counter, s.WaitTime.Seconds())
	ch <- prometheus.MustNewConstMetric(poolDescs.exhausted, counter, float64(s.Exhausted))
}

func (m *metrics) request(route string, code int, took time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	m.durations.WithLabelValues(route).Observe(took.Seconds())
}

func (m *metrics) inflight(d int) { m.inFlight.Add(float64(d)) }

// ingested counts committed memories and what the commit path did with them.
func (m *metrics) ingested(traces []overlay.IngestTrace) {
	for _, tr := range traces {
		m.memories.WithLabelValues(string(tr.Status)).Inc()
		m.routed.Add(float64(tr.Timings.Routed))
		m.audited.Add(float64(tr.Timings.Audited))
		for _, c := range tr.Candidates {
			if c.Fallback != "" {
				m.fallbacks.Inc()
			}
			if c.Routed && c.Verdict == nil {
				m.judgeErrs.Inc()
			}
		}
		for _, c := range tr.Commits {
			m.commits.WithLabelValues(string(c.Action)).Inc()
		}
	}
}

func (m *metrics) queried(mode string) { m.queries.WithLabelValues(mode).Inc() }

func (m *metrics) toolCall(name, outcome string) {
	if _, ok := lookupTool(name); !ok {
		name = "unknown" // the label set stays fixed whatever names callers send
	}
	m.toolCalls.WithLabelValues(name, outcome).Inc()
}

// write writes the metrics in the text exposition format (version 0.0.4), the format
// promhttp answers a scraper that asks for none in particular.
func (m *metrics) write(w io.Writer) error {
	families, err := m.reg.Gather()
	if err != nil {
		return fmt.Errorf("gather metrics: %w", err)
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return fmt.Errorf("encode metrics: %w", err)
		}
	}
	return nil
}
