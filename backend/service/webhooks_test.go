package service_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

func ptr[T any](v T) *T { return &v }

func TestWebhookLifecycle(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			svc, st := servicetest.New(t, d, service.Config{Clock: clock, SecretsKey: []byte("test secrets key")})
			owner := servicetest.NewOwner(t, svc)
			addInstance(t, st, owner.Workspace.ID, "inst_01jc0000000000000000000000")

			hook, secret, err := svc.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{
				URL: " https://example.com/hooks ", Description: "orders",
				EventTypes: []string{"api_key.created", "api_key.created", "webhook.updated"}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(secret, "whsec_") || len(secret) < 6+32 {
				t.Fatalf("secret %q", secret)
			}
			if hook.URL != "https://example.com/hooks" || !hook.Enabled || len(hook.EventTypes) != 2 || !domain.HasPrefix(hook.ID, "wh_") {
				t.Fatalf("created %+v", hook)
			}
			// The public object never carries the secret.
			js, _ := json.Marshal(hook.Object())
			if strings.Contains(string(js), secret) || strings.Contains(string(js), "secret") {
				t.Fatalf("object leaks the secret: %s", js)
			}
			var obj map[string]any
			_ = json.Unmarshal(js, &obj)
			for _, k := range []string{"object", "id", "url", "description", "event_types", "instance_id", "enabled", "disabled_reason", "created_at", "updated_at"} {
				if _, ok := obj[k]; !ok {
					t.Errorf("webhook object lacks %q: %s", k, js)
				}
			}

			got, err := svc.Webhooks.Get(ctx, owner.Actor, hook.ID)
			if err != nil || got.URL != hook.URL || got.CreatedAt != hook.CreatedAt {
				t.Fatalf("get: %v %+v", err, got)
			}

			clock.t = clock.t.Add(time.Minute)
			upd, err := svc.Webhooks.Update(ctx, owner.Actor, hook.ID, service.UpdateWebhookInput{
				Description: ptr("orders v2"), EventTypes: &[]string{"*", "api_key.created"}, Enabled: ptr(false)})
			if err != nil {
				t.Fatal(err)
			}
			if upd.Description != "orders v2" || len(upd.EventTypes) != 1 || upd.EventTypes[0] != "*" || upd.Enabled ||
				upd.DisabledReason == "" || !upd.UpdatedAt.Equal(clock.t) || upd.URL != hook.URL {
				t.Fatalf("updated %+v", upd)
			}
			upd, err = svc.Webhooks.Update(ctx, owner.Actor, hook.ID, service.UpdateWebhookInput{Enabled: ptr(true), InstanceID: ptr("inst_01jc0000000000000000000000")})
			if err != nil || !upd.Enabled || upd.DisabledReason != "" || upd.InstanceID == nil {
				t.Fatalf("re-enable: %v %+v", err, upd)
			}
			upd, err = svc.Webhooks.Update(ctx, owner.Actor, hook.ID, service.UpdateWebhookInput{InstanceID: ptr("")})
			if err != nil || upd.InstanceID != nil {
				t.Fatalf("clear instance filter: %v %+v", err, upd)
			}

			_, secret2, until, err := svc.Webhooks.RotateSecret(ctx, owner.Actor, hook.ID)
			if err != nil || secret2 == secret || !until.Equal(clock.t.Add(24*time.Hour)) {
				t.Fatalf("rotate: %v %v", err, until)
			}

			page, err := svc.Webhooks.List(ctx, owner.Actor, domain.ListParams{})
			if err != nil || len(page.Data) != 1 || page.HasMore {
				t.Fatalf("list: %v %+v", err, page)
			}

			if err := svc.Webhooks.Delete(ctx, owner.Actor, hook.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Webhooks.Get(ctx, owner.Actor, hook.ID); !domain.IsCode(err, domain.CodeNotFound) {
				t.Fatalf("get after delete: %v", err)
			}

			// Every change was an event, in order, carrying the webhook object.
			events, err := svc.Events.List(ctx, owner.Actor, domain.EventFilter{Types: []string{"webhook.created", "webhook.updated",
				"webhook.deleted", "webhook.secret_rotated"}}, domain.ListParams{})
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for i := len(events.Data) - 1; i >= 0; i-- {
				types = append(types, events.Data[i].Type)
				if strings.Contains(string(events.Data[i].Data), "whsec_") {
					t.Fatalf("event leaks a secret: %s", events.Data[i].Data)
				}
			}
			want := "webhook.created webhook.updated webhook.updated webhook.updated webhook.secret_rotated webhook.deleted"
			if strings.Join(types, " ") != want {
				t.Fatalf("events %v, want %s", types, want)
			}
		})
	}
}

func TestWebhookPagination(t *testing.T) {
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	ctx := context.Background()
	for range 5 {
		if _, _, err := svc.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{URL: "https://example.com/h", EventTypes: []string{"*"}}); err != nil {
			t.Fatal(err)
		}
	}
	var seen []string
	p := domain.ListParams{Limit: domain.Limit(2)}
	for {
		page, err := svc.Webhooks.List(ctx, owner.Actor, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range page.Data {
			seen = append(seen, h.ID)
		}
		if !page.HasMore {
			break
		}
		p.After = page.NextCursor
	}
	if len(seen) != 5 {
		t.Fatalf("paged through %d webhooks, want 5", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] >= seen[i-1] {
			t.Fatalf("not newest first: %v", seen)
		}
	}
}

func TestWebhookLimitPerWorkspace(t *testing.T) {
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	ctx := context.Background()
	in := service.CreateWebhookInput{URL: "https://example.com/h", EventTypes: []string{"*"}}
	for range service.MaxWebhooksPerWorkspace {
		if _, _, err := svc.Webhooks.Create(ctx, owner.Actor, in); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := svc.Webhooks.Create(ctx, owner.Actor, in)
	if e := domain.ErrorOf(err); e == nil || e.Code != domain.CodeInvalid || e.Reason != "webhook_limit_reached" {
		t.Fatalf("endpoint %d: %v", service.MaxWebhooksPerWorkspace+1, err)
	}
	page, _ := svc.Webhooks.List(ctx, owner.Actor, domain.ListParams{Limit: domain.Limit(service.MaxWebhooksPerWorkspace)})
	if len(page.Data) != service.MaxWebhooksPerWorkspace || page.HasMore {
		t.Fatalf("stored %d endpoints (more: %v)", len(page.Data), page.HasMore)
	}
	// Another workspace has its own allowance.
	other := servicetest.NewOwner(t, svc)
	if _, _, err := svc.Webhooks.Create(ctx, other.Actor, in); err != nil {
		t.Fatalf("other workspace: %v", err)
	}
}

// Concurrent creates near the limit never pass it: the count and the insert hold the
// workspace (on PostgreSQL several requests count at once otherwise, and 104 endpoints were
// stored).
func TestWebhookLimitHoldsUnderConcurrency(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			svc, _ := servicetest.New(t, d, service.Config{})
			owner := servicetest.NewOwner(t, svc)
			ctx := context.Background()
			in := service.CreateWebhookInput{URL: "https://example.com/h", EventTypes: []string{"*"}}
			for range service.MaxWebhooksPerWorkspace - 2 {
				if _, _, err := svc.Webhooks.Create(ctx, owner.Actor, in); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			var created atomic.Int32
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, _, err := svc.Webhooks.Create(ctx, owner.Actor, in); err == nil {
						created.Add(1)
					} else if e := domain.ErrorOf(err); e == nil || e.Reason != "webhook_limit_reached" {
						t.Errorf("create: %v", err)
					}
				}()
			}
			wg.Wait()
			page, err := svc.Webhooks.List(ctx, owner.Actor, domain.ListParams{Limit: domain.Limit(100)})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(page.Data); created.Load() != 2 || n != service.MaxWebhooksPerWorkspace || page.HasMore {
				t.Fatalf("%d concurrent creates succeeded and %d endpoints stored (more: %v), want 2 and %d", created.Load(), n,
					page.HasMore, service.MaxWebhooksPerWorkspace)
			}
		})
	}
}

func TestWebhookValidation(t *testing.T) {
	svc, st := servicetest.New(t, store.SQLite, service.Config{})
	owner := servicetest.NewOwner(t, svc)
	ctx := context.Background()
	all := []string{"*"}
	cases := []struct {
		name  string
		in    service.CreateWebhookInput
		param string
	}{
		{"no url", service.CreateWebhookInput{EventTypes: all}, "url"},
		{"relative url", service.CreateWebhookInput{URL: "/hooks", EventTypes: all}, "url"},
		{"ftp url", service.CreateWebhookInput{URL: "ftp://example.com/x", EventTypes: all}, "url"},
		{"long url", service.CreateWebhookInput{URL: "https://example.com/" + strings.Repeat("a", 2040), EventTypes: all}, "url"},
		{"credentials", service.CreateWebhookInput{URL: "https://u:p@example.com/", EventTypes: all}, "url"},
		{"loopback", service.CreateWebhookInput{URL: "http://127.0.0.1:8080/", EventTypes: all}, "url"},
		{"localhost", service.CreateWebhookInput{URL: "http://localhost/", EventTypes: all}, "url"},
		{"private", service.CreateWebhookInput{URL: "https://10.1.2.3/", EventTypes: all}, "url"},
		{"metadata", service.CreateWebhookInput{URL: "http://169.254.169.254/latest/meta-data", EventTypes: all}, "url"},
		{"ipv6 loopback", service.CreateWebhookInput{URL: "http://[::1]/", EventTypes: all}, "url"},
		{"mapped ipv6", service.CreateWebhookInput{URL: "http://[::ffff:192.168.0.1]/", EventTypes: all}, "url"},
		{"unique local", service.CreateWebhookInput{URL: "http://[fd00:ec2::254]/", EventTypes: all}, "url"},
		{"no event types", service.CreateWebhookInput{URL: "https://example.com/"}, "event_types"},
		{"unknown event type", service.CreateWebhookInput{URL: "https://example.com/", EventTypes: []string{"nope.happened"}}, "event_types"},
		{"long description", service.CreateWebhookInput{URL: "https://example.com/", EventTypes: all, Description: strings.Repeat("é", 501)}, "description"},
		{"bad instance", service.CreateWebhookInput{URL: "https://example.com/", EventTypes: all, InstanceID: ptr("wh_x")}, "instance_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := svc.Webhooks.Create(ctx, owner.Actor, c.in)
			e := domain.ErrorOf(err)
			if e == nil || e.Code != domain.CodeInvalid || e.Param != c.param {
				t.Fatalf("got %v, want invalid %s", err, c.param)
			}
		})
	}
	page, _ := svc.Webhooks.List(ctx, owner.Actor, domain.ListParams{})
	if len(page.Data) != 0 {
		t.Fatalf("invalid input stored %d webhooks", len(page.Data))
	}

	// The operator's allow-list admits chosen local targets.
	svc = servicetest.NewOn(t, st, service.Config{TargetPolicy: ssrf.MustPolicy("127.0.0.1", "n8n.internal", "10.9.0.0/16")})
	for _, u := range []string{"http://127.0.0.1:5678/webhook", "http://n8n.internal:5678/x", "http://10.9.1.1/"} {
		if _, _, err := svc.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{URL: u, EventTypes: all}); err != nil {
			t.Errorf("allow-listed %s: %v", u, err)
		}
	}
	if _, _, err := svc.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{URL: "http://10.8.0.1/", EventTypes: all}); !domain.IsCode(err, domain.CodeInvalid) {
		t.Errorf("outside the allowed range: %v", err)
	}

	// Updates are validated the same way and change nothing when invalid.
	hook, _, err := svc.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{URL: "https://example.com/", EventTypes: all})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Webhooks.Update(ctx, owner.Actor, hook.ID, service.UpdateWebhookInput{URL: ptr("https://example.com/new"), EventTypes: &[]string{}})
	if e := domain.ErrorOf(err); e == nil || e.Param != "event_types" {
		t.Fatalf("update with no event types: %v", err)
	}
	if got, _ := svc.Webhooks.Get(ctx, owner.Actor, hook.ID); got.URL != "https://example.com/" {
		t.Fatalf("invalid update changed the url to %s", got.URL)
	}
}

func TestWebhookAccess(t *testing.T) {
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	ctx := context.Background()
	owner, other := servicetest.NewOwner(t, svc), servicetest.NewOwner(t, svc)
	hook, _, err := svc.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{URL: "https://example.com/", EventTypes: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := svc.Webhooks.Test(ctx, owner.Actor, hook.ID, "")
	if err != nil {
		t.Fatal(err)
	}

	// Another workspace's ids are not found, whatever the operation.
	oa := other.Actor
	notFound := map[string]error{}
	_, notFound["get"] = svc.Webhooks.Get(ctx, oa, hook.ID)
	_, notFound["update"] = svc.Webhooks.Update(ctx, oa, hook.ID, service.UpdateWebhookInput{Description: ptr("x")})
	notFound["delete"] = svc.Webhooks.Delete(ctx, oa, hook.ID)
	_, _, _, notFound["rotate"] = svc.Webhooks.RotateSecret(ctx, oa, hook.ID)
	_, notFound["deliveries"] = svc.Webhooks.Deliveries(ctx, oa, hook.ID, domain.ListParams{})
	_, notFound["retry"] = svc.Webhooks.Retry(ctx, oa, hook.ID, d.ID)
	_, notFound["test"] = svc.Webhooks.Test(ctx, oa, hook.ID, "")
	for op, err := range notFound {
		if !domain.IsCode(err, domain.CodeNotFound) {
			t.Errorf("%s of another workspace's webhook: %v, want not_found", op, err)
		}
	}

	// Scopes: read needs webhooks:read, changes need webhooks:write.
	_, readSecret := owner.NewKey(t, svc, domain.ScopeWebhooksRead)
	_, writeSecret := owner.NewKey(t, svc, domain.ScopeWebhooksWrite)
	_, noneSecret := owner.NewKey(t, svc, domain.ScopeEventsRead)
	reader, _ := svc.Keys.Authenticate(ctx, readSecret)
	writer, _ := svc.Keys.Authenticate(ctx, writeSecret)
	none, _ := svc.Keys.Authenticate(ctx, noneSecret)
	if _, err := svc.Webhooks.List(ctx, reader, domain.ListParams{}); err != nil {
		t.Errorf("list with webhooks:read: %v", err)
	}
	if _, err := svc.Webhooks.Deliveries(ctx, reader, hook.ID, domain.ListParams{}); err != nil {
		t.Errorf("deliveries with webhooks:read: %v", err)
	}
	if _, _, err := svc.Webhooks.Create(ctx, writer, service.CreateWebhookInput{URL: "https://example.com/", EventTypes: []string{"*"}}); err != nil {
		t.Errorf("create with webhooks:write: %v", err)
	}
	forbidden := map[string]error{}
	_, forbidden["list"] = svc.Webhooks.List(ctx, none, domain.ListParams{})
	_, _, forbidden["create"] = svc.Webhooks.Create(ctx, reader, service.CreateWebhookInput{URL: "https://example.com/", EventTypes: []string{"*"}})
	forbidden["delete"] = svc.Webhooks.Delete(ctx, reader, hook.ID)
	_, forbidden["test"] = svc.Webhooks.Test(ctx, reader, hook.ID, "")
	_, forbidden["retry"] = svc.Webhooks.Retry(ctx, reader, hook.ID, d.ID)
	_, _, _, forbidden["rotate"] = svc.Webhooks.RotateSecret(ctx, reader, hook.ID)
	for op, err := range forbidden {
		if e := domain.ErrorOf(err); e == nil || e.Code != domain.CodeForbidden || e.Reason != "insufficient_scope" {
			t.Errorf("%s without the scope: %v, want insufficient_scope", op, err)
		}
	}
}

func TestWebhookTestAndRetry(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			svc, _ := servicetest.New(t, d, service.Config{Clock: clock})
			owner := servicetest.NewOwner(t, svc)
			hook, _, err := svc.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{URL: "https://example.com/", EventTypes: []string{"api_key.created"}})
			if err != nil {
				t.Fatal(err)
			}
			del, err := svc.Webhooks.Test(ctx, owner.Actor, hook.ID, "")
			if err != nil {
				t.Fatal(err)
			}
			if del.EventType != "webhook.test" || del.Status != "pending" || del.NextAttemptAt == nil || !domain.HasPrefix(del.ID, "whd_") {
				t.Fatalf("test delivery %+v", del)
			}
			if _, err := svc.Webhooks.Test(ctx, owner.Actor, hook.ID, "no.such"); !domain.IsCode(err, domain.CodeInvalid) {
				t.Fatalf("unknown test type: %v", err)
			}
			keyTest, err := svc.Webhooks.Test(ctx, owner.Actor, hook.ID, "api_key.revoked")
			if err != nil || keyTest.EventType != "api_key.revoked" {
				t.Fatalf("typed test: %v %+v", err, keyTest)
			}
			// Test events stay out of the event log.
			evs, _ := svc.Events.List(ctx, owner.Actor, domain.EventFilter{Types: []string{"webhook.test", "api_key.revoked"}}, domain.ListParams{})
			if len(evs.Data) != 0 {
				t.Fatalf("test events in the log: %+v", evs.Data)
			}
			page, err := svc.Webhooks.Deliveries(ctx, owner.Actor, hook.ID, domain.ListParams{})
			if err != nil || len(page.Data) != 2 || page.Data[0].ID != keyTest.ID {
				t.Fatalf("deliveries: %v %+v", err, page)
			}
			js, _ := json.Marshal(page.Data[0].Object())
			if !strings.Contains(string(js), `"object":"webhook_delivery"`) || !strings.Contains(string(js), `"attempts":[]`) {
				t.Fatalf("delivery object %s", js)
			}

			// A pending delivery not in flight is brought forward.
			clock.t = clock.t.Add(time.Minute)
			r, err := svc.Webhooks.Retry(ctx, owner.Actor, hook.ID, del.ID)
			if err != nil || r.Status != "pending" || !r.NextAttemptAt.Equal(clock.t) {
				t.Fatalf("retry: %v %+v", err, r)
			}
			if _, err := svc.Webhooks.Retry(ctx, owner.Actor, hook.ID, "whd_01jc0000000000000000000000"); !domain.IsCode(err, domain.CodeNotFound) {
				t.Fatalf("retry of a missing delivery: %v", err)
			}

			// A disabled endpoint can be neither tested nor retried.
			if _, err := svc.Webhooks.Update(ctx, owner.Actor, hook.ID, service.UpdateWebhookInput{Enabled: ptr(false)}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Webhooks.Test(ctx, owner.Actor, hook.ID, ""); !domain.IsCode(err, domain.CodeConflict) {
				t.Fatalf("test of a disabled endpoint: %v", err)
			}
			if _, err := svc.Webhooks.Retry(ctx, owner.Actor, hook.ID, del.ID); !domain.IsCode(err, domain.CodeConflict) {
				t.Fatalf("retry on a disabled endpoint: %v", err)
			}
			// Disabling failed the pending deliveries.
			page, _ = svc.Webhooks.Deliveries(ctx, owner.Actor, hook.ID, domain.ListParams{})
			for _, d := range page.Data {
				if d.Status != "failed" || d.NextAttemptAt != nil {
					t.Fatalf("delivery of a disabled endpoint: %+v", d)
				}
			}
		})
	}
}

func TestWebhookEventTypesRegistered(t *testing.T) {
	svc, _ := servicetest.New(t, store.SQLite, service.Config{})
	want := map[string]bool{"webhook.created": false, "webhook.updated": false, "webhook.deleted": false,
		"webhook.secret_rotated": false, "webhook.disabled": false, "webhook.test": false}
	for _, info := range eventTypes(t, svc) {
		if _, ok := want[info.Type]; ok {
			want[info.Type] = true
			if _, isObj := info.Sample.(domain.WebhookObject); !isObj {
				t.Errorf("%s sample is %T, want the webhook object", info.Type, info.Sample)
			}
		}
	}
	for typ, ok := range want {
		if !ok {
			t.Errorf("event type %s not registered", typ)
		}
	}
}

func TestEventSizeLimit(t *testing.T) {
	if err := service.CheckEventSize(domain.MaxEventPayload); err != nil {
		t.Fatalf("exactly 256 KB refused: %v", err)
	}
	err := service.CheckEventSize(domain.MaxEventPayload + 1)
	if e := domain.ErrorOf(err); e == nil || e.Reason != "event_too_large" || !strings.Contains(e.Message, "256 KB") {
		t.Fatalf("oversized event: %v", err)
	}
}

// Signing secrets are encrypted at rest when a secrets key is configured, and only that key
// opens them.
func TestWebhookSecretsEncryptedAtRest(t *testing.T) {
	ctx := context.Background()
	svc, st := servicetest.New(t, store.SQLite, service.Config{SecretsKey: []byte("operator secrets key")})
	owner := servicetest.NewOwner(t, svc)
	hook, secret, err := svc.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{URL: "https://example.com/", EventTypes: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.WebhookSecrets(ctx, owner.Workspace.ID, hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored.Current, "enc:v1:") || strings.Contains(stored.Current, strings.TrimPrefix(secret, "whsec_")) {
		t.Fatalf("stored secret %q is not encrypted", stored.Current)
	}
	now := time.Now()
	got, err := svc.Webhooks.SigningSecrets(stored, now)
	if err != nil || len(got) != 1 || got[0] != secret {
		t.Fatalf("decrypted %v, %v", got, err)
	}
	other := servicetest.NewOn(t, st, service.Config{SecretsKey: []byte("another key")})
	if _, err := other.Webhooks.SigningSecrets(stored, now); err == nil {
		t.Fatal("a different key opened the secret")
	}
	plain := servicetest.NewOn(t, st, service.Config{})
	if _, err := plain.Webhooks.SigningSecrets(stored, now); err == nil {
		t.Fatal("no key opened the secret")
	}

	// After a rotation both secrets sign until the overlap ends.
	_, secret2, until, err := svc.Webhooks.RotateSecret(ctx, owner.Actor, hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ = st.WebhookSecrets(ctx, owner.Workspace.ID, hook.ID)
	got, err = svc.Webhooks.SigningSecrets(stored, until.Add(-time.Second))
	if err != nil || len(got) != 2 || got[0] != secret2 || got[1] != secret {
		t.Fatalf("during the overlap: %v %v", got, err)
	}
	if got, _ := svc.Webhooks.SigningSecrets(stored, until); len(got) != 1 || got[0] != secret2 {
		t.Fatalf("after the overlap: %v", got)
	}
	// Every replaced secret is stored sealed too.
	if len(stored.Previous) != 1 || !strings.HasPrefix(stored.Previous[0].Secret, "enc:v1:") {
		t.Fatalf("stored previous secrets %+v", stored.Previous)
	}
}

// Each secret a rotation replaced signs until its own expiry, so rotating is bounded: while
// MaxPreviousWebhookSecrets (5) replaced secrets still sign, another rotation is refused
// (409 rotation_limit_reached, saying when the oldest stops) rather than cutting one off
// before the 24 hours its rotation promised. Once the oldest expires, rotating works again.
func TestWebhookRotationLimit(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			svc, st := servicetest.New(t, d, service.Config{Clock: clock, SecretsKey: []byte("test secrets key")})
			owner := servicetest.NewOwner(t, svc)
			hook, first, err := svc.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{URL: "https://example.com/", EventTypes: []string{"*"}})
			if err != nil {
				t.Fatal(err)
			}
			secrets := []string{first}
			var expiries []time.Time
			for i := range service.MaxPreviousWebhookSecrets {
				if i > 0 {
					clock.t = clock.t.Add(time.Minute)
				}
				_, secret, until, err := svc.Webhooks.RotateSecret(ctx, owner.Actor, hook.ID)
				if err != nil {
					t.Fatalf("rotation %d: %v", i+1, err)
				}
				if !until.Equal(clock.t.Add(24 * time.Hour)) {
					t.Fatalf("rotation %d: previous_secret_expires_at %v", i+1, until)
				}
				secrets, expiries = append(secrets, secret), append(expiries, until)
			}
			stored, err := st.WebhookSecrets(ctx, owner.Workspace.ID, hook.ID)
			if err != nil {
				t.Fatal(err)
			}
			got, err := svc.Webhooks.SigningSecrets(stored, clock.t)
			if err != nil || len(got) != service.MaxPreviousWebhookSecrets+1 {
				t.Fatalf("signing secrets: %d, %v", len(got), err)
			}
			for i, s := range got { // the current one, then the latest replaced first
				if want := secrets[len(secrets)-1-i]; s != want {
					t.Fatalf("signing secret %d is not the one expected", i)
				}
			}

			clock.t = clock.t.Add(time.Minute)
			_, _, _, err = svc.Webhooks.RotateSecret(ctx, owner.Actor, hook.ID)
			e := domain.ErrorOf(err)
			if e == nil || e.Code != domain.CodeConflict || e.Reason != "rotation_limit_reached" ||
				!strings.Contains(e.Message, expiries[0].Format(time.RFC3339)) {
				t.Fatalf("a rotation beyond the limit: %v", err)
			}
			if again, _ := st.WebhookSecrets(ctx, owner.Workspace.ID, hook.ID); again.Current != stored.Current || len(again.Previous) != len(stored.Previous) {
				t.Fatal("the refused rotation changed the secrets")
			}

			// Once the oldest replaced secret expires there is room again; the expired one is dropped.
			clock.t = expiries[0]
			_, secret, _, err := svc.Webhooks.RotateSecret(ctx, owner.Actor, hook.ID)
			if err != nil {
				t.Fatalf("a rotation once the oldest expired: %v", err)
			}
			stored, _ = st.WebhookSecrets(ctx, owner.Workspace.ID, hook.ID)
			if len(stored.Previous) != service.MaxPreviousWebhookSecrets {
				t.Fatalf("%d previous secrets stored, want %d", len(stored.Previous), service.MaxPreviousWebhookSecrets)
			}
			got, _ = svc.Webhooks.SigningSecrets(stored, clock.t)
			if len(got) != service.MaxPreviousWebhookSecrets+1 || got[0] != secret || slices.Contains(got, secrets[0]) {
				t.Fatalf("signing secrets after the oldest expired: %d", len(got))
			}
		})
	}
}

// Concurrent rotations of one endpoint run one after the other: exactly as many succeed as
// the limit admits, and every secret they replaced is kept (none overwritten by a racing
// rotation), so each still signs until its own expiry.
func TestWebhookRotationsUnderConcurrency(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			svc, st := servicetest.New(t, d, service.Config{})
			owner := servicetest.NewOwner(t, svc)
			hook, first, err := svc.Webhooks.Create(ctx, owner.Actor, service.CreateWebhookInput{URL: "https://example.com/", EventTypes: []string{"*"}})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			issued := []string{first}
			for range 2 * service.MaxPreviousWebhookSecrets {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, secret, _, err := svc.Webhooks.RotateSecret(ctx, owner.Actor, hook.ID)
					if e := domain.ErrorOf(err); err != nil && (e == nil || e.Reason != "rotation_limit_reached") {
						t.Errorf("rotate: %v", err)
						return
					}
					if err == nil {
						mu.Lock()
						issued = append(issued, secret)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			stored, err := st.WebhookSecrets(ctx, owner.Workspace.ID, hook.ID)
			if err != nil {
				t.Fatal(err)
			}
			signing, err := svc.Webhooks.SigningSecrets(stored, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(issued)
			slices.Sort(signing)
			if len(issued) != service.MaxPreviousWebhookSecrets+1 || !slices.Equal(issued, signing) {
				t.Fatalf("%d secrets issued (the first and %d rotations), %d signing: every issued secret must sign",
					len(issued), len(issued)-1, len(signing))
			}
		})
	}
}

// addInstance stores a bare instance of the workspace: an endpoint's instance filter must
// name one.
func addInstance(t *testing.T, st *store.Store, workspaceID, id string) {
	t.Helper()
	ctx := context.Background()
	err := st.Tx(ctx, func(tx *store.Tx) error {
		return tx.CreateInstance(ctx, store.StoredInstance{Instance: domain.Instance{ID: id, WorkspaceID: workspaceID,
			Name: "test", Channel: "sandbox", Status: domain.InstanceDisconnected, CreatedAt: time.Now(), UpdatedAt: time.Now()}})
	})
	if err != nil {
		t.Fatal(err)
	}
}
