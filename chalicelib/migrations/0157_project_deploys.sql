-- Each project's deploy command (set with /deploy set), run by /deploy as a task on its machine
-- (the named one, else a machine that has the project) after a confirmation button.
CREATE TABLE IF NOT EXISTS project_deploys (
    project    text        PRIMARY KEY,
    command    text        NOT NULL,
    machine    text,
    updated_at timestamptz NOT NULL DEFAULT now()
);
