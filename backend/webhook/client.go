package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/ssrf"
)

// userAgent identifies deliveries to receivers.
const userAgent = "Switchboard-Webhooks/1.0"

// newClient is the delivery HTTP client: every connection goes through the SSRF policy,
// no proxy (the policy must see the real destination), no redirects followed (a 3xx is the
// answer, and a failure), and the whole exchange bounded by timeout.
func newClient(policy *ssrf.Policy, timeout time.Duration, perHost int) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           policy.DialContext(&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}),
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   perHost,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// response is what an attempt learned.
type response struct {
	status     int
	body       string
	retryAfter time.Duration // from Retry-After on 429/503
	err        string        // why it failed, for the deliveries log
	latency    time.Duration
}

func (r response) ok() bool { return r.status >= 200 && r.status < 300 }

// post sends one signed request.
func post(ctx context.Context, c *http.Client, target string, headers http.Header, body []byte, now time.Time, timeout time.Duration) response {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return response{err: "invalid url"}
	}
	req.Header = headers
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return response{err: describe(err, timeout), latency: time.Since(start)}
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, domain.WebhookResponseBodyLimit))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	r := response{status: resp.StatusCode, body: domain.StorableText(string(head), 0), latency: time.Since(start)}
	switch {
	case r.ok():
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		r.err = fmt.Sprintf("redirect (%d) not followed: give the final URL", resp.StatusCode)
	case resp.StatusCode == http.StatusGone:
		r.err = "410 Gone: the endpoint is disabled"
	default:
		r.err = fmt.Sprintf("unexpected status %d", resp.StatusCode)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		r.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
	}
	return r
}

// maxRetryAfter caps how far a Retry-After header can push the next attempt.
const maxRetryAfter = 24 * time.Hour

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or unparseable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// describe turns a transport error into a short, useful line for the deliveries log.
func describe(err error, timeout time.Duration) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case ssrf.IsBlocked(err):
		var b *ssrf.BlockedError
		errors.As(err, &b)
		return fmt.Sprintf("refused: the endpoint resolves to a non-public address (%s); ask the operator to allow-list it", b.Why)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return fmt.Sprintf("timeout: no complete response within %s", timeout)
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "DNS: no such host " + dnsErr.Name
		}
		return "DNS lookup failed for " + dnsErr.Name
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "connection failed: " + opErr.Err.Error()
	}
	return err.Error()
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
