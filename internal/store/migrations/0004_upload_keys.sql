-- Idempotency keys of uploads: a retried upload with the same key gets the first job back
-- instead of paying for a second one.
CREATE TABLE upload_keys (
    user_id    text NOT NULL REFERENCES users (id),
    key        text NOT NULL,
    job_id     uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, key)
);
