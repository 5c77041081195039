-- Proofreaders' edits of translated pages. revision is the page's latest revision (0: the
-- machine's output); editing is the revision being applied, NULL when none, so that one page has
-- one edit in flight; edit_error says why the last edit failed. An edit that retranslates holds
-- its credit here (allowance and purchased, and the allowance epoch it came from) until the edit
-- settles, which clears editing: the guard that settles it exactly once.
CREATE TABLE page_edits (
    job_id             uuid NOT NULL REFERENCES jobs (id),
    output_name        text NOT NULL,
    revision           int NOT NULL DEFAULT 0 CHECK (revision >= 0),
    editing            int,
    edit_error         text NOT NULL DEFAULT '',
    allowance_reserved bigint NOT NULL DEFAULT 0,
    purchased_reserved bigint NOT NULL DEFAULT 0,
    allowance_epoch    bigint NOT NULL DEFAULT 0,
    editing_since      timestamptz,
    PRIMARY KEY (job_id, output_name)
);
CREATE INDEX page_edits_editing ON page_edits (editing_since) WHERE editing IS NOT NULL;
