package rest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
	"github.com/switchboard-dev/switchboard/backend/rest"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// Authenticated GET /api/v1/models through the real router (request id, CORS, key auth
// from the cache, rate limit, the service, JSON encoding) on a loopback server, compared in
// the same run with BenchmarkModelsBaseline, a bare net/http handler writing the same
// bytes. Both use the same client, connection count and parallelism:
//
//	go test -bench . -run '^$' ./rest/
func BenchmarkModelsAuthenticated(b *testing.B) {
	svc, _ := servicetest.New(b, store.SQLite, service.Config{LastUsedFlush: time.Hour})
	owner := servicetest.NewOwner(b, svc)
	_, secret := owner.NewKey(b, svc, domain.ScopeModelsRead)
	h := httpx.RequestID(rest.New(svc, rest.Options{RateLimit: 1e9, Burst: 1e9}))
	benchmarkGET(b, h, "Bearer "+secret)
}

func BenchmarkModelsBaseline(b *testing.B) {
	body, err := json.Marshal(map[string]any{"object": "list", "data": service.DefaultModels})
	if err != nil {
		b.Fatal(err)
	}
	body = append(body, '\n')
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	benchmarkGET(b, h, "")
}

func benchmarkGET(b *testing.B, h http.Handler, authorization string) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
	defer client.CloseIdleConnections()
	url := srv.URL + "/api/v1/models"

	b.SetParallelism(8) // 8 × GOMAXPROCS concurrent clients
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", url, nil)
			req.Header.Set("Accept", "application/json")
			if authorization != "" {
				req.Header.Set("Authorization", authorization)
			}
			res, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b.Errorf("status %d", res.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
