package app

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	"github.com/switchboard-dev/switchboard/backend/blob"
	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/channels/sandbox"
	"github.com/switchboard-dev/switchboard/backend/channels/telegram"
	"github.com/switchboard-dev/switchboard/backend/channels/whatsappcloud"
	"github.com/switchboard-dev/switchboard/backend/media"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
)

// This file builds the channel drivers and the store received media goes to.

// providerTimeout bounds one call to a channel provider's API.
const providerTimeout = 30 * time.Second

// drivers returns every channel: the sandbox, Telegram and WhatsApp Cloud. Provider APIs
// are reached directly (their hosts are the operator's settings); media URLs (those a send
// names, and those WhatsApp hands out for downloads) go through the SSRF policy, like
// webhooks.
func drivers(cfg Config, policy *ssrf.Policy) *channels.Registry {
	api := &http.Client{Timeout: providerTimeout}
	// Media a send names by URL is fetched by us, through the SSRF policy, and uploaded.
	guarded := channels.GuardedClient(policy, providerTimeout)
	return channels.NewRegistry(sandbox.New(),
		telegram.New(telegram.Options{ServerURL: cfg.TelegramAPIURL, Client: api, MediaClient: guarded,
			MaxMediaBytes: cfg.MediaUploadMaxBytes}),
		whatsappcloud.New(whatsappcloud.Options{GraphURL: cfg.WhatsAppGraphURL, Client: api, MediaClient: guarded,
			MaxMediaBytes: cfg.MediaUploadMaxBytes}))
}

// mediaStore opens the blob store and the signer of media URLs.
func mediaStore(ctx context.Context, cfg Config, log *slog.Logger) (*blob.Store, *media.Signer, error) {
	storeURL := cfg.MediaStore
	if storeURL == "" {
		dir, err := filepath.Abs(filepath.Join("data", "media"))
		if err != nil {
			return nil, nil, err
		}
		storeURL = "file://" + filepath.ToSlash(dir)
	}
	st, err := blob.Open(ctx, storeURL)
	if err != nil {
		return nil, nil, fmt.Errorf("SWITCHBOARD_MEDIA_STORE: %w", err)
	}
	ttl := cfg.MediaURLTTL
	if ttl == 0 {
		ttl = time.Hour
	}
	signer := &media.Signer{Key: mediaKey(cfg.SecretsKey, log), Base: cfg.BaseURL, TTL: ttl}
	if err := signer.Validate(); err != nil {
		_ = st.Close()
		return nil, nil, fmt.Errorf("media URLs: %w", err)
	}
	return st, signer, nil
}

// mediaKey derives the media-URL signing key from the secrets key, so every replica signs
// alike; without one, a random key per process (URLs then last until a restart).
func mediaKey(secretsKey string, log *slog.Logger) []byte {
	if secretsKey == "" {
		log.Warn("SWITCHBOARD_SECRETS_KEY is not set: media URLs are signed with a key of this process only")
		k := make([]byte, 32)
		_, _ = rand.Read(k)
		return k
	}
	m := hmac.New(sha256.New, []byte(secretsKey))
	m.Write([]byte("switchboard media url signing"))
	return m.Sum(nil)
}

// mediaConfig is what the messaging service needs of the store.
func mediaConfig(cfg Config, st *blob.Store, signer *media.Signer) messaging.MediaConfig {
	return messaging.MediaConfig{Store: st, URLs: signer, MaxBytes: cfg.MediaMaxBytes, Types: cfg.MediaTypes}
}
