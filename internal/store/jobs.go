package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/plans"
)

// Job is a job's durable record.
type Job struct {
	ID     string
	UserID string
	Status job.Status
	// Spec is the job's spec but its glossary, which is not kept: Glossary is always "".
	job.Spec
	Total             int
	Progress          int
	Plan              string
	Retention         time.Duration
	CreditsReserved   int
	AllowanceReserved int
	PurchasedReserved int
	AllowanceEpoch    int64 // the user's allowance epoch when the job reserved
	CreditsCharged    int
	CreditsRefunded   int
	AllowanceLapsed   int
	Results           []job.PageResult
	Errors            []job.PageError
	ZipKey            string
	ZipSize           int64
	CreatedAt         time.Time
	SettledAt         *time.Time
	CompletedAt       *time.Time
	ExpiresAt         *time.Time
	DeletedAt         *time.Time
	ExpiredAt         *time.Time
}

// Terminal reports whether the job has reached completed or failed.
func (j *Job) Terminal() bool { return j.Status.Terminal() }

const jobColumns = `id::text, user_id, status, mode, resolution, source_lang, target_lang, custom_prompt, total,
	progress, plan, retention_seconds, credits_reserved, allowance_reserved, purchased_reserved, credits_charged,
	credits_refunded, allowance_epoch, allowance_lapsed, results, errors, COALESCE(zip_key, ''), COALESCE(zip_size, 0),
	created_at, settled_at, completed_at, expires_at, deleted_at, expired_at, lettering`

func scanJob(row pgx.Row) (*Job, error) {
	var j Job
	var retention int64
	var results, errs []byte
	err := row.Scan(&j.ID, &j.UserID, &j.Status, &j.Mode, &j.Resolution, &j.SourceLang, &j.TargetLang, &j.CustomPrompt,
		&j.Total, &j.Progress, &j.Plan, &retention, &j.CreditsReserved, &j.AllowanceReserved, &j.PurchasedReserved,
		&j.CreditsCharged, &j.CreditsRefunded, &j.AllowanceEpoch, &j.AllowanceLapsed, &results, &errs, &j.ZipKey, &j.ZipSize, &j.CreatedAt, &j.SettledAt,
		&j.CompletedAt, &j.ExpiresAt, &j.DeletedAt, &j.ExpiredAt, &j.Lettering)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	j.Retention = time.Duration(retention) * time.Second
	if err := json.Unmarshal(results, &j.Results); err != nil {
		return nil, fmt.Errorf("decoding results: %w", err)
	}
	if err := json.Unmarshal(errs, &j.Errors); err != nil {
		return nil, fmt.Errorf("decoding errors: %w", err)
	}
	return &j, nil
}

// GetJob reads a job, deleted or not, its results with their latest edits.
func (s *Store) GetJob(ctx context.Context, id string) (*Job, error) {
	j, err := scanJob(s.pool.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = $1`, id))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("reading job: %w", err)
	}
	if err == nil && len(j.Results) > 0 {
		if err := s.withEdits(ctx, j); err != nil {
			return nil, fmt.Errorf("reading job %s: %w", id, err)
		}
	}
	return j, err
}

// NewJob is what an upload asks to reserve: the job, its owner, its spec (of which the glossary is
// not kept) and its number of pages.
type NewJob struct {
	ID     string
	UserID string
	job.Spec
	Pages int
}

// Reservation is the outcome of ReserveJob.
type Reservation struct {
	Job       *Job
	Available int64 // credits the user had before, for the 402 message
	Needed    int
	RetryIn   time.Duration // with ErrConcurrencyLimit: a hint for Retry-After
}

// ReserveJob creates the job and takes its credits in one transaction under the user's row lock,
// so that no number of concurrent uploads can spend a credit twice or exceed the plan's concurrent
// jobs. It is idempotent on the job ID: a retried reservation returns the first one.
func (s *Store) ReserveJob(ctx context.Context, nj NewJob) (*Reservation, error) {
	cost, err := plans.Cost(nj.Pages, nj.Mode, nj.Resolution)
	if err != nil {
		return nil, err
	}
	res := &Reservation{Needed: cost}
	err = s.LockUser(ctx, nj.UserID, func(tx pgx.Tx, u *User) error {
		res.Available = u.Available()
		existing, err := scanJob(tx.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = $1`, nj.ID))
		if err == nil {
			if existing.UserID != nj.UserID {
				return ErrForbidden
			}
			res.Job = existing
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("reading job: %w", err)
		}
		var withdrawn bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM withdrawn_uploads WHERE job_id = $1)`,
			nj.ID).Scan(&withdrawn); err != nil {
			return fmt.Errorf("reading withdrawals: %w", err)
		}
		if withdrawn {
			return ErrWithdrawn
		}
		p := plans.MustLookup(u.Plan)
		var active int
		if err := tx.QueryRow(ctx, countActiveJobs, u.ID).Scan(&active); err != nil {
			return fmt.Errorf("counting active jobs: %w", err)
		}
		if active >= p.ConcurrentJobs {
			res.RetryIn = 30 * time.Second
			return ErrConcurrencyLimit
		}
		if u.DebtCredits > 0 || u.Available() < int64(cost) {
			return ErrInsufficientCredits
		}
		fromAllowance := min(int64(cost), u.AllowanceCredits)
		fromPurchased := int64(cost) - fromAllowance
		if _, err := s.Apply(ctx, tx, u, LedgerEntry{Key: "reserve:" + nj.ID, Reason: "job_reserve", JobID: nj.ID,
			AllowanceDelta: -fromAllowance, PurchasedDelta: -fromPurchased}); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET pages_this_period = pages_this_period + $2 WHERE id = $1`,
			u.ID, nj.Pages); err != nil {
			return fmt.Errorf("counting pages: %w", err)
		}
		res.Job, err = scanJob(tx.QueryRow(ctx, `INSERT INTO jobs (id, user_id, status, mode, resolution, source_lang,
			target_lang, custom_prompt, total, plan, retention_seconds, credits_reserved, allowance_reserved,
			purchased_reserved, allowance_epoch, lettering) VALUES ($1, $2, 'pending', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
			RETURNING `+jobColumns, nj.ID, u.ID, nj.Mode, nj.Resolution, nj.SourceLang, nj.TargetLang, nj.CustomPrompt,
			nj.Pages, p.ID, int64(p.Retention/time.Second), cost, fromAllowance, fromPurchased, u.AllowanceEpoch, lettering(nj.Lettering)))
		if err != nil {
			return fmt.Errorf("creating job: %w", err)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrInsufficientCredits) || errors.Is(err, ErrConcurrencyLimit) || errors.Is(err, ErrForbidden) ||
			errors.Is(err, ErrWithdrawn) {
			return res, err
		}
		return nil, fmt.Errorf("reserving credits for job %s: %w", nj.ID, err)
	}
	return res, nil
}

// WithdrawJob settles the race between an upload that gave up on its start (the start failed
// without an answer) and the reservation of its job, which may have committed or may still come:
// under the user's lock, the same one ReserveJob takes, it returns the job when its reservation
// came first, else it records the upload withdrawn, and from then on ReserveJob refuses it
// (ErrWithdrawn). So either the job runs and the client can be given it, or it never charges.
func (s *Store) WithdrawJob(ctx context.Context, userID, id string) (*Job, error) {
	var out *Job
	err := s.LockUser(ctx, userID, func(tx pgx.Tx, u *User) error {
		j, err := scanJob(tx.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = $1`, id))
		if err == nil {
			out = j
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("reading job: %w", err)
		}
		_, err = tx.Exec(ctx, `INSERT INTO withdrawn_uploads (job_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, id, u.ID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("withdrawing upload %s: %w", id, err)
	}
	return out, nil
}

// lettering is the stored lettering of a spec: mixed unless it asks for upper.
func lettering(l job.Lettering) string {
	if l == job.Upper {
		return string(l)
	}
	return string(job.Mixed)
}

// MarkProcessing records that translation has begun.
func (s *Store) MarkProcessing(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, `UPDATE jobs SET status = 'processing' WHERE id = $1 AND status = 'pending'`, id)
	if err != nil {
		return fmt.Errorf("marking job processing: %w", err)
	}
	return nil
}

// Settlement says what FinishJob charged and refunded.
type Settlement struct {
	Charged   int
	Refunded  int // credits that came back to the user
	Lapsed    int // unspent allowance of an earlier period, gone with it
	ExpiresAt time.Time
	Deleted   bool // the job was deleted while it ran: its blobs must go now
	Already   bool // the job had been settled before; nothing changed
}

// FinishJob records the job's outcome and settles its credits exactly once: the pages that were
// translated are charged by the cost formula, the rest of the reservation goes back. Allowance is
// spent first, so it is the purchased credits that come back first. Allowance comes back only
// into the allowance epoch it was reserved from: after a renewal (or any other reset) it lapses
// with its period, and the new period's page count is left alone. A second call returns the
// first settlement and changes nothing.
func (s *Store) FinishJob(ctx context.Context, f job.Outcome) (*Settlement, error) {
	j, err := s.GetJob(ctx, f.JobID)
	if err != nil {
		return nil, err
	}
	// PostgreSQL keeps microseconds; so must the expiry computed from this time.
	f.FinishedAt = f.FinishedAt.UTC().Truncate(time.Microsecond)
	out := &Settlement{}
	err = s.LockUser(ctx, j.UserID, func(tx pgx.Tx, u *User) error {
		j, err := scanJob(tx.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = $1 FOR UPDATE`, f.JobID))
		if err != nil {
			return fmt.Errorf("locking job: %w", err)
		}
		out.Deleted = j.DeletedAt != nil
		if j.SettledAt != nil {
			out.Charged, out.Refunded, out.Lapsed, out.Already = j.CreditsCharged, j.CreditsRefunded, j.AllowanceLapsed, true
			if j.ExpiresAt != nil {
				out.ExpiresAt = *j.ExpiresAt
			}
			return nil
		}
		charged, err := plans.Cost(min(f.PagesDone, j.Total), j.Mode, j.Resolution)
		if err != nil {
			return err
		}
		charged = min(charged, j.CreditsReserved)
		spentAllowance := min(charged, j.AllowanceReserved)
		backAllowance := j.AllowanceReserved - spentAllowance
		backPurchased := j.PurchasedReserved - (charged - spentAllowance)
		samePeriod := j.AllowanceEpoch == u.AllowanceEpoch
		lapsed := 0
		if !samePeriod {
			lapsed, backAllowance = backAllowance, 0
		}
		refund := backAllowance + backPurchased
		if refund > 0 {
			// A refund is never debt repayment: it returns exactly what this job took.
			unprocessed := 0
			if samePeriod {
				unprocessed = j.Total - min(f.PagesDone, j.Total)
			}
			u.AllowanceCredits += int64(backAllowance)
			u.PurchasedCredits += int64(backPurchased)
			if _, err := tx.Exec(ctx, `UPDATE users SET allowance_credits = $2, purchased_credits = $3,
				pages_this_period = GREATEST(pages_this_period - $4, 0), updated_at = now() WHERE id = $1`,
				u.ID, u.AllowanceCredits, u.PurchasedCredits, unprocessed); err != nil {
				return fmt.Errorf("refunding: %w", err)
			}
			if err := s.insertLedger(ctx, tx, u, LedgerEntry{Key: "refund:" + j.ID, Reason: "job_refund", JobID: j.ID,
				AllowanceDelta: int64(backAllowance), PurchasedDelta: int64(backPurchased)}); err != nil {
				return err
			}
		}
		results, _ := json.Marshal(nonNil(f.Results))
		errs, _ := json.Marshal(nonNilErr(f.Errors))
		out.Charged, out.Refunded, out.Lapsed = charged, refund, lapsed
		out.ExpiresAt = f.FinishedAt.Add(j.Retention)
		var zipKey any
		if f.ZipKey != "" {
			zipKey = f.ZipKey
		}
		status := f.Status
		if f.ZipPending {
			status = j.Status // completed once RecordZip has run
		}
		_, err = tx.Exec(ctx, `UPDATE jobs SET status = $2, progress = $3, results = $4, errors = $5, zip_key = $6,
			zip_size = $7, credits_charged = $8, credits_refunded = $9, allowance_lapsed = $10, settled_at = now(),
			completed_at = $11, expires_at = $12 WHERE id = $1`, j.ID, status, f.Progress, results, errs, zipKey,
			f.ZipSize, charged, refund, lapsed, f.FinishedAt, out.ExpiresAt)
		if err != nil {
			return fmt.Errorf("recording outcome: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("finishing job %s: %w", f.JobID, err)
	}
	return out, nil
}

func nonNil(r []job.PageResult) []job.PageResult {
	if r == nil {
		return []job.PageResult{}
	}
	return r
}

func nonNilErr(e []job.PageError) []job.PageError {
	if e == nil {
		return []job.PageError{}
	}
	return e
}

// DeleteJob marks the job deleted for its owner. It returns ErrNotFound for an unknown or already
// deleted job and ErrForbidden for anyone else's.
func (s *Store) DeleteJob(ctx context.Context, id, userID string) (*Job, error) {
	var out *Job
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		j, err := scanJob(tx.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		if j.DeletedAt != nil {
			return ErrNotFound
		}
		if j.UserID != userID {
			return ErrForbidden
		}
		now := s.now()
		if _, err := tx.Exec(ctx, `UPDATE jobs SET deleted_at = $2 WHERE id = $1`, id, now); err != nil {
			return fmt.Errorf("marking deleted: %w", err)
		}
		j.DeletedAt = &now
		out = j
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrForbidden) {
			return nil, err
		}
		return nil, fmt.Errorf("deleting job %s: %w", id, err)
	}
	return out, nil
}

// MarkExpired records that the job's files were removed at the end of its retention. It reports
// false when the job was already expired or deleted.
func (s *Store) MarkExpired(ctx context.Context, id string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET expired_at = now() WHERE id = $1 AND expired_at IS NULL`, id)
	if err != nil {
		return false, fmt.Errorf("marking job expired: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// RecordZip records the archive of a settled job and marks it completed, or, with failure set,
// marks it completed with failure appended to its errors (once) so that the user reads why there
// is no ZIP. Credits are untouched: the job was settled before its archive was built. It reports
// whether the job was deleted meanwhile, when its files, the archive with them, must go.
func (s *Store) RecordZip(ctx context.Context, id, key string, size int64, failure string) (deleted bool, err error) {
	if failure == "" {
		err = s.pool.QueryRow(ctx, `UPDATE jobs SET zip_key = $2, zip_size = $3, status = 'completed' WHERE id = $1
			RETURNING deleted_at IS NOT NULL`, id, key, size).Scan(&deleted)
	} else {
		e, _ := json.Marshal([]job.PageError{{Message: failure}})
		err = s.pool.QueryRow(ctx, `UPDATE jobs SET status = 'completed', errors = CASE WHEN errors @> $2::jsonb
			THEN errors ELSE errors || $2::jsonb END WHERE id = $1 RETURNING deleted_at IS NOT NULL`, id, e).Scan(&deleted)
	}
	if err != nil {
		return false, fmt.Errorf("recording zip of job %s: %w", id, err)
	}
	return deleted, nil
}

// activeJobs is the condition of a job that holds one of its user's concurrent-job slots: not
// yet settled (a job whose ZIP is being built is settled already), and not deleted. A deleted
// job's workflow may still be winding down (or waiting for Temporal to come back to be
// cancelled), but the user no longer has it. The jobs_active index has this predicate.
const activeJobs = `settled_at IS NULL AND deleted_at IS NULL`

const countActiveJobs = `SELECT count(*) FROM jobs WHERE user_id = $1 AND ` + activeJobs

// ActiveJobs counts the user's pending and processing jobs that are not deleted.
func (s *Store) ActiveJobs(ctx context.Context, userID string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, countActiveJobs, userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting active jobs: %w", err)
	}
	return n, nil
}

// UnsettledJobs lists the jobs reserved before the given time that have not settled: the
// reconciler asks each one's workflow whether it is still running. The jobs_unsettled index
// answers it.
func (s *Store) UnsettledJobs(ctx context.Context, before time.Time) ([]*Job, error) {
	return s.listJobs(ctx, unsettledJobs, before)
}

// StrandedJobs lists the jobs settled before the given time that never reached a terminal state:
// their workflow settled them and was to record the archive. The reconciler concludes those whose
// workflow is closed. The jobs_stranded index answers it.
func (s *Store) StrandedJobs(ctx context.Context, before time.Time) ([]*Job, error) {
	return s.listJobs(ctx, strandedJobs, before)
}

// FailSettledJob marks a settled job that never reached a terminal state failed, with message
// appended to its errors once; credits are untouched. It reports whether it changed the job.
func (s *Store) FailSettledJob(ctx context.Context, id, message string) (bool, error) {
	e, _ := json.Marshal([]job.PageError{{Message: message}})
	tag, err := s.pool.Exec(ctx, `UPDATE jobs SET status = 'failed', errors = CASE WHEN errors @> $2::jsonb
		THEN errors ELSE errors || $2::jsonb END WHERE id = $1 AND settled_at IS NOT NULL
		AND status IN ('pending', 'processing')`, id, e)
	if err != nil {
		return false, fmt.Errorf("failing settled job %s: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// OverdueExpiries lists the terminal jobs whose retention ended before the given time but whose
// files were never expired nor deleted: their expiry was lost. The jobs_expiry index answers it.
func (s *Store) OverdueExpiries(ctx context.Context, before time.Time) ([]*Job, error) {
	return s.listJobs(ctx, overdueExpiries, before)
}

// KeptJobs returns which of ids name a job whose files are kept: one with a record that is
// neither deleted nor expired. The reconciler removes the files under every other job prefix (an
// upload the API crashed under, a delete whose removal failed, a page written late by a worker
// that lost contact). An ID in another spelling than the canonical one names no job.
func (s *Store) KeptJobs(ctx context.Context, ids []string) (map[string]bool, error) {
	var canonical []string
	for _, id := range ids {
		if u, err := uuid.Parse(id); err == nil && u.String() == id {
			canonical = append(canonical, id)
		}
	}
	kept := map[string]bool{}
	if len(canonical) == 0 {
		return kept, nil
	}
	// Compared as uuids so that the primary key answers (id::text scanned the table).
	rows, err := s.pool.Query(ctx, `SELECT id::text FROM jobs WHERE id = ANY($1::uuid[])
		AND deleted_at IS NULL AND expired_at IS NULL`, canonical)
	if err != nil {
		return nil, fmt.Errorf("looking up %d jobs: %w", len(canonical), err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("looking up jobs: %w", err)
		}
		kept[id] = true
	}
	return kept, rows.Err()
}

// The reconciler's lists: each condition, and the order of the column its index is on, so that
// the scan stops at the limit.
var (
	unsettledJobs   = jobList{`settled_at IS NULL AND created_at < $1`, `created_at`}
	strandedJobs    = jobList{`settled_at IS NOT NULL AND status IN ('pending', 'processing') AND settled_at < $1`, `settled_at`}
	overdueExpiries = jobList{`expires_at < $1 AND expired_at IS NULL AND deleted_at IS NULL AND settled_at IS NOT NULL
		AND status IN ('completed', 'failed')`, `expires_at`}
)

type jobList struct{ where, order string }

func (l jobList) query() string {
	return `SELECT ` + jobColumns + ` FROM jobs WHERE ` + l.where + ` ORDER BY ` + l.order + ` LIMIT 1000`
}

// listJobs returns the first 1000 jobs of the list.
func (s *Store) listJobs(ctx context.Context, l jobList, args ...any) ([]*Job, error) {
	rows, err := s.pool.Query(ctx, l.query(), args...)
	if err != nil {
		return nil, fmt.Errorf("listing jobs: %w", err)
	}
	defer rows.Close()
	var out []*Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("listing jobs: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}
