package webhook

import (
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Our signature equals the reference library's for the same message.
func TestSignMatchesReference(t *testing.T) {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	ts := time.Unix(1700000000, 0)
	body := []byte(`{"id":"evt_1","type":"link.clicked","data":{}}`)
	ref, _ := standardwebhooks.NewWebhook(secret)
	want, err := ref.Sign("evt_1", ts, body)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Sign([]string{secret}, "evt_1", ts, body)
	if err != nil || got != want {
		t.Fatalf("Sign = %q, %v; reference %q", got, err, want)
	}
	two, _ := Sign([]string{"whsec_" + strings.Repeat("B", 32), secret}, "evt_1", ts, body)
	h := http.Header{}
	h.Set(HeaderID, "evt_1")
	h.Set(HeaderTimestamp, "1700000000")
	h.Set(HeaderSignature, two)
	if err := ref.VerifyIgnoringTimestamp(body, h); err != nil {
		t.Fatalf("reference rejects a two-signature header: %v", err)
	}
	if _, err := Sign([]string{"whsec_not base64!"}, "evt_1", ts, body); err == nil {
		t.Fatal("malformed secret accepted")
	}
}
