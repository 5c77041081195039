package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/vtsproject/vts/internal/plans"
)

// Errors of the API-key queries.
var (
	ErrPlanRequired = errors.New("the plan does not include API access")
	ErrTooManyKeys  = errors.New("too many API keys")
)

// MaxAPIKeys bounds the active keys of one user.
const MaxAPIKeys = 20

// APIKey is a key as its owner may see it: never the key, never its hash.
type APIKey struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// KeyOwner is what a presented key resolves to, with the owner's plan as it is now.
type KeyOwner struct {
	KeyID      string
	UserID     string
	Plan       string
	Hash       []byte
	LastUsedAt *time.Time
}

// CreateAPIKey stores a new key for a user whose plan includes API access, under the user's row
// lock so that the plan check and the count of keys hold against concurrent requests.
func (s *Store) CreateAPIKey(ctx context.Context, userID, name, prefix string, hash []byte) (*APIKey, error) {
	var k *APIKey
	err := s.LockUser(ctx, userID, func(tx pgx.Tx, u *User) error {
		if p, ok := plans.Lookup(u.Plan); !ok || !p.APIAccess {
			return ErrPlanRequired
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`, userID).Scan(&n); err != nil {
			return fmt.Errorf("counting keys: %w", err)
		}
		if n >= MaxAPIKeys {
			return ErrTooManyKeys
		}
		k = &APIKey{ID: uuid.NewString(), Name: name, Prefix: prefix, CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
		_, err := tx.Exec(ctx, `INSERT INTO api_keys (id, user_id, name, prefix, hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			k.ID, userID, name, prefix, hash, k.CreatedAt)
		if err != nil {
			return fmt.Errorf("inserting key: %w", err)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrPlanRequired) || errors.Is(err, ErrTooManyKeys) {
			return nil, err
		}
		return nil, fmt.Errorf("creating API key: %w", err)
	}
	return k, nil
}

// ListAPIKeys returns the user's active keys, oldest first.
func (s *Store) ListAPIKeys(ctx context.Context, userID string) ([]APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT id::text, name, prefix, created_at, last_used_at FROM api_keys
		WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("listing keys: %w", err)
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (APIKey, error) {
		var k APIKey
		err := row.Scan(&k.ID, &k.Name, &k.Prefix, &k.CreatedAt, &k.LastUsedAt)
		return k, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing keys: %w", err)
	}
	if keys == nil {
		keys = []APIKey{}
	}
	return keys, nil
}

// RevokeAPIKey revokes the user's key. Another user's key, an unknown one and a revoked one are
// all ErrNotFound, so that key IDs reveal nothing.
func (s *Store) RevokeAPIKey(ctx context.Context, id, userID string) error {
	if _, err := uuid.Parse(id); err != nil {
		return ErrNotFound
	}
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`, id, userID)
	if err != nil {
		return fmt.Errorf("revoking key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// APIKeyByHash finds the active key with this hash and its owner's current plan. The plan is read
// on every use, so a downgrade takes effect on the next request.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (*KeyOwner, error) {
	var k KeyOwner
	err := s.pool.QueryRow(ctx, `SELECT k.id::text, k.user_id, u.plan, k.hash, k.last_used_at
		FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.hash = $1 AND k.revoked_at IS NULL`, hash).
		Scan(&k.KeyID, &k.UserID, &k.Plan, &k.Hash, &k.LastUsedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("looking up key: %w", err)
	}
	return &k, nil
}

// TouchAPIKey records a use of the key. Callers skip it when the last recorded use is recent, so
// a busy key costs one write a minute, not one per request.
func (s *Store) TouchAPIKey(ctx context.Context, id string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE api_keys SET last_used_at = now() WHERE id = $1`, id); err != nil {
		return fmt.Errorf("recording key use: %w", err)
	}
	return nil
}
