// Package blobstore opens the service's bucket through gocloud.dev and walks, counts and deletes
// what lies under a prefix. Where a job's files live is internal/job's naming rule.
package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// for one machine
	_ "gocloud.dev/blob/memblob"  // mem:// for tests
	_ "gocloud.dev/blob/s3blob"   // s3:// for production and S3-compatible stores
	"gocloud.dev/gcerrors"
)

// Open opens the bucket at url (file://, mem://, s3://).
func Open(ctx context.Context, url string) (*blob.Bucket, error) {
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("opening blob storage: %w", err)
	}
	return b, nil
}

// DeletePrefix removes every blob under prefix and reports how many it removed. Deleting what is
// already gone is not an error, so retries and races with expiry are harmless.
func DeletePrefix(ctx context.Context, b *blob.Bucket, prefix string) (int, error) {
	n := 0
	err := walk(ctx, b, prefix, func(key string) error {
		if err := b.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("deleting %s: %w", key, err)
		}
		n++
		return nil
	})
	return n, err
}

// Count reports how many blobs lie under prefix; tests use it to prove nothing was orphaned.
func Count(ctx context.Context, b *blob.Bucket, prefix string) (int, error) {
	n := 0
	err := walk(ctx, b, prefix, func(string) error { n++; return nil })
	return n, err
}

// walk calls fn once with the key of every blob under prefix. A file:// bucket lists a live
// directory, where a write in flight is a temporary file renamed into place: it can vanish
// between the directory's read and the look at the file, which fails the listing with NotFound.
// The listing is then simply taken again (a few times), skipping the keys already seen.
func walk(ctx context.Context, b *blob.Bucket, prefix string, fn func(key string) error) error {
	seen := map[string]bool{}
	once := func(key string) error {
		if seen[key] {
			return nil
		}
		seen[key] = true
		return fn(key)
	}
	for attempt := 1; ; attempt++ {
		err := walkOnce(ctx, b, prefix, once)
		if err == nil || !errors.Is(err, errListing) || !IsNotFound(err) || attempt == 5 || ctx.Err() != nil {
			return err
		}
	}
}

// errListing marks a failure of the listing itself, as opposed to fn's.
var errListing = errors.New("listing")

func walkOnce(ctx context.Context, b *blob.Bucket, prefix string, fn func(key string) error) error {
	it := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w %s: %w", errListing, prefix, err)
		}
		if obj.IsDir {
			continue
		}
		if err := fn(obj.Key); err != nil {
			return err
		}
	}
}

// IsNotFound reports whether err means the blob does not exist.
func IsNotFound(err error) bool { return gcerrors.Code(err) == gcerrors.NotFound }
