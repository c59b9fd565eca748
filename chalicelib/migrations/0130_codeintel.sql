-- Code intelligence: what each worker last produced per project and subject (so a run with nothing
-- new changes nothing), and the repositories registry that GitHub sync fills.
CREATE TABLE IF NOT EXISTS codeintel_products (
    worker       text        NOT NULL,
    project      text        NOT NULL,
    subject      text        NOT NULL,
    source_mark  bigint      NOT NULL DEFAULT 0,   -- e.g. the newest edit id the product has seen
    content_hash text        NOT NULL DEFAULT '',
    memory_ids   text[]      NOT NULL DEFAULT '{}',
    generator    text        NOT NULL DEFAULT 'rules',  -- 'llm' or 'rules'
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (worker, project, subject)
);

CREATE TABLE IF NOT EXISTS repos (
    full_name      text        PRIMARY KEY,          -- owner/name as GitHub spells it
    name           text        NOT NULL,
    owner          text        NOT NULL,
    default_branch text        NOT NULL,
    clone_url      text        NOT NULL,
    html_url       text        NOT NULL DEFAULT '',
    description    text        NOT NULL DEFAULT '',
    private        boolean     NOT NULL DEFAULT false,
    archived       boolean     NOT NULL DEFAULT false,
    source         text        NOT NULL DEFAULT 'github',
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS repos_lower_name ON repos (lower(name));
