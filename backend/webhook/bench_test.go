package webhook

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Benchmarks of delivery on PostgreSQL, each beside a baseline in the same run. Run them
// (see docs/benchmarks.md) with:
//
//	go test ./webhook -run '^$' -bench 'Throughput|Baseline' -benchtime 20000x
//	go test ./webhook -run '^$' -bench Latency -benchtime 1x
//
// BenchmarkDeliveryLatency runs one steady run of SB_BENCH_DURATION (default 10s) at
// SB_BENCH_RATE events/s (default 500) per iteration; run it with -benchtime 1x.

type benchEnv struct {
	svc   *service.Service
	st    *store.Store
	owner servicetest.Owner
	node  *node
}

// newBenchEnv is a service with a sender on an engine with the production defaults, and
// one endpoint per URL subscribed to api_key.created.
func newBenchEnv(b *testing.B, urls ...string) *benchEnv {
	b.Helper()
	svc, st := servicetest.New(b, store.Postgres, service.Config{TargetPolicy: ssrf.MustPolicy("127.0.0.1")})
	env := &benchEnv{svc: svc, st: st, owner: servicetest.NewOwner(b, svc)}
	engine := jobs.New(st, jobs.Config{Logger: quietLogger()})
	sender := New(st, svc.Webhooks, Config{Policy: ssrf.MustPolicy("127.0.0.1"), Logger: quietLogger(), Workers: DefaultWorkers})
	engine.Register(sender.Kind())
	env.node = &node{engine: engine, sender: sender}
	b.Cleanup(env.node.Close)
	for _, u := range urls {
		if _, _, err := svc.Webhooks.Create(context.Background(), env.owner.Actor, service.CreateWebhookInput{
			URL: u, EventTypes: []string{domain.EventAPIKeyCreated}}); err != nil {
			b.Fatal(err)
		}
	}
	return env
}

func (env *benchEnv) emit(b *testing.B, n int) string {
	var id string
	err := env.st.Tx(context.Background(), func(tx *store.Tx) error {
		e, err := env.svc.Record(context.Background(), tx, env.owner.Workspace.ID, domain.EventAPIKeyCreated, nil, map[string]int{"seq": n})
		id = e.ID
		return err
	})
	if err != nil {
		b.Error(err)
	}
	return id
}

// countingReceiver answers 204 and notes when each webhook-id first arrived.
type countingReceiver struct {
	*httptest.Server
	n    atomic.Int64
	mu   sync.Mutex
	seen map[string]time.Time
	all  chan struct{}
	want int64
}

func newCountingReceiver(want int) *countingReceiver {
	rc := &countingReceiver{seen: map[string]time.Time{}, all: make(chan struct{}), want: int64(want)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		at := time.Now()
		rc.mu.Lock()
		if _, dup := rc.seen[r.Header.Get(HeaderID)]; !dup {
			rc.seen[r.Header.Get(HeaderID)] = at
		}
		rc.mu.Unlock()
		if rc.n.Add(1) == rc.want {
			close(rc.all)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	return rc
}

// BenchmarkDeliveryThroughput: a backlog of b.N deliveries spread over 1 or 10 endpoints
// (each its own local receiver answering 204) is drained with the production defaults.
// Reports deliveries per second.
func BenchmarkDeliveryThroughput(b *testing.B) {
	for _, endpoints := range []int{1, 10} {
		b.Run("endpoints="+strconv.Itoa(endpoints), func(b *testing.B) {
			events := max(1, b.N/endpoints)
			var rcs []*countingReceiver
			var urls []string
			for range endpoints {
				rc := newCountingReceiver(events)
				defer rc.Close()
				rcs = append(rcs, rc)
				urls = append(urls, rc.URL)
			}
			env := newBenchEnv(b, urls...)
			for i := range events {
				env.emit(b, i)
			}
			b.ResetTimer()
			start := time.Now()
			if err := env.node.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			for _, rc := range rcs {
				select {
				case <-rc.all:
				case <-time.After(5 * time.Minute):
					b.Fatalf("only %d of %d deliveries", rc.n.Load(), events)
				}
			}
			b.ReportMetric(float64(events*endpoints)/time.Since(start).Seconds(), "deliveries/s")
		})
	}
}

// BenchmarkBaselinePost is the same number of POSTs of an event-sized body by a bare
// net/http client with 16 concurrent senders, to the same kind of receiver.
func BenchmarkBaselinePost(b *testing.B) {
	rc := newCountingReceiver(b.N)
	defer rc.Close()
	body := bytes.Repeat([]byte("x"), 400)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	var next atomic.Int64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				resp, err := client.Post(rc.URL, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
}

// BenchmarkDeliveryLatency records events at a steady rate (default 500/s) and measures the time from the
// start of each event's transaction to its arrival at the receiver (p50, p99, max), and
// from the commit of that transaction (commit-p50, commit-p99): the delivery machinery's own share.
func BenchmarkDeliveryLatency(b *testing.B) {
	rate := 500
	if v, err := strconv.Atoi(os.Getenv("SB_BENCH_RATE")); err == nil && v > 0 {
		rate = v
	}
	duration := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("SB_BENCH_DURATION")); err == nil {
		duration = v
	}
	total := int(duration.Seconds() * float64(rate))
	rc := newCountingReceiver(total)
	defer rc.Close()
	env := newBenchEnv(b, rc.URL)
	if err := env.node.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	{
		var mu sync.Mutex
		started := make(map[string][2]time.Time, total) // transaction start, commit
		var wg sync.WaitGroup
		tick := time.NewTicker(time.Second / time.Duration(rate))
		for i := range total {
			<-tick.C
			wg.Add(1)
			go func() {
				defer wg.Done()
				t0 := time.Now()
				id := env.emit(b, i)
				t1 := time.Now()
				mu.Lock()
				started[id] = [2]time.Time{t0, t1}
				mu.Unlock()
			}()
		}
		tick.Stop()
		wg.Wait()
		select {
		case <-rc.all:
		case <-time.After(time.Minute):
			b.Fatalf("only %d of %d deliveries", rc.n.Load(), total)
		}
		rc.mu.Lock()
		lat := make([]time.Duration, 0, total)   // from the start of the event's transaction
		after := make([]time.Duration, 0, total) // from its commit
		for id, t := range started {
			if at, ok := rc.seen[id]; ok {
				lat = append(lat, at.Sub(t[0]))
				after = append(after, max(0, at.Sub(t[1])))
			}
		}
		rc.mu.Unlock()
		slices.Sort(lat)
		slices.Sort(after)
		pct := func(ds []time.Duration, p float64) float64 {
			return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000
		}
		b.ReportMetric(pct(lat, 0.50), "p50_ms")
		b.ReportMetric(pct(lat, 0.99), "p99_ms")
		b.ReportMetric(pct(lat, 1), "max_ms")
		b.ReportMetric(pct(after, 0.50), "commit-p50_ms")
		b.ReportMetric(pct(after, 0.99), "commit-p99_ms")
		b.ReportMetric(float64(len(lat)), "events")
	}
}
