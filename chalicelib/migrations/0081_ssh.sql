-- SSH targets and one-off command runs (/ssh, /exec). The machine that registers a target holds
-- its private key and pinned host key and runs its commands; the server only routes them.
CREATE TABLE IF NOT EXISTS ssh_targets (
    name             text        PRIMARY KEY,
    machine_id       text        NOT NULL,      -- the machine that connects to the target
    host             text        NOT NULL,
    port             integer     NOT NULL DEFAULT 22 CHECK (port BETWEEN 1 AND 65535),
    username         text        NOT NULL,
    key_path         text,                      -- a path on machine_id, never a key
    host_key_fingerprint text,                  -- SHA256:... as pinned on machine_id; NULL: not pinned
    platform         text        NOT NULL DEFAULT 'posix' CHECK (platform IN ('posix', 'windows')),
    reaches_machine  text,                      -- /exec @<machine> runs on this target
    allowed_commands text[]      NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ssh_targets_reaches ON ssh_targets (reaches_machine) WHERE reaches_machine IS NOT NULL;

-- A run's output is never stored here: it goes to the requesting chat's stream only.
CREATE TABLE IF NOT EXISTS ssh_runs (
    id                uuid        PRIMARY KEY,
    target            text        NOT NULL,
    machine_id        text        NOT NULL,
    command           text        NOT NULL,
    status            text        NOT NULL CHECK (status IN ('awaiting_confirmation', 'queued', 'running',
                          'succeeded', 'failed', 'timed_out', 'refused', 'cancelled')),
    timeout_s         integer     NOT NULL CHECK (timeout_s > 0),
    platform          text        NOT NULL DEFAULT 'posix',
    exit_code         integer,
    error             text,
    telegram_chat_id  bigint,
    telegram_topic_id bigint      NOT NULL DEFAULT 0,
    requested_by      bigint,
    output_seq        integer     NOT NULL DEFAULT 0,  -- the last output batch shown (retries are ignored)
    created_at        timestamptz NOT NULL DEFAULT now(),
    started_at        timestamptz,
    finished_at       timestamptz
);
CREATE INDEX IF NOT EXISTS ssh_runs_created ON ssh_runs (created_at DESC);
