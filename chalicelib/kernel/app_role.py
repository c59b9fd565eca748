"""The application's database login: a role that reads and writes rows and owns nothing.

In AWS the functions connect as this role; only the migrations function uses the master login.
Each deploy's migration run (functions/migrate_on_deploy.py) calls `ensure_app_role` after the
migrations: it creates the role if missing, sets its password from its secret (so rotating the
secret and deploying rotates the password), and grants it data access to every table, sequence
and function in `public`, now and (default privileges) for what later migrations create. It may
not create, alter or drop anything, nor create roles or databases. The local stack keeps one login.
"""

from __future__ import annotations

import re
from typing import Any

from chalicelib.kernel.errors import ConfigurationError

_ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
GRANTS = (
    "GRANT USAGE ON SCHEMA public TO {role}",
    "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}",
    "GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {role}",
    "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO {role}",
    "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {role}",
    "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO {role}",
    "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO {role}",
)


def ensure_app_role(conn: Any, role: str, password: str) -> None:
    """Create or update the application role over `conn` (an autocommit master connection)."""
    from psycopg import sql

    if not _ROLE_NAME.match(role):
        raise ConfigurationError(f"{role!r} is not a plain lower-case role name")
    if not password:
        raise ConfigurationError("the application login's secret has no password")
    name = sql.Identifier(role)
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
    if exists is None:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(name))
    # A new role is no superuser and cannot replicate or bypass row security; only a superuser may
    # even name those attributes (RDS's master is not one). The password travels as a literal
    # (ALTER ROLE takes no parameters); the stack's Postgres logs no statements.
    conn.execute(sql.SQL("ALTER ROLE {} WITH LOGIN NOCREATEDB NOCREATEROLE PASSWORD {}").format(
        name, sql.Literal(password)))
    database = sql.Identifier(conn.execute("SELECT current_database() AS db").fetchone()["db"])
    conn.execute(sql.SQL("GRANT CONNECT, TEMPORARY ON DATABASE {} TO {}").format(database, name))
    for grant in GRANTS:
        conn.execute(sql.SQL(grant).format(role=name))
