-- Users, their plan and their two credit balances. The balances are a cache of the ledger: every
-- change to them writes a credit_ledger row in the same transaction.
CREATE TABLE users (
    id                     text PRIMARY KEY,
    plan                   text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'starter', 'standard', 'pro')),
    allowance_credits      bigint NOT NULL DEFAULT 0 CHECK (allowance_credits >= 0),
    purchased_credits      bigint NOT NULL DEFAULT 0 CHECK (purchased_credits >= 0),
    debt_credits           bigint NOT NULL DEFAULT 0 CHECK (debt_credits >= 0),
    period_start           timestamptz NOT NULL,
    period_end             timestamptz NOT NULL,
    pages_this_period      integer NOT NULL DEFAULT 0 CHECK (pages_this_period >= 0),
    stripe_customer_id     text UNIQUE,
    stripe_subscription_id text,
    subscription_status    text,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);

-- Every credit movement, with its reason and a key that makes it happen at most once.
CREATE TABLE credit_ledger (
    id              bigserial PRIMARY KEY,
    user_id         text NOT NULL REFERENCES users (id),
    idempotency_key text NOT NULL UNIQUE,
    reason          text NOT NULL,
    job_id          uuid,
    allowance_delta bigint NOT NULL DEFAULT 0,
    purchased_delta bigint NOT NULL DEFAULT 0,
    debt_delta      bigint NOT NULL DEFAULT 0,
    allowance_after bigint NOT NULL,
    purchased_after bigint NOT NULL,
    debt_after      bigint NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_ledger_user ON credit_ledger (user_id, id);

CREATE TABLE jobs (
    id                 uuid PRIMARY KEY,
    user_id            text NOT NULL REFERENCES users (id),
    status             text NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
    mode               text NOT NULL,
    resolution         text NOT NULL,
    source_lang        text NOT NULL,
    target_lang        text NOT NULL,
    custom_prompt      text NOT NULL DEFAULT '',
    total              integer NOT NULL CHECK (total > 0),
    progress           integer NOT NULL DEFAULT 0,
    plan               text NOT NULL,
    retention_seconds  bigint NOT NULL,
    credits_reserved   integer NOT NULL CHECK (credits_reserved >= 0),
    allowance_reserved integer NOT NULL CHECK (allowance_reserved >= 0),
    purchased_reserved integer NOT NULL CHECK (purchased_reserved >= 0),
    credits_charged    integer NOT NULL DEFAULT 0,
    credits_refunded   integer NOT NULL DEFAULT 0,
    results            jsonb NOT NULL DEFAULT '[]',
    errors             jsonb NOT NULL DEFAULT '[]',
    zip_key            text,
    zip_size           bigint,
    created_at         timestamptz NOT NULL DEFAULT now(),
    settled_at         timestamptz,
    completed_at       timestamptz,
    expires_at         timestamptz,
    deleted_at         timestamptz,
    expired_at         timestamptz,
    CHECK (credits_charged + credits_refunded <= credits_reserved)
);
CREATE INDEX jobs_active ON jobs (user_id) WHERE status IN ('pending', 'processing');
CREATE INDEX jobs_user ON jobs (user_id, created_at DESC);
