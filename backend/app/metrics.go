package app

import (
	"context"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service/retention"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// metrics is one app's Prometheus registry (per app, so tests can run several apps).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec

	mu    sync.Mutex // serializes cache updates
	cache atomic.Pointer[map[seriesKey]series]
}

func newMetrics(a *App) *metrics {
	svc, lnk := a.Service, a.Links
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_http_requests_total", Help: "HTTP requests by surface, method and status code.",
		}, []string{"surface", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "switchboard_http_request_duration_seconds", Help: "HTTP request latency by surface.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"surface"}),
	}
	m.cache.Store(&map[seriesKey]series{})
	for _, table := range retention.Tables {
		m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "switchboard_retention_pruned_rows_total", Help: "Rows deleted by the retention job on this replica, by table.",
			ConstLabels: prometheus.Labels{"table": table},
		}, func() float64 { return float64(a.Retention.Pruned()[table]) }))
	}
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.duration,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "switchboard_live_subscribers", Help: "Live event subscriptions on this replica.",
		}, func() float64 { return float64(svc.Bus().Subscribers()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "switchboard_link_clicks_written_total", Help: "Short-link clicks written to the database by this replica.",
		}, func() float64 { return float64(lnk.WrittenClicks()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "switchboard_link_clicks_dropped_total", Help: "Short-link clicks dropped because the click buffer was full (the database far behind).",
		}, func() float64 { return float64(lnk.DroppedClicks()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "switchboard_bus_dropped_subscribers_total", Help: "Live event subscriptions ended on this replica because the subscriber fell behind (its buffer was full).",
		}, func() float64 { return float64(svc.Bus().Dropped()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "switchboard_listener_reconnects_total", Help: "Times this replica's database notification listener (LISTEN, PostgreSQL) lost its connection and reconnected.",
		}, func() float64 { return float64(a.Store.ListenerReconnects()) }),
		newPoolCollector(a.Store),
		newJobsCollector(a.Store, a.Jobs, svc.Clock(), a.log))
	return m
}

// surface groups paths so labels stay few (ids never become labels).
func surface(path string) string {
	switch {
	case strings.HasPrefix(path, "/api/"):
		return "api"
	case path == "/graphql":
		return "graphql"
	case strings.HasPrefix(path, "/user"):
		return "console"
	case strings.HasPrefix(path, "/l/"):
		return "redirect"
	case strings.HasPrefix(path, "/hooks/"):
		return "hooks"
	case strings.HasPrefix(path, "/channels/"):
		return "channels"
	case strings.HasPrefix(path, "/media/"):
		return "media"
	}
	return "other"
}

func (m *metrics) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Behind httpx.AccessLog the writer already records the status and the start: reuse it.
		rec, ok := w.(*httpx.StatusRecorder)
		if !ok || rec.Start.IsZero() {
			rec = &httpx.StatusRecorder{ResponseWriter: w, Start: time.Now()}
		}
		start := rec.Start
		next.ServeHTTP(rec, r)
		status := rec.Status
		if status == 0 {
			status = http.StatusOK
		}
		rec.End = time.Now() // the access log around reuses this reading
		c := m.series(surface(r.URL.Path), r.Method, status)
		c.requests.Inc()
		c.duration.Observe(rec.End.Sub(start).Seconds())
	})
}

// MetricsHandler serves Prometheus's text format at GET /metrics (404 elsewhere). It is meant
// for a listener of its own (SWITCHBOARD_METRICS_ADDR), reachable by the scraper but not by
// the public: Handler never serves /metrics, because the figures (and the Go version in
// go_info) are no business of API clients.
func (a *App) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(a.metrics.registry, promhttp.HandlerOpts{}))
	return mux
}

// seriesKey and series cache the label look-ups of each (surface, method, status): a map
// read instead of hashing label values on every request.
type seriesKey struct {
	surface, method string
	status          int
}

type series struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func (m *metrics) series(surface, method string, status int) series {
	k := seriesKey{surface, method, status}
	if c, ok := (*m.cache.Load())[k]; ok { // no lock, no shared write on the hot path
		return c
	}
	c := series{requests: m.requests.WithLabelValues(surface, method, strconv.Itoa(status)),
		duration: m.duration.WithLabelValues(surface)}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.cache.Load()
	if len(old) >= 1000 { // methods are client-chosen: bound the cache
		return c
	}
	next := make(map[seriesKey]series, len(old)+1) // copy on write: readers never see a change
	for key, v := range old {
		next[key] = v
	}
	next[k] = c
	m.cache.Store(&next)
	return c
}

// poolCollector reports the database connection pool, from one reading per scrape.
type poolCollector struct {
	st                     *store.Store
	inUse, idle, maxOpen   *prometheus.Desc
	waitCount, waitSeconds *prometheus.Desc
	acquireTimeouts        *prometheus.Desc
}

func newPoolCollector(st *store.Store) *poolCollector {
	return &poolCollector{st: st,
		inUse:       prometheus.NewDesc("switchboard_db_connections_in_use", "Database connections in use (executing a statement or held by a transaction).", nil, nil),
		idle:        prometheus.NewDesc("switchboard_db_connections_idle", "Database connections open and idle in the pool.", nil, nil),
		maxOpen:     prometheus.NewDesc("switchboard_db_max_open_connections", "The most database connections this replica opens at once.", nil, nil),
		waitCount:   prometheus.NewDesc("switchboard_db_wait_count_total", "Times a caller waited for a database connection because all were in use.", nil, nil),
		waitSeconds: prometheus.NewDesc("switchboard_db_wait_seconds_total", "Total time callers waited for a database connection.", nil, nil),
		acquireTimeouts: prometheus.NewDesc("switchboard_db_acquire_timeouts_total",
			"Statements and transactions refused (503 unavailable) because no database connection was free within SWITCHBOARD_DB_ACQUIRE_TIMEOUT.", nil, nil),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.inUse
	ch <- c.idle
	ch <- c.maxOpen
	ch <- c.waitCount
	ch <- c.waitSeconds
	ch <- c.acquireTimeouts
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.st.PoolStats()
	ch <- prometheus.MustNewConstMetric(c.inUse, prometheus.GaugeValue, float64(s.InUse))
	ch <- prometheus.MustNewConstMetric(c.idle, prometheus.GaugeValue, float64(s.Idle))
	ch <- prometheus.MustNewConstMetric(c.maxOpen, prometheus.GaugeValue, float64(s.MaxOpenConnections))
	ch <- prometheus.MustNewConstMetric(c.waitCount, prometheus.CounterValue, float64(s.WaitCount))
	ch <- prometheus.MustNewConstMetric(c.waitSeconds, prometheus.CounterValue, s.WaitDuration.Seconds())
	ch <- prometheus.MustNewConstMetric(c.acquireTimeouts, prometheus.CounterValue, float64(c.st.AcquireTimeouts()))
}

// jobsCacheFor is how long a reading of the jobs table serves scrapes: several scrapers (or
// one retrying) cost one query.
const jobsCacheFor = time.Second

// jobsQueryTimeout bounds the query (a scrape should answer well within its timeout).
const jobsQueryTimeout = 3 * time.Second

// jobsCollector reports per kind the queue as the database holds it (shared by every
// replica: every replica reports the same figures) and this replica's engine's counters.
type jobsCollector struct {
	st    *store.Store
	eng   *jobs.Engine
	clock domain.Clock
	log   *slog.Logger

	queued, running, oldest     *prometheus.Desc
	attempts, failures, retries *prometheus.Desc

	mu      sync.Mutex // one query at a time; later scrapes wait for it and share it
	readAt  time.Time
	reading map[string]store.JobKindStats
	ok      bool // the last query worked
	failing bool // its failure was logged (once until a success)
}

func newJobsCollector(st *store.Store, eng *jobs.Engine, clock domain.Clock, log *slog.Logger) *jobsCollector {
	kind := []string{"kind"}
	return &jobsCollector{st: st, eng: eng, clock: clock, log: log,
		queued:   prometheus.NewDesc("switchboard_jobs_queued", "Jobs waiting to run, by kind: due now or scheduled later (retries). Read from the database: the same on every replica.", kind, nil),
		running:  prometheus.NewDesc("switchboard_jobs_running", "Jobs held by a worker of any replica, by kind (including those of a dead worker until their lease is taken over). Read from the database.", kind, nil),
		oldest:   prometheus.NewDesc("switchboard_jobs_oldest_queued_age_seconds", "How long the oldest due job of a kind has waited since it became due (0 when none is due). Read from the database.", kind, nil),
		attempts: prometheus.NewDesc("switchboard_job_attempts_total", "Job attempts whose outcome this replica recorded (succeeded, retrying or failed), by kind; attempts handed back at shutdown are not counted.", kind, nil),
		failures: prometheus.NewDesc("switchboard_job_failures_total", "Job attempts that failed for good on this replica (a permanent error, or out of attempts), by kind.", kind, nil),
		retries:  prometheus.NewDesc("switchboard_job_retries_total", "Job attempts that failed on this replica and were scheduled to run again, by kind.", kind, nil),
	}
}

func (c *jobsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.queued, c.running, c.oldest, c.attempts, c.failures, c.retries} {
		ch <- d
	}
}

func (c *jobsCollector) Collect(ch chan<- prometheus.Metric) {
	stats := c.eng.Stats()
	for _, s := range stats {
		ch <- prometheus.MustNewConstMetric(c.attempts, prometheus.CounterValue, float64(s.Attempts), s.Kind)
		ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(s.Failures), s.Kind)
		ch <- prometheus.MustNewConstMetric(c.retries, prometheus.CounterValue, float64(s.Retries), s.Kind)
	}
	reading, ok := c.read()
	if !ok {
		return // no figures rather than stale ones: the series go absent while the database is unreachable
	}
	// Every registered kind has its series (0 when idle), and so has any kind found queued
	// (enqueued by a newer or older version).
	all := map[string]store.JobKindStats{}
	for _, s := range stats {
		all[s.Kind] = store.JobKindStats{}
	}
	maps.Copy(all, reading)
	now := c.clock.Now()
	for _, kind := range slices.Sorted(maps.Keys(all)) {
		s := all[kind]
		age := 0.0
		if s.EarliestRunAt != nil && now.After(*s.EarliestRunAt) {
			age = now.Sub(*s.EarliestRunAt).Seconds()
		}
		ch <- prometheus.MustNewConstMetric(c.queued, prometheus.GaugeValue, float64(s.Queued), kind)
		ch <- prometheus.MustNewConstMetric(c.running, prometheus.GaugeValue, float64(s.Running), kind)
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age, kind)
	}
}

// read returns the per-kind queue, from the database at most once per jobsCacheFor; ok is
// false when that query failed.
func (c *jobsCollector) read() (reading map[string]store.JobKindStats, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.readAt.IsZero() && time.Since(c.readAt) < jobsCacheFor {
		return c.reading, c.ok
	}
	ctx, cancel := context.WithTimeout(context.Background(), jobsQueryTimeout)
	defer cancel()
	reading, err := c.st.JobStats(ctx)
	c.readAt = time.Now()
	c.reading, c.ok = reading, err == nil
	switch {
	case err != nil && !c.failing:
		c.failing = true
		c.log.Warn("metrics: reading the job queue failed; its gauges are left out until it works again", "err", err)
	case err == nil && c.failing:
		c.failing = false
		c.log.Info("metrics: reading the job queue works again")
	}
	return c.reading, c.ok
}
