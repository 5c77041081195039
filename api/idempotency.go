package api

// idempotencyHeader makes an upload safe to retry: the same key from the same user gets the
// first job back instead of starting, and paying for, a second one.
const idempotencyHeader = "Idempotency-Key"

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

// releaseUpload frees the key of an upload that did not become a job, so that the client can
// retry with it (after buying credits, say).
func (s *Server) releaseUpload(f *uploadForm) {
	if f != nil {
		s.Jobs.Release(f.UserID, f.idempotencyKey, f.JobID)
	}
}
