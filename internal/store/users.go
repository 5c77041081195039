package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/vtsproject/vts/internal/plans"
)

// User is a user's plan and balances.
type User struct {
	ID               string
	Plan             string
	AllowanceCredits int64
	PurchasedCredits int64
	DebtCredits      int64
	// AllowanceEpoch counts the absolute resets of the allowance: a job's allowance belongs to
	// the epoch it was reserved in, and lapses when it settles in a later one.
	AllowanceEpoch       int64
	PeriodStart          time.Time
	PeriodEnd            time.Time
	PagesThisPeriod      int
	StripeCustomerID     string
	StripeSubscriptionID string
	SubscriptionStatus   string
	CreatedAt            time.Time
}

// Available is what an upload can spend: allowance first, then purchased credits.
func (u *User) Available() int64 { return u.AllowanceCredits + u.PurchasedCredits }

const userColumns = `id, plan, allowance_credits, purchased_credits, debt_credits, allowance_epoch, period_start, period_end,
	pages_this_period, COALESCE(stripe_customer_id, ''), COALESCE(stripe_subscription_id, ''),
	COALESCE(subscription_status, ''), created_at`

func scanUser(row pgx.Row) (*User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Plan, &u.AllowanceCredits, &u.PurchasedCredits, &u.DebtCredits, &u.AllowanceEpoch, &u.PeriodStart,
		&u.PeriodEnd, &u.PagesThisPeriod, &u.StripeCustomerID, &u.StripeSubscriptionID, &u.SubscriptionStatus, &u.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// GetUser reads a user without provisioning it.
func (s *Store) GetUser(ctx context.Context, id string) (*User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("reading user: %w", err)
	}
	return u, err
}

// EnsureUser returns the user, provisioning an unknown one on the Free plan with its first
// month's allowance (a ledger row, so balances always equal the ledger's sums). A Free user whose
// calendar month has ended gets the new month's allowance here too.
func (s *Store) EnsureUser(ctx context.Context, id string) (*User, error) {
	var u *User
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		u, err = s.lockUser(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("provisioning user: %w", err)
	}
	return u, nil
}

// LockUser runs fn in a transaction holding the user's row lock, provisioning the user and rolling
// a finished Free period first. Every credit movement goes through here, so that concurrent
// uploads, refunds and renewals of one user are serialized by PostgreSQL.
func (s *Store) LockUser(ctx context.Context, id string, fn func(tx pgx.Tx, u *User) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		u, err := s.lockUser(ctx, tx, id)
		if err != nil {
			return err
		}
		return fn(tx, u)
	})
}

func (s *Store) lockUser(ctx context.Context, tx pgx.Tx, id string) (*User, error) {
	now := s.now()
	start, end := plans.PeriodOf(now)
	tag, err := tx.Exec(ctx, `INSERT INTO users (id, plan, period_start, period_end) VALUES ($1, 'free', $2, $3)
		ON CONFLICT (id) DO NOTHING`, id, start, end)
	if err != nil {
		return nil, fmt.Errorf("inserting user: %w", err)
	}
	u, err := scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1 FOR UPDATE`, id))
	if err != nil {
		return nil, fmt.Errorf("locking user: %w", err)
	}
	if tag.RowsAffected() == 1 {
		// A new user: its first allowance.
		if err := s.resetAllowance(ctx, tx, u, plans.Free.PagesPerMonth, start, end, allowanceKey(u.ID, start), "allowance_free_month"); err != nil {
			return nil, err
		}
	} else if u.Plan == plans.Free.ID && !now.Before(u.PeriodEnd) {
		// The Free plan's period is the calendar month, renewed lazily on the first touch.
		done, err := s.ResetAllowance(ctx, tx, u, plans.Free.PagesPerMonth, start, end, "allowance_free_month")
		if err != nil {
			return nil, err
		}
		if !done { // this month's allowance was already granted (by a plan change): only move the period
			u.PeriodStart, u.PeriodEnd = start, end
			if _, err := tx.Exec(ctx, `UPDATE users SET period_start = $2, period_end = $3 WHERE id = $1`, u.ID, start, end); err != nil {
				return nil, fmt.Errorf("moving period: %w", err)
			}
		}
	}
	return u, nil
}

// ResetAllowance sets u's allowance to credits for the period [start, end), once per period: a
// ledger row keyed by the user and the period's start. It reports whether it did anything.
func (s *Store) ResetAllowance(ctx context.Context, tx pgx.Tx, u *User, credits int, start, end time.Time, reason string) (bool, error) {
	return s.ResetAllowanceKeyed(ctx, tx, u, credits, start, end, allowanceKey(u.ID, start), reason)
}

func allowanceKey(userID string, start time.Time) string {
	return fmt.Sprintf("allowance:%s:%s", userID, start.UTC().Format(time.RFC3339))
}

// ResetAllowanceKeyed is ResetAllowance under a caller's key, for grants whose identity is not the
// user's period start (a paid subscription period, the end of a subscription).
func (s *Store) ResetAllowanceKeyed(ctx context.Context, tx pgx.Tx, u *User, credits int, start, end time.Time, key, reason string) (bool, error) {
	exists, err := LedgerHas(ctx, tx, key)
	if err != nil {
		return false, err
	}
	if exists {
		return false, nil
	}
	return true, s.resetAllowance(ctx, tx, u, credits, start, end, key, reason)
}

// resetAllowance sets the allowance absolutely and starts a new allowance epoch: what was left of
// the old allowance lapses, and so does whatever jobs reserved from it and do not spend (FinishJob).
func (s *Store) resetAllowance(ctx context.Context, tx pgx.Tx, u *User, credits int, start, end time.Time, key, reason string) error {
	delta := int64(credits) - u.AllowanceCredits
	u.AllowanceCredits = int64(credits)
	u.AllowanceEpoch++
	u.PeriodStart, u.PeriodEnd, u.PagesThisPeriod = start, end, 0
	if _, err := tx.Exec(ctx, `UPDATE users SET allowance_credits = $2, allowance_epoch = $3, period_start = $4,
		period_end = $5, pages_this_period = 0, updated_at = now() WHERE id = $1`,
		u.ID, credits, u.AllowanceEpoch, start, end); err != nil {
		return fmt.Errorf("resetting allowance: %w", err)
	}
	return s.insertLedger(ctx, tx, u, LedgerEntry{Key: key, Reason: reason, AllowanceDelta: delta})
}

// LedgerEntry is one credit movement.
type LedgerEntry struct {
	Key            string
	Reason         string
	JobID          string // optional
	AllowanceDelta int64
	PurchasedDelta int64
	DebtDelta      int64
}

// insertLedger writes e with u's balances after it; u must already hold those balances.
func (s *Store) insertLedger(ctx context.Context, tx pgx.Tx, u *User, e LedgerEntry) error {
	var jobID any
	if e.JobID != "" {
		jobID = e.JobID
	}
	_, err := tx.Exec(ctx, `INSERT INTO credit_ledger (user_id, idempotency_key, reason, job_id, allowance_delta,
		purchased_delta, debt_delta, allowance_after, purchased_after, debt_after)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		u.ID, e.Key, e.Reason, jobID, e.AllowanceDelta, e.PurchasedDelta, e.DebtDelta,
		u.AllowanceCredits, u.PurchasedCredits, u.DebtCredits)
	if err != nil {
		return fmt.Errorf("writing ledger row %s: %w", e.Key, err)
	}
	return nil
}

// LedgerHas reports whether a movement with key was already applied.
func LedgerHas(ctx context.Context, tx pgx.Tx, key string) (bool, error) {
	var exists bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM credit_ledger WHERE idempotency_key = $1)`, key).Scan(&exists)
	if err != nil {
		return false, fmt.Errorf("checking ledger: %w", err)
	}
	return exists, nil
}

// Apply moves credits for u inside tx, once per e.Key: it returns false, changing nothing, when
// the key was already applied. Purchased credits that a refund takes back beyond the balance
// become debt, which later purchases pay off first, so nothing is hidden and nothing goes negative.
func (s *Store) Apply(ctx context.Context, tx pgx.Tx, u *User, e LedgerEntry) (bool, error) {
	done, err := LedgerHas(ctx, tx, e.Key)
	if err != nil || done {
		return false, err
	}
	if e.PurchasedDelta > 0 && u.DebtCredits > 0 {
		pay := min(e.PurchasedDelta, u.DebtCredits)
		e.PurchasedDelta -= pay
		e.DebtDelta -= pay
	}
	if e.PurchasedDelta < 0 && u.PurchasedCredits+e.PurchasedDelta < 0 {
		short := -(u.PurchasedCredits + e.PurchasedDelta)
		e.PurchasedDelta += short
		e.DebtDelta += short
	}
	if u.AllowanceCredits+e.AllowanceDelta < 0 {
		return false, fmt.Errorf("%w: allowance would go below zero", ErrInsufficientCredits)
	}
	u.AllowanceCredits += e.AllowanceDelta
	u.PurchasedCredits += e.PurchasedDelta
	u.DebtCredits += e.DebtDelta
	if _, err := tx.Exec(ctx, `UPDATE users SET allowance_credits = $2, purchased_credits = $3, debt_credits = $4,
		updated_at = now() WHERE id = $1`, u.ID, u.AllowanceCredits, u.PurchasedCredits, u.DebtCredits); err != nil {
		return false, fmt.Errorf("updating balances: %w", err)
	}
	return true, s.insertLedger(ctx, tx, u, e)
}

// GrantCredits adds purchased credits (an operator's grant or a credit pack), once per key.
func (s *Store) GrantCredits(ctx context.Context, userID string, credits int64, reason, key string) (*User, error) {
	u, err := s.updateUser(ctx, userID, func(tx pgx.Tx, u *User) error {
		_, err := s.Apply(ctx, tx, u, LedgerEntry{Key: key, Reason: reason, PurchasedDelta: credits})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("granting credits: %w", err)
	}
	return u, nil
}

// SetPlan moves the user to plan and starts a period of it now, granting that plan's allowance.
// Operators use it; billing calls it through the same path when a subscription changes.
func (s *Store) SetPlan(ctx context.Context, userID, planID string, periodStart, periodEnd time.Time) (*User, error) {
	p, ok := plans.Lookup(planID)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownPlan, planID)
	}
	u, err := s.updateUser(ctx, userID, func(tx pgx.Tx, u *User) error {
		if _, err := tx.Exec(ctx, `UPDATE users SET plan = $2, updated_at = now() WHERE id = $1`, u.ID, p.ID); err != nil {
			return fmt.Errorf("setting plan: %w", err)
		}
		u.Plan = p.ID
		_, err := s.ResetAllowance(ctx, tx, u, p.PagesPerMonth, periodStart, periodEnd, "allowance_plan_"+p.ID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("changing plan: %w", err)
	}
	return u, nil
}

// updateUser is LockUser for a change that returns the user as fn left it.
func (s *Store) updateUser(ctx context.Context, userID string, fn func(tx pgx.Tx, u *User) error) (*User, error) {
	var out *User
	err := s.LockUser(ctx, userID, func(tx pgx.Tx, u *User) error {
		if err := fn(tx, u); err != nil {
			return err
		}
		out = u
		return nil
	})
	return out, err
}

// LedgerSums returns the sums of a user's ledger deltas: they must equal the balances.
func (s *Store) LedgerSums(ctx context.Context, userID string) (allowance, purchased, debt int64, err error) {
	err = s.pool.QueryRow(ctx, `SELECT COALESCE(SUM(allowance_delta), 0), COALESCE(SUM(purchased_delta), 0),
		COALESCE(SUM(debt_delta), 0) FROM credit_ledger WHERE user_id = $1`, userID).Scan(&allowance, &purchased, &debt)
	if err != nil {
		err = fmt.Errorf("summing ledger: %w", err)
	}
	return
}

// LedgerRow is a ledger row as operators and tests read it.
type LedgerRow struct {
	Key            string
	Reason         string
	JobID          string
	AllowanceDelta int64
	PurchasedDelta int64
	DebtDelta      int64
	CreatedAt      time.Time
}

// Ledger lists a user's credit movements, oldest first.
func (s *Store) Ledger(ctx context.Context, userID string) ([]LedgerRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT idempotency_key, reason, COALESCE(job_id::text, ''), allowance_delta,
		purchased_delta, debt_delta, created_at FROM credit_ledger WHERE user_id = $1 ORDER BY id`, userID)
	if err != nil {
		return nil, fmt.Errorf("reading ledger: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (LedgerRow, error) {
		var l LedgerRow
		err := r.Scan(&l.Key, &l.Reason, &l.JobID, &l.AllowanceDelta, &l.PurchasedDelta, &l.DebtDelta, &l.CreatedAt)
		return l, err
	})
}
