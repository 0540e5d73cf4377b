package blob

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func openFile(t *testing.T) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "not", "yet", "there")
	s, err := Open(context.Background(), "file://"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, dir
}

func openMem(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// backends runs a test against every store that needs no outside service.
func backends(t *testing.T, test func(t *testing.T, s *Store)) {
	t.Run("file", func(t *testing.T) { s, _ := openFile(t); test(t, s) })
	t.Run("mem", func(t *testing.T) { test(t, openMem(t)) })
}

func TestPutOpenDelete(t *testing.T) {
	backends(t, func(t *testing.T, s *Store) { putOpenDelete(t, s) })
}

// putOpenDelete is the round trip every backend must pass (the S3 test runs it too).
func putOpenDelete(t *testing.T, s *Store) {
	ctx := context.Background()
	key := "media/ws_1/inst_2/abc123"
	body := []byte("\x89PNG\r\n\x1a\n a picture")
	n, err := s.Put(ctx, key, "image/png", bytes.NewReader(body), 1<<20)
	if err != nil || n != int64(len(body)) {
		t.Fatalf("Put = %d, %v", n, err)
	}
	r, attrs, err := s.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	_ = r.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("read %q, %v", got, err)
	}
	if attrs.ContentType != "image/png" || attrs.Size != int64(len(body)) || attrs.ModTime.IsZero() {
		t.Errorf("attributes = %+v", attrs)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Open(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Errorf("Open after Delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Errorf("Delete of a missing blob: %v", err)
	}
	deletePrefix(t, s)
}

// deletePrefix: DeletePrefix removes a folder's blobs, nested ones included, and nothing
// beside it (not a sibling whose name merely starts the same); it refuses a prefix that is
// not a folder.
func deletePrefix(t *testing.T, s *Store) {
	ctx := context.Background()
	gone := []string{"media/ws_1/inst_2/a", "media/ws_1/inst_2/b", "media/ws_1/inst_2/sub/c"}
	kept := []string{"media/ws_1/inst_22/a", "media/ws_1/inst_3/a", "media/ws_2/inst_2/a"}
	for _, k := range append(append([]string{}, gone...), kept...) {
		if _, err := s.Put(ctx, k, "text/plain", strings.NewReader(k), 1<<10); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.DeletePrefix(ctx, "media/ws_1/inst_2/")
	if err != nil || n != len(gone) {
		t.Fatalf("DeletePrefix = %d, %v; want %d", n, err, len(gone))
	}
	for _, k := range gone {
		if _, _, err := s.Open(ctx, k); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s after DeletePrefix: %v", k, err)
		}
	}
	for _, k := range kept {
		r, _, err := s.Open(ctx, k)
		if err != nil {
			t.Errorf("%s was deleted too: %v", k, err)
			continue
		}
		_ = r.Close()
		if err := s.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.DeletePrefix(ctx, "media/ws_1/inst_2/"); err != nil || n != 0 {
		t.Errorf("DeletePrefix of an empty folder = %d, %v", n, err)
	}
	for _, bad := range []string{"", "/", "media/ws_1/inst_2", "media/../", "media//"} {
		if _, err := s.DeletePrefix(ctx, bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("DeletePrefix(%q) = %v, want ErrInvalidKey", bad, err)
		}
	}
}

func TestSniffsMissingOrMalformedContentType(t *testing.T) {
	backends(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, ct := range []string{"", "not a / type;;"} {
			if _, err := s.Put(ctx, "k", ct, strings.NewReader("%PDF-1.7 ..."), 100); err != nil {
				t.Fatalf("Put with %q: %v", ct, err)
			}
			r, attrs, err := s.Open(ctx, "k")
			if err != nil {
				t.Fatal(err)
			}
			_ = r.Close()
			if attrs.ContentType != "application/pdf" {
				t.Errorf("content type for declared %q = %q, want sniffed application/pdf", ct, attrs.ContentType)
			}
		}
	})
}

func TestSizeLimit(t *testing.T) {
	backends(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if n, err := s.Put(ctx, "exact", "text/plain", strings.NewReader("12345"), 5); err != nil || n != 5 {
			t.Fatalf("Put of exactly the limit = %d, %v", n, err)
		}
		_, err := s.Put(ctx, "over", "text/plain", strings.NewReader("123456"), 5)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("Put over the limit: %v, want ErrTooLarge", err)
		}
		if _, _, err := s.Open(ctx, "over"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Open of a refused blob: %v, want ErrNotFound", err)
		}
		// A refused rewrite leaves the blob already there untouched.
		_, err = s.Put(ctx, "exact", "text/plain", strings.NewReader("too long now"), 5)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("rewrite over the limit: %v", err)
		}
		r, _, err := s.Open(ctx, "exact")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if got, _ := io.ReadAll(r); string(got) != "12345" {
			t.Errorf("after a refused rewrite: %q", got)
		}
	})
}

// A refused or failed write leaves no file behind in the directory (no partial blob, no
// temporary file, no metadata sidecar).
func TestFileStoreLeavesNoPartialFiles(t *testing.T) {
	s, dir := openFile(t)
	ctx := context.Background()
	if _, err := s.Put(ctx, "media/w/i/big", "video/mp4", bytes.NewReader(make([]byte, 64<<10)), 1000); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Put: %v", err)
	}
	broken := io.MultiReader(strings.NewReader("half a file"), errReader{})
	if _, err := s.Put(ctx, "media/w/i/broken", "video/mp4", broken, 1000); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("Put from a failing reader: %v", err)
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left behind: %s", path)
		}
		return err
	})
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestSeek(t *testing.T) {
	backends(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if _, err := s.Put(ctx, "k", "text/plain", strings.NewReader("0123456789"), 100); err != nil {
			t.Fatal(err)
		}
		r, _, err := s.Open(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if end, err := r.Seek(0, io.SeekEnd); err != nil || end != 10 {
			t.Fatalf("Seek to end = %d, %v", end, err)
		}
		if _, err := r.Seek(6, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if got, _ := io.ReadAll(r); string(got) != "6789" {
			t.Errorf("after Seek(6): %q", got)
		}
	})
}

func TestInvalidKeys(t *testing.T) {
	bad := []string{"", "/abs", "a/../b", "..", "a/./b", "a//b", "a/", "a b", "a\nb", "a\\b", "é",
		"a/.hidden", "x.attrs", "a?b", "a%2fb", strings.Repeat("k", MaxKeyBytes+1)}
	backends(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, k := range bad {
			if _, err := s.Put(ctx, k, "text/plain", strings.NewReader("x"), 10); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("Put(%q): %v, want ErrInvalidKey", k, err)
			}
			if _, _, err := s.Open(ctx, k); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("Open(%q): %v, want ErrInvalidKey", k, err)
			}
			if err := s.Delete(ctx, k); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("Delete(%q): %v, want ErrInvalidKey", k, err)
			}
		}
	})
	for _, k := range []string{"a", "media/ws_1/inst-2/9f86d081884c7d65.jpg", "K=v/x_y", strings.Repeat("k", MaxKeyBytes)} {
		if !ValidKey(k) {
			t.Errorf("ValidKey(%q) = false", k)
		}
	}
}

func TestOpenURLs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ url, wantErr string }{
		{"file://" + filepath.ToSlash(filepath.Join(dir, "new", "dir")), ""},
		{"file://localhost" + filepath.ToSlash(dir), ""},
		{"mem://", ""},
		{"file://relative/dir", "absolute path"},
		{"file:relative", "absolute path"},
		{"file://" + filepath.ToSlash(dir) + "?create_dir=1", "no query"},
		{"file://" + filepath.ToSlash(filepath.Join(dir, "file")), "store directory"},
		{"mem://x", "just mem://"},
		{"gs://bucket", `unsupported store URL scheme "gs"`},
		{"/var/lib/media", `unsupported store URL scheme ""`},
		{"s3://", "names just the bucket"},
		{"s3://bucket/prefix", "names just the bucket"},
		{"s3://AKIAEXAMPLE:hunter2@bucket", "must not carry credentials"},
		{"s3://bucket?region=eu-west-1&secret_key=hunter2", `unknown S3 store URL parameters ["secret_key"]`},
		{"s3://bucket?region=eu-west-1&use_path_style=maybe", "use_path_style"},
	} {
		s, err := Open(ctx, tc.url)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("Open(%q): %v", tc.url, err)
				continue
			}
			_ = s.Close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("Open(%q) = %v, want an error containing %q", tc.url, err, tc.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q) error repeats a secret: %v", tc.url, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new", "dir")); err != nil {
		t.Errorf("the file store's directory was not created: %v", err)
	}
}

func TestReadyAndString(t *testing.T) {
	s, dir := openFile(t)
	if err := s.Ready(context.Background()); err != nil {
		t.Errorf("Ready: %v", err)
	}
	if s.String() != "file://"+filepath.ToSlash(dir) {
		t.Errorf("String() = %q", s.String())
	}
}
