-- API keys of Pro users. Only the key's SHA-256 is kept; the key is shown to its owner once.
-- prefix is the first characters of the key, so that a listing can tell keys apart.
CREATE TABLE api_keys (
    id           uuid PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id),
    name         text NOT NULL,
    prefix       text NOT NULL,
    hash         bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_keys_user ON api_keys (user_id, created_at) WHERE revoked_at IS NULL;
