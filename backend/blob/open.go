package blob

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/blob/s3blob"
)

// s3Params are the query parameters gocloud's s3blob (v0.43) understands. We check them
// ourselves before opening: s3blob quotes the whole URL in its errors, so refusing
// unknown parameters first keeps anything pasted there (a secret by mistake) out of
// error text and logs.
var s3Params = []string{
	"region", "endpoint", "profile", "hostname_immutable", "dualstack", "fips", "anonymous",
	"rate_limiter_capacity", "use_path_style", "s3ForcePathStyle", "disable_https",
	"accelerate", "ssetype", "kmskeyid",
}

// Open opens the store named by rawURL:
//
//   - file:///abs/dir: a local directory, created if missing (the default).
//   - s3://bucket?region=…[&endpoint=https://…&use_path_style=true]: AWS S3 or an
//     S3-compatible service (MinIO, R2). Credentials come from the AWS SDK's usual chain
//     (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE and shared files, an IAM role),
//     never from the URL.
//   - mem://: in memory, for tests; lost on exit.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Parse's error quotes the input; say less in case it held a secret.
		return nil, errors.New("blob: the store URL does not parse")
	}
	if u.User != nil {
		return nil, errors.New("blob: the store URL must not carry credentials; " +
			"S3 credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)")
	}
	var b *gcblob.Bucket
	switch u.Scheme {
	case "file":
		b, err = openDir(u)
	case "mem":
		if u.Host != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return nil, errors.New("blob: a memory store's URL is just mem://")
		}
		b = memblob.OpenBucket(nil)
	case "s3":
		b, err = openS3(ctx, u)
	default:
		return nil, fmt.Errorf("blob: unsupported store URL scheme %q (use file:///abs/dir or s3://bucket; mem:// is for tests)", u.Scheme)
	}
	if err != nil {
		return nil, err
	}
	return &Store{b: b, name: u.Scheme + "://" + u.Host + u.Path}, nil
}

// Check tells whether Open would accept rawURL, creating nothing: a file store's directory is
// not made (Open makes it); any other store is opened and closed, which reaches no network (an
// S3 client connects on first use). Configuration checks list its error with the others.
func Check(rawURL string) error {
	if u, err := url.Parse(rawURL); err == nil && u.Scheme == "file" && u.User == nil {
		_, err := fileDir(u)
		return err
	}
	st, err := Open(context.Background(), rawURL)
	if err == nil {
		err = st.Close()
	}
	return err
}

// fileDir is the directory a file store's URL names, or why the URL names none.
func fileDir(u *url.URL) (string, error) {
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("blob: a file store's URL takes an absolute path, as in file:///var/lib/switchboard/media (got host %q)", u.Host)
	}
	if u.RawQuery != "" {
		return "", errors.New("blob: a file store's URL takes no query parameters")
	}
	dir := filepath.FromSlash(u.Path)
	if !filepath.IsAbs(dir) {
		return "", errors.New("blob: a file store's URL takes an absolute path, as in file:///var/lib/switchboard/media")
	}
	return dir, nil
}

func openDir(u *url.URL) (*gcblob.Bucket, error) {
	dir, err := fileDir(u)
	if err != nil {
		return nil, err
	}
	// Files from strangers: not for other users of the machine.
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("blob: create the store directory: %w", err)
	}
	// NoTempDir: temporary files go next to their final path, so the closing rename never
	// crosses file systems (the default, os.TempDir, is often another mount).
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{DirFileMode: 0o750, NoTempDir: true})
	if err != nil {
		return nil, fmt.Errorf("blob: open the store directory: %w", err)
	}
	return b, nil
}

func openS3(ctx context.Context, u *url.URL) (*gcblob.Bucket, error) {
	if u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, errors.New("blob: an S3 store's URL names just the bucket, as in s3://my-bucket?region=eu-west-1")
	}
	q := u.Query()
	var unknown []string
	for k := range q {
		if !slices.Contains(s3Params, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("blob: unknown S3 store URL parameters %q (known: %q)", unknown, s3Params)
	}
	b, err := (&s3blob.URLOpener{}).OpenBucketURL(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("blob: open S3 bucket %q: %w", u.Host, err)
	}
	return b, nil
}
