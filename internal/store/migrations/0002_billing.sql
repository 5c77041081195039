-- Stripe webhook events already applied. The event's effect and its row commit in one
-- transaction, so a redelivered event finds its row and changes nothing.
CREATE TABLE stripe_events (
    id          text PRIMARY KEY,
    type        text NOT NULL,
    created     timestamptz NOT NULL,
    user_id     text REFERENCES users (id),
    object_id   text NOT NULL DEFAULT '',
    outcome     text NOT NULL DEFAULT '',
    applied_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stripe_events_user ON stripe_events (user_id, applied_at);

-- What we know of each subscription. last_event_created orders the events that set its state,
-- since Stripe does not deliver them in order; paid_period_start and granted_credits say which
-- period's allowance was paid for and how large it was, so that an upgrade tops it up once.
CREATE TABLE stripe_subscriptions (
    id                 text PRIMARY KEY,
    user_id            text NOT NULL REFERENCES users (id),
    customer_id        text NOT NULL DEFAULT '',
    status             text NOT NULL DEFAULT '',
    price_id           text NOT NULL DEFAULT '',
    plan               text NOT NULL DEFAULT '',
    last_event_created bigint NOT NULL DEFAULT 0,
    ended              boolean NOT NULL DEFAULT false,
    paid_period_start  timestamptz,
    paid_period_end    timestamptz,
    granted_credits    bigint NOT NULL DEFAULT 0,
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stripe_subscriptions_user ON stripe_subscriptions (user_id);

-- Credit-pack payments, so that a refunded charge (which carries only its payment intent) can be
-- traced back to the user and the pack it bought, at the pack's size when it was bought.
CREATE TABLE stripe_payments (
    checkout_session_id text PRIMARY KEY,
    user_id             text NOT NULL REFERENCES users (id),
    payment_intent_id   text UNIQUE,
    price_id            text NOT NULL,
    credits             bigint NOT NULL CHECK (credits > 0),
    amount              bigint NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT now()
);

-- A refund sums the ledger rows it already took by key prefix (stripe_refund:<charge>:).
CREATE INDEX credit_ledger_key_prefix ON credit_ledger (idempotency_key text_pattern_ops);
