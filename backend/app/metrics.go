package app

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/links"
)

// metrics is one app's Prometheus registry (per app, so tests can run several apps).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec

	mu    sync.Mutex // serializes cache updates
	cache atomic.Pointer[map[seriesKey]series]
}

func newMetrics(svc *service.Service, lnk *links.Links) *metrics {
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
		}, func() float64 { return float64(lnk.DroppedClicks()) }))
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
