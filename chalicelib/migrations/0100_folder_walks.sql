-- The session picker's folder walk: after the engine button, a /session without a project
-- walks the machine's folders in the session's topic before the session starts. The agent
-- lists each folder (and checks it against its configured roots); the listing lands here.
CREATE TABLE IF NOT EXISTS telegram_folder_walks (
    request_id text        PRIMARY KEY REFERENCES telegram_session_requests (id) ON DELETE CASCADE,
    chat_id    bigint      NOT NULL,
    topic_id   bigint      NOT NULL DEFAULT 0,
    machine    text        NOT NULL,
    engine     text        NOT NULL,
    label      text        NOT NULL,                -- the button pressed, e.g. "itachic --ds"
    prompt     text        NOT NULL,
    title      text        NOT NULL,                -- the topic's name
    listing_id text        NOT NULL,                -- the listing asked for last
    path       text,                                -- the folder shown; '' the roots; NULL not yet listed
    parent     text,
    entries    jsonb       NOT NULL DEFAULT '[]',
    total      integer     NOT NULL DEFAULT 0,
    "offset"   integer     NOT NULL DEFAULT 0,
    status     text        NOT NULL DEFAULT 'walking' CHECK (status IN ('walking', 'started')),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS telegram_folder_walks_listing ON telegram_folder_walks (listing_id);
CREATE INDEX IF NOT EXISTS telegram_folder_walks_thread ON telegram_folder_walks (chat_id, topic_id)
    WHERE status = 'walking';
