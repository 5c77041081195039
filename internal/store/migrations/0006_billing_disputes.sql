-- Paid subscription invoices: the payment that paid each and the allowance it granted (in which
-- allowance epoch), so that a dispute, which names only its charge and payment intent, can be
-- traced back to the credits it calls into question. credits is 0 for an invoice that granted none.
CREATE TABLE stripe_invoices (
    id                text PRIMARY KEY,
    user_id           text NOT NULL REFERENCES users (id),
    subscription_id   text NOT NULL,
    charge_id         text,
    payment_intent_id text,
    amount            bigint NOT NULL DEFAULT 0,
    credits           bigint NOT NULL DEFAULT 0 CHECK (credits >= 0),
    allowance_epoch   bigint NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stripe_invoices_charge ON stripe_invoices (charge_id) WHERE charge_id IS NOT NULL;
CREATE INDEX stripe_invoices_payment_intent ON stripe_invoices (payment_intent_id) WHERE payment_intent_id IS NOT NULL;

-- Disputes of our payments and the credits each holds. state is held (opened: the credits are
-- taken, what was spent as debt), released (won, or closed before it was seen opened: nothing
-- held) or lost (the hold is final). held_allowance came from the allowance of allowance_epoch;
-- held_purchased from purchased credits or as debt. A dispute leaves held only once.
CREATE TABLE stripe_disputes (
    id              text PRIMARY KEY,
    user_id         text NOT NULL REFERENCES users (id),
    charge_id       text NOT NULL DEFAULT '',
    source          text NOT NULL,
    credits         bigint NOT NULL CHECK (credits >= 0),
    state           text NOT NULL CHECK (state IN ('held', 'released', 'lost')),
    stripe_status   text NOT NULL DEFAULT '',
    held_allowance  bigint NOT NULL DEFAULT 0 CHECK (held_allowance >= 0),
    held_purchased  bigint NOT NULL DEFAULT 0 CHECK (held_purchased >= 0),
    allowance_epoch bigint NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stripe_disputes_user ON stripe_disputes (user_id);
