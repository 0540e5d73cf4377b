package service_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

func TestIdempotencyReplaysAndSealsStoredResponses(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			svc, st := servicetest.New(t, d, service.Config{SecretsKey: []byte("an operator secret of some length")})
			owner := servicetest.NewOwner(t, svc)
			_, secret := owner.NewKey(t, svc, domain.ScopeAll)
			a, _ := svc.Keys.Authenticate(ctx, secret)
			body := []byte(`{"url":"https://example.com"}`)

			if r, err := svc.Idempotency.Begin(ctx, a, domain.ScopeWebhooksWrite, "k1", "POST", "/api/v1/webhooks", body); err != nil || r != nil {
				t.Fatalf("first begin: %v %v", r, err)
			}
			// The same key while the first request runs is refused, not run twice.
			if _, err := svc.Idempotency.Begin(ctx, a, domain.ScopeWebhooksWrite, "k1", "POST", "/api/v1/webhooks", body); reason(err) != "idempotency_in_progress" {
				t.Fatalf("concurrent begin: %v", err)
			}
			response := `{"secret":"whsec_c2VjcmV0IHNpZ25pbmcga2V5"}`
			if err := svc.Idempotency.Finish(ctx, a, "k1", 201, "application/json", []byte(response)); err != nil {
				t.Fatal(err)
			}
			r, err := svc.Idempotency.Begin(ctx, a, domain.ScopeWebhooksWrite, "k1", "POST", "/api/v1/webhooks", body)
			if err != nil || r == nil || r.StatusCode != 201 || string(r.Body) != response {
				t.Fatalf("replay: %+v %v", r, err)
			}
			if _, err := svc.Idempotency.Begin(ctx, a, domain.ScopeWebhooksWrite, "k1", "POST", "/api/v1/webhooks", []byte(`{}`)); reason(err) != "idempotency_conflict" {
				t.Fatalf("different body: %v", err)
			}
			// At rest the response is sealed: the secret is not in the table.
			rec, claimed, err := st.ClaimIdempotencyKey(ctx, storeRecord(owner.Workspace.ID, "k1"))
			if err != nil || claimed || strings.Contains(rec.ResponseBody, "whsec_") {
				t.Fatalf("stored response: %q %v %v", rec.ResponseBody, claimed, err)
			}
		})
	}
}
