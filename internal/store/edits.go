package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/vtsproject/vts/internal/job"
)

// Errors of a page's edit.
var (
	// ErrEditInProgress: the page has an edit being applied; one at a time.
	ErrEditInProgress = errors.New("an edit of this page is being applied")
	// ErrJobClosed: the job is deleted or its files expired, or it has not completed.
	ErrJobClosed = errors.New("the job's pages can no longer be edited")
)

// NewEdit is an edit a proofreader asks for: which page, whose, and the credits it costs (0 for
// an edit that only re-letters).
type NewEdit struct {
	JobID      string
	OutputName string
	UserID     string
	Credits    int
}

// editKey names an edit's ledger rows: once per page and revision.
func editKey(kind, jobID, outputName string, revision int) string {
	return kind + ":" + jobID + ":" + strconv.Itoa(revision) + ":" + outputName
}

// BeginEdit claims the page's next revision for an edit and reserves its credits, in one
// transaction under the user's lock: ErrEditInProgress while another edit of the page is being
// applied, ErrInsufficientCredits when the credits are short (nothing claimed), ErrForbidden for
// anyone but the owner, ErrJobClosed for a job deleted, expired or not completed. It returns the
// revision claimed.
func (s *Store) BeginEdit(ctx context.Context, e NewEdit) (int, error) {
	rev := 0
	err := s.LockUser(ctx, e.UserID, func(tx pgx.Tx, u *User) error {
		j, err := scanJob(tx.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = $1 FOR UPDATE`, e.JobID))
		if err != nil {
			return err
		}
		if j.UserID != e.UserID {
			return ErrForbidden
		}
		if j.DeletedAt != nil || j.ExpiredAt != nil || j.Status != job.Completed {
			return ErrJobClosed
		}
		if _, err := tx.Exec(ctx, `INSERT INTO page_edits (job_id, output_name) VALUES ($1, $2)
			ON CONFLICT DO NOTHING`, e.JobID, e.OutputName); err != nil {
			return fmt.Errorf("recording page: %w", err)
		}
		var current int
		var editing *int
		if err := tx.QueryRow(ctx, `SELECT revision, editing FROM page_edits WHERE job_id = $1 AND output_name = $2
			FOR UPDATE`, e.JobID, e.OutputName).Scan(&current, &editing); err != nil {
			return fmt.Errorf("locking page: %w", err)
		}
		if editing != nil {
			return ErrEditInProgress
		}
		rev = current + 1
		var fromAllowance, fromPurchased int64
		if e.Credits > 0 {
			if u.DebtCredits > 0 || u.Available() < int64(e.Credits) {
				return ErrInsufficientCredits
			}
			fromAllowance = min(int64(e.Credits), u.AllowanceCredits)
			fromPurchased = int64(e.Credits) - fromAllowance
			if _, err := s.Apply(ctx, tx, u, LedgerEntry{Key: editKey("edit_reserve", e.JobID, e.OutputName, rev),
				Reason: "edit_reserve", JobID: e.JobID, AllowanceDelta: -fromAllowance, PurchasedDelta: -fromPurchased}); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE page_edits SET editing = $3, allowance_reserved = $4, purchased_reserved = $5,
			allowance_epoch = $6, editing_since = now() WHERE job_id = $1 AND output_name = $2`,
			e.JobID, e.OutputName, rev, fromAllowance, fromPurchased, u.AllowanceEpoch)
		if err != nil {
			return fmt.Errorf("claiming revision: %w", err)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrForbidden) || errors.Is(err, ErrJobClosed) ||
			errors.Is(err, ErrEditInProgress) || errors.Is(err, ErrInsufficientCredits) {
			return 0, err
		}
		return 0, fmt.Errorf("beginning edit of %s in job %s: %w", e.OutputName, e.JobID, err)
	}
	return rev, nil
}

// EditOutcome is how an edit ended: applied, or failed (Failure says why, for the user).
type EditOutcome struct {
	JobID      string
	OutputName string
	Revision   int
	Failure    string
}

// EditSettlement says what SettleEdit did.
type EditSettlement struct {
	Already  bool // the edit had been settled before; nothing changed
	Refunded int64
	// Closed: the job was deleted or expired meanwhile, so the files the edit wrote must go.
	Closed bool
}

// SettleEdit ends an edit exactly once: an applied edit becomes the page's revision and its
// credits are captured (they were taken at BeginEdit); a failed one leaves the revision as it was,
// records why, and gives its credits back (allowance only into the allowance epoch it came from).
// The page's editing column, cleared here under the user's lock, is what makes a second call (a
// retried activity, the reconciler) change nothing.
func (s *Store) SettleEdit(ctx context.Context, o EditOutcome) (*EditSettlement, error) {
	j, err := s.GetJob(ctx, o.JobID)
	if err != nil {
		return nil, fmt.Errorf("settling edit of job %s: %w", o.JobID, err)
	}
	out := &EditSettlement{Closed: j.DeletedAt != nil || j.ExpiredAt != nil}
	err = s.LockUser(ctx, j.UserID, func(tx pgx.Tx, u *User) error {
		var editing *int
		var allowance, purchased, epoch int64
		err := tx.QueryRow(ctx, `SELECT editing, allowance_reserved, purchased_reserved, allowance_epoch FROM page_edits
			WHERE job_id = $1 AND output_name = $2 FOR UPDATE`, o.JobID, o.OutputName).Scan(&editing, &allowance, &purchased, &epoch)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && (editing == nil || *editing != o.Revision)) {
			out.Already = true
			return nil
		}
		if err != nil {
			return fmt.Errorf("locking page: %w", err)
		}
		if o.Failure == "" {
			_, err = tx.Exec(ctx, `UPDATE page_edits SET revision = $3, editing = NULL, edit_error = '',
				allowance_reserved = 0, purchased_reserved = 0, editing_since = NULL WHERE job_id = $1 AND output_name = $2`,
				o.JobID, o.OutputName, o.Revision)
			if err != nil {
				return fmt.Errorf("recording revision: %w", err)
			}
			return nil
		}
		if epoch != u.AllowanceEpoch {
			allowance = 0 // it lapsed with its period, as a job's unspent allowance does
		}
		if allowance+purchased > 0 {
			if _, err := s.Apply(ctx, tx, u, LedgerEntry{Key: editKey("edit_refund", o.JobID, o.OutputName, o.Revision),
				Reason: "edit_refund", JobID: o.JobID, AllowanceDelta: allowance, PurchasedDelta: purchased}); err != nil {
				return err
			}
			out.Refunded = allowance + purchased
		}
		_, err = tx.Exec(ctx, `UPDATE page_edits SET editing = NULL, edit_error = $3, allowance_reserved = 0,
			purchased_reserved = 0, editing_since = NULL WHERE job_id = $1 AND output_name = $2`, o.JobID, o.OutputName, o.Failure)
		if err != nil {
			return fmt.Errorf("recording failed edit: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("settling edit %d of %s in job %s: %w", o.Revision, o.OutputName, o.JobID, err)
	}
	return out, nil
}

// StaleEdits lists the edits being applied since before the given time: the reconciler settles
// those whose workflow never started (the API died between claiming and starting it).
func (s *Store) StaleEdits(ctx context.Context, before time.Time) ([]EditOutcome, error) {
	rows, err := s.pool.Query(ctx, `SELECT job_id::text, output_name, editing FROM page_edits
		WHERE editing IS NOT NULL AND editing_since < $1 ORDER BY editing_since LIMIT 1000`, before)
	if err != nil {
		return nil, fmt.Errorf("listing stale edits: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (EditOutcome, error) {
		var o EditOutcome
		err := row.Scan(&o.JobID, &o.OutputName, &o.Revision)
		return o, err
	})
}

// withEdits gives the job's results their revision, the edit being applied and the last edit's
// failure.
func (s *Store) withEdits(ctx context.Context, j *Job) error {
	rows, err := s.pool.Query(ctx, `SELECT output_name, revision, COALESCE(editing, 0), edit_error FROM page_edits
		WHERE job_id = $1`, j.ID)
	if err != nil {
		return fmt.Errorf("reading edits: %w", err)
	}
	defer rows.Close()
	byName := map[string]int{}
	for i, r := range j.Results {
		byName[r.OutputName] = i
	}
	for rows.Next() {
		var name, failure string
		var rev, editing int
		if err := rows.Scan(&name, &rev, &editing, &failure); err != nil {
			return fmt.Errorf("reading edits: %w", err)
		}
		if i, ok := byName[name]; ok {
			j.Results[i].Revision, j.Results[i].Editing, j.Results[i].EditError = rev, editing, failure
		}
	}
	return rows.Err()
}
