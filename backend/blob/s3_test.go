package blob

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestS3 opens an s3:// URL the way an operator writes one for MinIO or R2 (endpoint,
// path-style addressing, credentials from the environment) against gofakes3, an S3 server
// running in this process.
func TestS3(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("media-bucket"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)

	// Keep the SDK's credential chain on these variables: no shared files of the machine,
	// no instance metadata lookups.
	t.Setenv("AWS_ACCESS_KEY_ID", "test-key-id")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_PROFILE", "")

	ctx := context.Background()
	s, err := Open(ctx, "s3://media-bucket?region=us-east-1&use_path_style=true&endpoint="+url.QueryEscape(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if s.String() != "s3://media-bucket" {
		t.Errorf("String() = %q", s.String())
	}
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("Ready: %v", err)
	}

	putOpenDelete(t, s)

	if _, err := s.Put(ctx, "media/w/i/over", "text/plain", strings.NewReader("123456"), 5); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Put over the limit: %v", err)
	}
	if _, _, err := s.Open(ctx, "media/w/i/over"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Open of a refused blob: %v, want ErrNotFound", err)
	}

	// Past the SDK's 5 MB part size the upload is multipart; a refused one is aborted too.
	big := bytes.Repeat([]byte("0123456789abcdef"), 7<<16) // 7 MiB
	if n, err := s.Put(ctx, "media/w/i/big", "video/mp4", bytes.NewReader(big), 8<<20); err != nil || n != int64(len(big)) {
		t.Fatalf("multipart Put = %d, %v", n, err)
	}
	r, attrs, err := s.Open(ctx, "media/w/i/big")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	_ = r.Close()
	if err != nil || !bytes.Equal(got, big) || attrs.Size != int64(len(big)) {
		t.Fatalf("multipart read: %d bytes, %v, %+v", len(got), err, attrs)
	}
	if _, err := s.Put(ctx, "media/w/i/big-over", "video/mp4", bytes.NewReader(big), 6<<20); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("multipart Put over the limit: %v", err)
	}
	if _, _, err := s.Open(ctx, "media/w/i/big-over"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Open of a refused multipart blob: %v, want ErrNotFound", err)
	}

	missing, err := Open(ctx, "s3://no-such-bucket?region=us-east-1&use_path_style=true&endpoint="+url.QueryEscape(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer missing.Close()
	if err := missing.Ready(ctx); err == nil {
		t.Error("Ready of a missing bucket: no error")
	}
}
