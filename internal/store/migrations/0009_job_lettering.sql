-- How a job's translations are lettered (mixed case or comic capitals), kept with the job so that
-- a page lettered again after an edit is lettered the same way.
ALTER TABLE jobs ADD COLUMN lettering text NOT NULL DEFAULT 'mixed' CHECK (lettering IN ('mixed', 'upper'));
