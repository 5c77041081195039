package job

import (
	"errors"
	"time"
)

// ErrNotFound means there is no such job, or no longer: it was deleted.
var ErrNotFound = errors.New("no such job")

// Reason is why a job was refused, or could not be started.
type Reason string

// Reasons for refusing a job. A reservation's answer is recorded in workflow histories with its
// reason, so these values never change.
const (
	// InsufficientCredits: the user's credits do not cover the job, or the user owes credits.
	InsufficientCredits Reason = "insufficient_credits"
	// TooManyJobs: the plan's limit of concurrent jobs is reached.
	TooManyJobs Reason = "concurrency_limit"
	// UnsupportedPair: no engine translates these languages in this mode.
	UnsupportedPair Reason = "unsupported_language"
	// Forbidden: the job belongs to another user.
	Forbidden Reason = "forbidden"
	// KeyInUse: another upload with the same Idempotency-Key is still streaming.
	KeyInUse Reason = "idempotency_key_in_use"
	// Unavailable: the credits could not be reserved, for now; trying again may succeed.
	Unavailable Reason = "unavailable"
)

// Refusal is a job that was not started or not deleted, and why. It is an error, which the API
// answers, by its reason, in one place.
type Refusal struct {
	Reason  Reason
	Message string // what the user reads
	// CreditsNeeded and CreditsAvailable are the reservation's numbers when it found the credits
	// short; both are zero when the upload was refused before (the user had no credit at all).
	CreditsNeeded    int
	CreditsAvailable int64
	// RetryAfter is when trying again makes sense (TooManyJobs, KeyInUse).
	RetryAfter time.Duration
	// Supported lists what can be served instead (UnsupportedPair).
	Supported []string
}

func (r *Refusal) Error() string { return string(r.Reason) + ": " + r.Message }
