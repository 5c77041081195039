-- Uploads whose start failed without an answer and that the API gave up on: their reservation,
-- should it arrive later, is refused, so that no job is charged under an ID the client never
-- received. store.WithdrawJob and store.ReserveJob decide which came first under the user's lock.
CREATE TABLE withdrawn_uploads (
    job_id     uuid PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now()
);
