package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks headers (https://www.standardwebhooks.com).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

const secretPrefix = "whsec_"

// Sign returns the webhook-signature header value for a message: one "v1,<base64 HMAC-SHA256
// of id.timestamp.body>" per secret, space-separated (after rotations, one per secret still
// signing, and receivers accept any). Secrets are "whsec_" + base64 of the key.
func Sign(secrets []string, msgID string, ts time.Time, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", errors.New("webhook: no signing secret")
	}
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, secretPrefix))
		if err != nil {
			return "", errors.New("webhook: malformed signing secret")
		}
		sigs = append(sigs, "v1,"+signature(key, msgID, ts, body))
	}
	return strings.Join(sigs, " "), nil
}

func signature(key []byte, msgID string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(ts.Unix(), 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Tolerance is how far a signed message's timestamp may be from now when verified.
const Tolerance = 5 * time.Minute

// Verify checks a Standard Webhooks signature made with secret: one of the space-separated
// "v1,<signature>" values must match (compared in constant time) and the timestamp must be
// within Tolerance of now, so a captured call cannot be replayed later.
func Verify(secret, msgID, timestamp, signatures string, body []byte, now time.Time) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || len(key) == 0 {
		return errors.New("malformed secret")
	}
	if msgID == "" || timestamp == "" || signatures == "" {
		return errors.New("missing webhook-id, webhook-timestamp or webhook-signature")
	}
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not a Unix time in seconds")
	}
	ts := time.Unix(sec, 0)
	if d := now.Sub(ts); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("webhook-timestamp is %s from now; at most %s is accepted (check the sender's clock, and sign each try anew)",
			d.Round(time.Second).Abs(), Tolerance)
	}
	want := []byte(signature(key, msgID, ts, body))
	for _, s := range strings.Fields(signatures) {
		v, sig, ok := strings.Cut(s, ",")
		if ok && v == "v1" && hmac.Equal([]byte(sig), want) {
			return nil
		}
	}
	return errors.New("no v1 signature in webhook-signature matches the id, timestamp and body (a wrong secret, or a body changed after signing)")
}
