package job

import (
	"errors"
	"fmt"
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

// The refusals, each built here once: the reservation (activities), the lifecycle and the
// upload's intake all refuse with these, so that a reason always comes with the same numbers and
// words. Where a caller knows more than the constructor (the plan's name, the pages so far), it
// says so with Saying; the reason and the numbers stay the constructor's.

// NoCredit refuses a user who has no credit left, or owes some: no job of theirs could start.
func NoCredit() *Refusal {
	return &Refusal{Reason: InsufficientCredits,
		Message: "no credits are available; buy a credit pack or wait for the next period"}
}

// ShortOfCredits refuses a job that needs need credits when available are left.
func ShortOfCredits(need int, available int64) *Refusal {
	return &Refusal{Reason: InsufficientCredits, CreditsNeeded: need, CreditsAvailable: available,
		Message: fmt.Sprintf("this job needs %d credits and %d are available", need, available)}
}

// AtJobLimit refuses a job beyond the plan's limit of concurrent jobs, worth trying again after
// retryAfter.
func AtJobLimit(retryAfter time.Duration) *Refusal {
	return &Refusal{Reason: TooManyJobs, RetryAfter: retryAfter,
		Message: "your plan's limit of concurrent jobs is reached; try again when a job finishes"}
}

// NotYours refuses touching another user's job.
func NotYours() *Refusal {
	return &Refusal{Reason: Forbidden, Message: "this job belongs to another user"}
}

// KeyBusy refuses an upload whose Idempotency-Key another upload, still streaming, holds.
func KeyBusy() *Refusal {
	return &Refusal{Reason: KeyInUse, RetryAfter: 5 * time.Second,
		Message: "an upload with this Idempotency-Key is still in progress; retry when it has finished"}
}

// Withdrawn refuses the reservation of an upload the API gave up on: its client was answered that
// the job could not be started.
func Withdrawn() *Refusal {
	return &Refusal{Reason: Unavailable, Message: "the upload was withdrawn before its credits were reserved"}
}

// NotReserved refuses a job whose reservation could not be made, for now (the reservation failed
// or never answered): trying again may succeed. Its words are in workflow state, so they never
// change.
func NotReserved() *Refusal {
	return &Refusal{Reason: Unavailable, Message: "credits could not be reserved; try again"}
}

// StateUnavailable refuses a read of a job's state that cannot be answered right now.
func StateUnavailable() *Refusal {
	return &Refusal{Reason: Unavailable, RetryAfter: 5 * time.Second,
		Message: "the job's state cannot be read right now; try again shortly"}
}

// Unsupported refuses a job no engine can translate: why says what is missing, and supported
// what can be served instead (nil when unknown).
func Unsupported(why string, supported []string) *Refusal {
	return &Refusal{Reason: UnsupportedPair, Message: why, Supported: supported}
}

// Saying gives the refusal a message that says more than the constructor's, and returns it.
func (r *Refusal) Saying(message string) *Refusal {
	r.Message = message
	return r
}
