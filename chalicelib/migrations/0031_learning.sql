-- The learning loop. Rules (`project_rule`), lessons (`task_lesson`) and session insights are
-- rows of `memories`; these tables hold what the loop adds around them.

-- One row per session whose insights were extracted: what was stored, returned again on a replay.
CREATE TABLE IF NOT EXISTS session_extractions (
    session_id   text        PRIMARY KEY,
    project      text        NOT NULL,
    extractor    text        NOT NULL,
    significance real        NOT NULL,
    result       jsonb       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- How a lesson (or rule) has fared: applications are task outcomes it took part in.
CREATE TABLE IF NOT EXISTS lesson_stats (
    lesson_id        uuid        PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    applications     integer     NOT NULL DEFAULT 0,
    successes        integer     NOT NULL DEFAULT 0,
    failures         integer     NOT NULL DEFAULT 0,
    good_feedback    integer     NOT NULL DEFAULT 0,
    bad_feedback     integer     NOT NULL DEFAULT 0,
    last_applied_at  timestamptz,
    last_reviewed_at timestamptz
);

-- Which lessons a task's prompt carried, written when the prompt is enriched for a known task.
CREATE TABLE IF NOT EXISTS lesson_applications (
    task_id    text        NOT NULL,
    lesson_id  uuid        NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    applied_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, lesson_id)
);

-- Every confidence change, with its cause: the audit trail of the loop.
CREATE TABLE IF NOT EXISTS lesson_events (
    id                bigserial   PRIMARY KEY,
    lesson_id         uuid        NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    kind              text        NOT NULL
                      CHECK (kind IN ('success', 'failure', 'feedback_good', 'feedback_bad', 'review')),
    task_id           text,
    confidence_before real        NOT NULL,
    confidence_after  real        NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS lesson_events_lesson ON lesson_events (lesson_id, created_at DESC);
