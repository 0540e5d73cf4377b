// Package blob stores files (received media) in a local directory, S3-compatible storage or
// memory, through gocloud.dev/blob. Keys are chosen by the caller and checked here.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

var (
	// ErrNotFound is a key with no blob.
	ErrNotFound = errors.New("blob: not found")
	// ErrTooLarge is a Put whose reader held more than its limit; nothing was stored.
	ErrTooLarge = errors.New("blob: larger than the size limit")
)

// Store is a bucket of blobs. It is safe for concurrent use.
type Store struct {
	b    *gcblob.Bucket
	name string
}

// Attributes describe a stored blob.
type Attributes struct {
	ContentType string
	Size        int64
	ModTime     time.Time
}

// String names the store for logs: scheme, bucket or directory, no query.
func (s *Store) String() string { return s.name }

// Put streams r into the blob at key and returns its size. More than maxBytes (which must be
// positive) is ErrTooLarge, and then the write is aborted: nothing is stored and a blob
// already at key is left as it was. An empty or malformed contentType is replaced by one
// sniffed from the first bytes, as providers' declared types are not always well-formed.
func (s *Store) Put(ctx context.Context, key, contentType string, r io.Reader, maxBytes int64) (int64, error) {
	if !ValidKey(key) {
		return 0, fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	if maxBytes <= 0 {
		return 0, errors.New("blob: Put needs a positive size limit")
	}
	if _, _, err := mime.ParseMediaType(contentType); err != nil {
		contentType = ""
	}
	// Cancelling the writer's context before Close is gocloud's way to abort a write: no
	// partial object becomes visible (fileblob removes its temporary file, S3 aborts the
	// upload).
	wctx, abort := context.WithCancel(ctx)
	defer abort()
	w, err := s.b.NewWriter(wctx, key, &gcblob.WriterOptions{ContentType: contentType})
	if err != nil {
		return 0, fmt.Errorf("blob: write %s: %w", key, err)
	}
	n, err := io.Copy(w, io.LimitReader(r, maxBytes+1))
	if err == nil && n > maxBytes {
		err = ErrTooLarge
	}
	if err != nil {
		abort()
		_ = w.Close()
		if errors.Is(err, ErrTooLarge) {
			return 0, err
		}
		return 0, fmt.Errorf("blob: write %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("blob: write %s: %w", key, err)
	}
	return n, nil
}

// Open opens the blob at key for reading. The reader seeks cheaply (a seek only moves an
// offset; the next read asks the backend for that range), so http.ServeContent can answer
// Range requests with it. The caller closes it.
func (s *Store) Open(ctx context.Context, key string) (io.ReadSeekCloser, Attributes, error) {
	if !ValidKey(key) {
		return nil, Attributes{}, fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	r, err := s.b.NewReader(ctx, key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, Attributes{}, ErrNotFound
		}
		return nil, Attributes{}, fmt.Errorf("blob: read %s: %w", key, err)
	}
	return r, Attributes{ContentType: r.ContentType(), Size: r.Size(), ModTime: r.ModTime()}, nil
}

// Delete removes the blob at key; a missing blob is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if !ValidKey(key) {
		return fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	if err := s.b.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}

// DeletePrefix deletes every blob whose key starts with prefix, which must be a valid key
// followed by "/" (a whole folder, never part of a name), and returns how many it deleted.
// Blobs gone meanwhile are not an error; on an error the rest stay, for a retry.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) (int, error) {
	if !strings.HasSuffix(prefix, "/") || !ValidKey(strings.TrimSuffix(prefix, "/")) {
		return 0, fmt.Errorf("%w: prefix %q", ErrInvalidKey, prefix)
	}
	n := 0
	it := s.b.List(&gcblob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("blob: list %s: %w", prefix, err)
		}
		if obj.IsDir {
			continue
		}
		if err := s.Delete(ctx, obj.Key); err != nil {
			return n, err
		}
		n++
	}
}

// Ready reports whether the store can be reached (for a readiness probe).
func (s *Store) Ready(ctx context.Context) error {
	ok, err := s.b.IsAccessible(ctx)
	if err != nil {
		return fmt.Errorf("blob: %s: %w", s.name, err)
	}
	if !ok {
		return fmt.Errorf("blob: %s is not accessible", s.name)
	}
	return nil
}

// Close releases the store's resources.
func (s *Store) Close() error { return s.b.Close() }
