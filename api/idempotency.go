package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/vtsproject/vts/internal/store"
)

// idempotencyHeader makes an upload safe to retry: the same key from the same user gets the
// first job back instead of starting, and paying for, a second one.
const idempotencyHeader = "Idempotency-Key"

// replayError carries the job an idempotent retry maps to; the handler answers with it.
type replayError struct{ job *store.Job }

func (e *replayError) Error() string { return "idempotent replay of job " + e.job.ID }

func validIdempotencyKey(k string) bool {
	if len(k) == 0 || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// claimUpload claims key for this upload's jobID. An earlier upload with the key that became a
// job is replayed; one still streaming is a 409, as two requests cannot both be the first.
func (s *Server) claimUpload(ctx context.Context, userID, key, jobID string) error {
	holder, err := s.Store.ClaimUploadKey(ctx, userID, key, jobID)
	if err != nil || holder == "" {
		return err
	}
	j, err := s.Store.GetJob(ctx, holder)
	if errors.Is(err, store.ErrNotFound) {
		return &Error{Status: http.StatusConflict, Code: "idempotency_key_in_use", RetryAfter: 5,
			Message: "an upload with this Idempotency-Key is still in progress; retry when it has finished"}
	}
	if err != nil {
		return err
	}
	return &replayError{job: j}
}

// releaseUpload frees the key of an upload that did not become a job, so that the client can
// retry with it (after buying credits, say).
func (s *Server) releaseUpload(f *uploadForm, jobID string) {
	if f == nil || f.idempotencyKey == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Store.ReleaseUploadKey(ctx, f.UserID, f.idempotencyKey, jobID); err != nil {
		s.Log.Error("releasing idempotency key failed", "job", jobID, "err", err)
	}
}
