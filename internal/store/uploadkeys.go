package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// staleClaim is how long a claimed upload key without a job may block retries: an upload that
// died mid-stream (its process crashed) must not hold its key forever.
const staleClaim = 15 * time.Minute

// ClaimUploadKey claims key for jobID on behalf of userID. It returns ("", nil) when the claim is
// ours; otherwise the job ID that holds the key (which may not have a job record yet, while its
// upload is still streaming).
func (s *Store) ClaimUploadKey(ctx context.Context, userID, key, jobID string) (string, error) {
	var holder string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO upload_keys (user_id, key, job_id) VALUES ($1, $2, $3)
			ON CONFLICT (user_id, key) DO NOTHING`, userID, key, jobID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		var created time.Time
		var hasJob bool
		err = tx.QueryRow(ctx, `SELECT k.job_id::text, k.created_at, EXISTS (SELECT 1 FROM jobs j WHERE j.id = k.job_id)
			FROM upload_keys k WHERE k.user_id = $1 AND k.key = $2 FOR UPDATE`, userID, key).Scan(&holder, &created, &hasJob)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("upload key vanished while claiming it; retry")
		}
		if err != nil {
			return err
		}
		if !hasJob && s.now().Sub(created) > staleClaim {
			holder = ""
			_, err = tx.Exec(ctx, `UPDATE upload_keys SET job_id = $3, created_at = now() WHERE user_id = $1 AND key = $2`,
				userID, key, jobID)
			return err
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("claiming upload key: %w", err)
	}
	return holder, nil
}

// ReleaseUploadKey gives up a claim that did not become a job, so that the client may retry.
func (s *Store) ReleaseUploadKey(ctx context.Context, userID, key, jobID string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM upload_keys WHERE user_id = $1 AND key = $2 AND job_id = $3
		AND NOT EXISTS (SELECT 1 FROM jobs WHERE id = $3)`, userID, key, jobID)
	if err != nil {
		return fmt.Errorf("releasing upload key: %w", err)
	}
	return nil
}
