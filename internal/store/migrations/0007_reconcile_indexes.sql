-- The reconciler's queries and the count of a user's active jobs, each answered by an index that
-- holds only the rows it looks for (a few in a table of every job ever run).

-- jobs_active was made for a status-based count; the count now reads settled_at and deleted_at
-- (store.activeJobs), which the old predicate did not imply.
DROP INDEX IF EXISTS jobs_active;
CREATE INDEX jobs_active ON jobs (user_id) WHERE settled_at IS NULL AND deleted_at IS NULL;

-- store.UnsettledJobs
CREATE INDEX jobs_unsettled ON jobs (created_at) WHERE settled_at IS NULL;

-- store.StrandedJobs
CREATE INDEX jobs_stranded ON jobs (settled_at)
    WHERE settled_at IS NOT NULL AND status IN ('pending', 'processing');

-- store.OverdueExpiries
CREATE INDEX jobs_expiry ON jobs (expires_at) WHERE expired_at IS NULL AND deleted_at IS NULL;
