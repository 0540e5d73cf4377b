package messaging

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/blob"
	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// This file brings received media into Switchboard: a channel reports a provider reference
// (Telegram's file_id, WhatsApp's media id), and before the message is stored its
// channel.event job downloads the file into the blob store. Messages then show media.url as
// a short-lived signed URL served by Switchboard (/media/...), never the provider's.

// MediaStore keeps received files (the blob store: a directory, or S3-compatible storage).
type MediaStore interface {
	// Put stores r under key, refusing more than maxBytes with blob.ErrTooLarge.
	Put(ctx context.Context, key, contentType string, r io.Reader, maxBytes int64) (int64, error)
	// DeletePrefix deletes every file under a folder ("media/ws_…/ins_…/").
	DeletePrefix(ctx context.Context, prefix string) (int, error)
}

// MediaSigner makes the short-lived URL a stored file is served at.
type MediaSigner interface {
	URL(key string) string
}

// MediaConfig is where received media goes and what is accepted.
type MediaConfig struct {
	// Store keeps the files; nil keeps none (messages show their media without a url).
	Store MediaStore
	URLs  MediaSigner
	// MaxBytes bounds one file (default DefaultMediaMaxBytes).
	MaxBytes int64
	// Types are the accepted media types, exact ("application/pdf") or by family
	// ("image/*"); default DefaultMediaTypes.
	Types []string
}

// DefaultMediaMaxBytes is 20 MiB, the most the Telegram Bot API lets a bot download.
const DefaultMediaMaxBytes = 20 << 20

// DefaultMediaTypes are the media types kept by default: what people send in chats.
var DefaultMediaTypes = []string{"image/*", "video/*", "audio/*", "application/*", "text/plain"}

// Why received media was not stored (domain.Media.NotStored).
const (
	notStoredTooLarge    = "too_large"
	notStoredType        = "type_not_allowed"
	notStoredUnavailable = "unavailable"
)

func (m MediaConfig) withDefaults() MediaConfig {
	if m.MaxBytes <= 0 {
		m.MaxBytes = DefaultMediaMaxBytes
	}
	if len(m.Types) == 0 {
		m.Types = DefaultMediaTypes
	}
	return m
}

// allows reports whether a media type is accepted (parameters such as charset ignored).
func (m MediaConfig) allows(contentType string) bool {
	t, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	for _, p := range m.Types {
		if p == t || p == "*/*" || (strings.HasSuffix(p, "/*") && strings.HasPrefix(t, strings.TrimSuffix(p, "*"))) {
			return true
		}
	}
	return false
}

// mediaKey is where an inbound message's file is stored: the same key for the same
// provider message, so a retried download replaces, never duplicates. Every file of an
// instance is under its mediaFolder.
func mediaKey(inst store.StoredInstance, providerMessageID string) string {
	sum := sha256.Sum256([]byte(providerMessageID))
	return mediaFolder(inst.WorkspaceID, inst.ID) + hex.EncodeToString(sum[:16])
}

func mediaFolder(workspaceID, instanceID string) string {
	return "media/" + workspaceID + "/" + instanceID + "/"
}

// mediaDeletePayload is the payload of a media.delete job.
type mediaDeletePayload struct {
	WorkspaceID string `json:"workspace_id"`
	InstanceID  string `json:"instance_id"`
}

// deleteMediaLater queues, in the transaction that deletes an instance, the job that deletes
// its files: the store is outside the database, so the files go once the deletion has
// committed, and a failure is retried rather than leaving them for ever.
func (c *core) deleteMediaLater(ctx context.Context, tx *store.Tx, workspaceID, instanceID string, now time.Time) error {
	if c.cfg.Media.Store == nil {
		return nil
	}
	payload, _ := json.Marshal(mediaDeletePayload{WorkspaceID: workspaceID, InstanceID: instanceID})
	return jobs.Enqueue(ctx, tx, now, jobs.NewJob{Kind: domain.JobMediaDelete, Payload: string(payload),
		MaxAttempts: len(mediaDeleteSchedule) + 1})
}

// mediaDeleteSchedule spaces the retries of a media.delete job over about a day (a bucket
// unreachable for hours).
var mediaDeleteSchedule = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour}

var mediaDeleteBackoff = jobs.Schedule(mediaDeleteSchedule...)

// runMediaDelete deletes a deleted instance's files.
func (c *core) runMediaDelete(ctx context.Context, j *jobs.Job) error {
	var p mediaDeletePayload
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.WorkspaceID == "" || p.InstanceID == "" {
		return jobs.Permanent(fmt.Errorf("media.delete payload %q: %v", j.Payload, err))
	}
	if c.cfg.Media.Store == nil {
		return nil
	}
	n, err := c.cfg.Media.Store.DeletePrefix(ctx, mediaFolder(p.WorkspaceID, p.InstanceID))
	if err != nil {
		return err
	}
	c.log.Info("deleted a deleted instance's media", "instance_id", p.InstanceID, "files", n)
	return nil
}

// fetchMedia downloads an inbound message's media into the store and records where it
// went (or why it did not) on the message. A failure that may pass is returned (the job
// retries) until the last attempt, which stores the message without its file rather than
// lose it.
func (c *core) fetchMedia(ctx context.Context, inst store.StoredInstance, ib *channels.Inbound, lastAttempt bool) error {
	md := domain.Media{}
	if ib.Content.Media != nil {
		md = *ib.Content.Media
	}
	ib.Content.Media = &md
	cfg := c.cfg.Media
	d, err := c.driver(inst)
	if err != nil {
		return err
	}
	fetcher, ok := d.(channels.MediaFetcher)
	if cfg.Store == nil || !ok {
		md.NotStored = notStoredUnavailable
		return nil
	}
	if md.MimeType != "" && !cfg.allows(md.MimeType) {
		md.NotStored = notStoredType
		return nil
	}
	v, err := c.view(inst)
	if err != nil {
		return err
	}
	err = c.download(ctx, fetcher, v, inst, ib, &md)
	var rl *channels.RateLimitedError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, channels.ErrMediaTooLarge) || errors.Is(err, blob.ErrTooLarge):
		md.NotStored = notStoredTooLarge
		return nil
	case errors.Is(err, errMediaType):
		md.NotStored = notStoredType
		return nil
	case lastAttempt:
		c.log.Warn("received media could not be downloaded; the message is kept without it",
			"instance_id", inst.ID, "error", err)
		md.NotStored = notStoredUnavailable
		return nil
	case errors.As(err, &rl):
		return jobs.RetryAfter(err, rl.RetryAfter)
	}
	return err
}

var errMediaType = errors.New("media type not allowed")

func (c *core) download(ctx context.Context, f channels.MediaFetcher, v channels.Instance, inst store.StoredInstance,
	ib *channels.Inbound, md *domain.Media) error {
	cfg := c.cfg.Media
	file, err := f.FetchMedia(ctx, v, ib.MediaRef, cfg.MaxBytes)
	if err != nil {
		return err
	}
	defer file.Body.Close()
	typ := file.ContentType
	if typ == "" || typ == "application/octet-stream" {
		typ = md.MimeType // the provider's download may say less than its message did
	}
	if typ == "" {
		typ = "application/octet-stream"
	}
	if !cfg.allows(typ) {
		return errMediaType
	}
	if file.Size > cfg.MaxBytes {
		return channels.ErrMediaTooLarge
	}
	key := mediaKey(inst, ib.ProviderMessageID)
	size, err := cfg.Store.Put(ctx, key, typ, file.Body, cfg.MaxBytes)
	if err != nil {
		return err
	}
	md.BlobKey, md.Size, md.MimeType, md.NotStored = key, size, typ, ""
	if md.FileName == "" {
		md.FileName = file.FileName
	}
	return nil
}

// present returns m as clients see it: stored media gets a fresh signed URL.
func (c *core) present(m domain.Message) domain.Message {
	md := m.Content.Media
	if md == nil || md.BlobKey == "" || c.cfg.Media.URLs == nil {
		return m
	}
	cp := *md
	cp.URL = c.cfg.Media.URLs.URL(md.BlobKey)
	m.Content.Media = &cp
	return m
}

// presentChat is present for a chat's last message.
func (c *core) presentChat(ch domain.Chat) domain.Chat {
	if ch.LastMessage != nil {
		m := c.present(*ch.LastMessage)
		ch.LastMessage = &m
	}
	return ch
}
