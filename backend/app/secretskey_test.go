package app_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/app"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/servicetest"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// A replica whose SWITCHBOARD_SECRETS_KEY is missing or is not the key the database's secrets
// were sealed with is refused at start, naming the variable and no secret, rather than
// starting and failing its share of webhook deliveries. Secrets stored in plain text (before
// a key was set) do not stop a start with a key.
func TestStartRefusesAKeyThatDoesNotOpenTheStoredSecrets(t *testing.T) {
	const key, otherKey = "the-replicas-shared-key-1", "a-different-key-of-this-one"
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			dbURL := storetest.URL(t, d)
			start := func(secretsKey string) (*app.App, error) {
				t.Helper()
				cfg, err := app.FromEnv(func(string) string { return "" })
				if err != nil {
					t.Fatal(err)
				}
				cfg.DatabaseURL, cfg.MediaStore, cfg.SecretsKey = dbURL, "file://"+filepath.ToSlash(t.TempDir()), secretsKey
				cfg.WebhookWorkers = 0 // nothing is delivered: the endpoint below is never called
				return app.New(context.Background(), cfg, discard())
			}
			addWebhook := func(a *app.App) string {
				t.Helper()
				owner := servicetest.NewOwner(t, a.Service)
				_, secret, err := a.Service.Webhooks.Create(context.Background(), owner.Actor, service.CreateWebhookInput{
					URL: "https://hooks.example.com/in", EventTypes: []string{domain.EventAPIKeyCreated}})
				if err != nil {
					t.Fatal(err)
				}
				return secret
			}

			// Without a key the secret is stored as is; a key may be introduced later.
			a, err := start("")
			if err != nil {
				t.Fatal(err)
			}
			addWebhook(a)
			a.Close()
			a, err = start(key)
			if err != nil {
				t.Fatalf("a key introduced after plain-text secrets: %v", err)
			}
			secret := addWebhook(a) // sealed with key
			a.Close()

			for _, c := range []struct{ key, says string }{
				{"", "SWITCHBOARD_SECRETS_KEY is not set"},
				{otherKey, "SWITCHBOARD_SECRETS_KEY does not open the secrets"},
			} {
				a, err := start(c.key)
				if err == nil {
					a.Close()
					t.Fatalf("key %q: started, though it does not open the stored secrets", c.key)
				}
				if !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), key) ||
					(c.key != "" && strings.Contains(err.Error(), c.key)) {
					t.Fatalf("key %q: %v", c.key, err)
				}
			}
			// The refusals released the database: the right key starts.
			a, err = start(key)
			if err != nil {
				t.Fatal(err)
			}
			a.Close()
		})
	}
}

// Trusting a range wide enough to hold clients is allowed, with a warning at start that says
// what it lets them do; a proxy's own address is not warned about.
func TestWideTrustedProxyRangeIsWarnedAbout(t *testing.T) {
	for _, c := range []struct {
		proxies string
		warned  bool
	}{{"0.0.0.0/0", true}, {"::/0", true}, {"127.0.0.1, 10.0.0.0/8", false}} {
		cfg, err := app.FromEnv(func(k string) string {
			if k == "SWITCHBOARD_TRUSTED_PROXIES" {
				return c.proxies
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		cfg.DatabaseURL, cfg.MediaStore = storetest.URL(t, storetest.Dialects[0]), "file://"+filepath.ToSlash(t.TempDir())
		var logs strings.Builder
		a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(&logs, nil)))
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
		if got := strings.Contains(logs.String(), "trusts a very wide range"); got != c.warned {
			t.Errorf("%s: warned %v, want %v:\n%s", c.proxies, got, c.warned, logs.String())
		}
	}
}
