-- Allowance periods. Every absolute reset of a user's allowance (a renewal, a plan change, the
-- Free month rolling over, a subscription ending) starts a new allowance epoch; a job records the
-- epoch whose allowance it reserved. When it settles in a later epoch, the allowance it did not
-- spend lapses with the period it came from (allowance_lapsed) instead of growing the new one,
-- exactly as it would have if the job had settled before the reset. Purchased credits never lapse.
-- Jobs running when this migration applies count as reserved in their user's current epoch.
ALTER TABLE users ADD COLUMN allowance_epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN allowance_epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN allowance_lapsed integer NOT NULL DEFAULT 0 CHECK (allowance_lapsed >= 0);
ALTER TABLE jobs ADD CONSTRAINT jobs_settlement_within_reservation
    CHECK (credits_charged + credits_refunded + allowance_lapsed <= credits_reserved);
