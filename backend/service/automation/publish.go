package automation

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"mime"
	"net/url"
	"reflect"
	"slices"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/jobs"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/webhook"
)

// Call is an inbound call to /hooks/{token} as the handler read it.
type Call struct {
	Token       string
	ContentType string
	Body        []byte
	// IdempotencyKey (or, when absent, the Standard Webhooks webhook-id) deduplicates a
	// retried call.
	IdempotencyKey string
	// Standard Webhooks headers, and the shared token header.
	WebhookID, WebhookTimestamp, WebhookSignature string
	HeaderToken                                   string
}

// errUnknownEndpoint is the answer for every token that does not name an enabled endpoint
// (never telling which, nor anything about a workspace).
var errUnknownEndpoint = &domain.Error{Code: domain.CodeNotFound, Reason: "not_found", Message: "no such endpoint"}

// badSignature says why a Standard Webhooks call does not verify (headers missing, a
// timestamp too far from now, no signature matching): the reasons name no secret, and a
// developer wiring a tool up needs them.
func badSignature(why error) error {
	return &domain.Error{Code: domain.CodeUnauthenticated, Reason: "invalid_signature",
		Message: "the call does not verify with this endpoint's secret: " + why.Error()}
}

// endpoint finds the enabled endpoint of a token (cached; every change drops it).
func (a *Automation) endpoint(ctx context.Context, token string) (store.StoredPublisher, error) {
	if token == "" || len(token) > 128 {
		return store.StoredPublisher{}, errUnknownEndpoint
	}
	hash := service.HashToken(token)
	a.mu.RLock()
	p, ok := a.tokens[hash]
	gen := a.gen
	a.mu.RUnlock()
	if !ok {
		var err error
		if p, err = a.st.PublisherByTokenHash(ctx, hash); err != nil {
			if domain.IsCode(err, domain.CodeNotFound) {
				return p, errUnknownEndpoint
			}
			return p, err
		}
		a.remember(hash, p, gen)
	}
	if !p.Enabled {
		return p, errUnknownEndpoint
	}
	return p, nil
}

// remember caches an endpoint loaded when the cache's generation was gen, unless an
// invalidation came since: the load may have read the endpoint before that change (its
// token rotated, the endpoint disabled or deleted), and kept, the old state would answer
// on this replica until the next change.
func (a *Automation) remember(hash string, p store.StoredPublisher, gen uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gen != gen {
		return
	}
	if len(a.tokens) > 10_000 {
		clear(a.tokens)
	}
	a.tokens[hash] = p
}

// Publish accepts a call: verified, read as JSON (a form is turned into an object),
// checked against the endpoint's schema, then stored with its automation.published event
// and, when the endpoint has an action, a queued run — all in one transaction, so a 202
// is never lost. A call whose key the endpoint already accepted is answered with the first
// one (replayed true) and stores nothing.
func (a *Automation) Publish(ctx context.Context, call Call) (domain.Published, bool, error) {
	return a.publish(ctx, call.Token, call, true)
}

func (a *Automation) publish(ctx context.Context, token string, call Call, verify bool) (domain.Published, bool, error) {
	p, err := a.endpoint(ctx, token)
	if err != nil {
		return domain.Published{}, false, err
	}
	if verify {
		if err := a.verify(p, call); err != nil {
			return domain.Published{}, false, err
		}
	}
	payload, err := readPayload(call.ContentType, call.Body)
	if err != nil {
		return domain.Published{}, false, err
	}
	if len(p.Schema) > 0 {
		sch, err := a.schemas.get(p.ID+"@"+p.UpdatedAt.String(), p.Schema)
		if err != nil {
			return domain.Published{}, false, domain.Internal(err)
		}
		inst, err := decodeAny(payload)
		if err != nil {
			return domain.Published{}, false, domain.Invalid("", "the body is not valid JSON")
		}
		if err := sch.Validate(inst); err != nil {
			where, what := violation(err)
			return domain.Published{}, false, &domain.Error{Code: domain.CodeInvalid, Reason: "schema_mismatch",
				Param: where, Message: "the payload does not match the endpoint's schema at " + pointer(where) + ": " + what}
		}
	}
	key, keyHeader := call.IdempotencyKey, "Idempotency-Key"
	if key == "" {
		key, keyHeader = call.WebhookID, "webhook-id"
	}
	if len(key) > MaxDedupeKeyLength {
		return domain.Published{}, false, domain.Invalid(keyHeader, "the idempotency key is at most %d characters", MaxDedupeKeyLength)
	}
	now := a.s.Clock().Now()
	c := domain.Published{ID: domain.NewID(domain.PrefixEvent), WorkspaceID: p.WorkspaceID, EndpointID: p.ID, DedupeKey: key,
		Payload: payload, ReceivedAt: now}
	if key == "" {
		err := a.batch.publish(ctx, &pendingCall{p: p, c: c})
		return c, false, err
	}
	return a.storeOne(ctx, p, c, keyHeader)
}

// storeOne stores one call in a transaction of its own (a call with a dedupe key, from the
// header keyHeader: it may be a replay or a conflict).
func (a *Automation) storeOne(ctx context.Context, p store.StoredPublisher, c domain.Published, keyHeader string) (domain.Published, bool, error) {
	replayed := false
	err := a.st.Tx(ctx, func(tx *store.Tx) error {
		stored, inserted, err := tx.InsertCall(ctx, c)
		if err != nil {
			return err
		}
		if !inserted {
			if !samePayload(stored.Payload, c.Payload) {
				return &domain.Error{Code: domain.CodeConflict, Reason: "idempotency_conflict", Param: keyHeader,
					Message: "this key was already used for another payload on this endpoint"}
			}
			c, replayed = stored, true
			return nil
		}
		if _, err := a.s.RecordAll(ctx, tx, []service.EventRecord{publishedEvent(p, c)}); err != nil {
			return err
		}
		run, job, ok := queuedRun(p, c)
		if !ok {
			return nil
		}
		if err := tx.InsertRun(ctx, run); err != nil {
			return err
		}
		return jobs.Enqueue(ctx, tx, c.ReceivedAt, job)
	})
	return c, replayed, err
}

// publishedEvent is a stored call's automation.published event.
func publishedEvent(p store.StoredPublisher, c domain.Published) service.EventRecord {
	return service.EventRecord{ID: c.ID, WorkspaceID: p.WorkspaceID, Type: domain.EventAutomationPublished, Data: c.Object()}
}

// queuedRun is the run (and its job) a call starts when its endpoint has an action.
func queuedRun(p store.StoredPublisher, c domain.Published) (domain.Run, jobs.NewJob, bool) {
	if p.Action == nil {
		return domain.Run{}, jobs.NewJob{}, false
	}
	now := c.ReceivedAt
	run := domain.Run{ID: domain.NewID(domain.PrefixRun), WorkspaceID: p.WorkspaceID, EndpointID: p.ID, CallID: c.ID,
		ActionType: p.Action.Type, Status: domain.RunQueued, CreatedAt: now, UpdatedAt: now}
	return run, jobs.NewJob{ID: run.ID, Kind: domain.JobAutomationAction, Payload: "{}", MaxAttempts: len(actionBackoff) + 1}, true
}

// verify checks the caller with the endpoint's secret.
func (a *Automation) verify(p store.StoredPublisher, call Call) error {
	if p.Verification == domain.VerifyNone {
		return nil
	}
	secret, err := a.s.Open(p.SealedSecret)
	if err != nil {
		return domain.Internal(err)
	}
	switch p.Verification {
	case domain.VerifyStandardWebhooks:
		if err := webhook.Verify(secret, call.WebhookID, call.WebhookTimestamp, call.WebhookSignature, call.Body, a.s.Clock().Now()); err != nil {
			return badSignature(err)
		}
	case domain.VerifyHeaderToken:
		if subtle.ConstantTimeCompare([]byte(call.HeaderToken), []byte(secret)) != 1 {
			return &domain.Error{Code: domain.CodeUnauthenticated, Reason: "invalid_token",
				Message: "the " + HeaderToken + " header does not match this endpoint's secret"}
		}
	}
	return nil
}

// readPayload turns a body into the stored JSON: JSON as sent (any JSON value), a form as
// an object of its fields (a field sent more than once becomes a list).
func readPayload(contentType string, body []byte) (json.RawMessage, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "application/json", "":
		// A byte-order mark is not JSON, but some clients write one (Windows PowerShell's
		// files, .NET): RFC 8259 lets a parser ignore it, and a tool's call should not fail on it.
		body = bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
		if len(body) == 0 || !json.Valid(body) {
			return nil, domain.Invalid("", "the body is not valid JSON")
		}
		// JSON is UTF-8 (RFC 8259); json.Valid lets other bytes through inside strings, which
		// PostgreSQL refuses and SQLite would store and serve back as invalid JSON.
		if !utf8.Valid(body) {
			return nil, domain.Invalid("", "the body is not valid JSON: it must be UTF-8")
		}
		return json.RawMessage(body), nil
	case "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, domain.Invalid("", "the form body could not be read")
		}
		// Decoded, a form's names and values must be UTF-8 as JSON's are: other bytes would
		// be stored as U+FFFD, silently changing what was sent.
		for k, vs := range vals {
			if !utf8.ValidString(k) || slices.ContainsFunc(vs, func(v string) bool { return !utf8.ValidString(v) }) {
				return nil, domain.Invalid("", "the form body is not UTF-8")
			}
		}
		obj := make(map[string]any, len(vals))
		for k, v := range vals {
			if len(v) == 1 {
				obj[k] = v[0]
			} else {
				obj[k] = v
			}
		}
		b, err := domain.Encode(obj)
		return json.RawMessage(b), err
	}
	return nil, &domain.Error{Code: domain.CodeInvalid, Reason: "unsupported_media_type",
		Message: "send JSON (application/json) or a form (application/x-www-form-urlencoded)"}
}

// samePayload tells whether two payloads are the same JSON value: a retry re-encoded by the
// sender (other spacing, keys in another order, "\u00e9" for "é") is the same call, as a form
// with its fields in another order already is (a form is stored as its JSON object).
func samePayload(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, errA := decodeAny(a)
	vb, errB := decodeAny(b)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
}

func decodeAny(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// pointer shows a JSON pointer ("" is the whole payload).
func pointer(p string) string {
	if p == "" {
		return "the top level"
	}
	return p
}
