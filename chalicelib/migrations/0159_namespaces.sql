-- Namespaces: a named set of projects whose members read the namespace's memories and rules
-- (stored under the project `ns:<name>`) between their own and `_global`'s. A project may be in
-- several namespaces. A client key may be limited to namespaces: it sees their members and the
-- namespaces' own scopes, as they are when a request is checked.
CREATE TABLE IF NOT EXISTS namespaces (
    name        text        PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS namespace_projects (
    namespace   text        NOT NULL REFERENCES namespaces (name) ON DELETE CASCADE,
    project     text        NOT NULL CHECK (length(project) BETWEEN 1 AND 300),
    added_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, project)
);
CREATE INDEX IF NOT EXISTS namespace_projects_project ON namespace_projects (project);
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS namespaces text[];  -- NULL: no namespace limit
