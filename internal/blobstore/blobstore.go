// Package blobstore opens the service's bucket through gocloud.dev and knows where a job's files
// live in it. Only keys, never image bytes, travel through workflows.
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

// JobPrefix is the folder holding everything of one job.
func JobPrefix(jobID string) string { return "jobs/" + jobID + "/" }

// InputKey is where the upload's page idx is kept; the name is ours, never the user's.
func InputKey(jobID string, idx int, ext string) string {
	return fmt.Sprintf("jobs/%s/in/%03d%s", jobID, idx, ext)
}

// OutputKey is where a translated page is kept, under its sanitized, unique output name.
func OutputKey(jobID, outputName string) string { return "jobs/" + jobID + "/out/" + outputName }

// TranscriptKey is where a translated page's transcript is kept, as JSON, beside the page. Output
// names always end in an image extension, so no page is ever called "transcripts" or "cleaned".
func TranscriptKey(jobID, outputName string) string {
	return "jobs/" + jobID + "/out/transcripts/" + outputName + ".json"
}

// CleanedKey is where a page with its lettering removed and none put back is kept.
func CleanedKey(jobID, outputName string) string {
	return "jobs/" + jobID + "/out/cleaned/" + outputName
}

// ZipKey is where the job's archive is kept.
func ZipKey(jobID string) string { return "jobs/" + jobID + "/pages.zip" }

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

// walk calls fn with the key of every blob under prefix.
func walk(ctx context.Context, b *blob.Bucket, prefix string, fn func(key string) error) error {
	it := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("listing %s: %w", prefix, err)
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
