package whatsappcloud

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// maxResponse bounds what we read of a Graph API answer (they are a few hundred bytes).
const maxResponse = 1 << 20

// call makes one Graph API request: path is below the version (escaped by the caller), body
// is sent as JSON when not nil, and a 2xx answer is decoded into out. Any other answer is a
// *graphFailure; a transport failure is returned as is. The token travels only in the
// Authorization header, so no error text (which holds the URL) can carry it.
func (d *Driver) call(ctx context.Context, a account, method, path string, query url.Values, body, out any) error {
	u := d.opts.GraphURL + "/" + d.opts.APIVersion + "/" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return d.do(req, a, out)
}

// do sends a Graph API request built by the caller (call, upload) with the token, and
// reads the answer as call describes.
func (d *Driver) do(req *http.Request, a account, out any) error {
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Accept", "application/json")
	resp, err := d.opts.Client.Do(req)
	if err != nil {
		return fmt.Errorf("could not reach the WhatsApp Cloud API: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return fmt.Errorf("reading the WhatsApp Cloud API's answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return failureOf(resp, raw, a)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("the WhatsApp Cloud API answered HTTP %d with unexpected JSON: %w", resp.StatusCode, err)
	}
	return nil
}
