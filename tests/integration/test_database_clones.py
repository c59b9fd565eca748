"""Each test's database: a migrated clone of the template, its own, and dropped when handed back."""

from __future__ import annotations

import psycopg
from psycopg.conninfo import conninfo_to_dict

from tests.support.local_stack import TEMPLATE_DB, TestPostgres
from tests.support.orchestration import wait_for


def _databases(postgres: TestPostgres) -> set[str]:
    with psycopg.connect(postgres.admin_url) as conn:
        return {row[0] for row in conn.execute("SELECT datname FROM pg_database")}


def _migrations(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [str(row[0]) for row in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]


def test_every_clone_is_a_database_of_its_own_with_the_templates_migrations(postgres: TestPostgres) -> None:
    urls = [postgres.new_database() for _ in range(3)]
    try:
        names = {str(conninfo_to_dict(url)["dbname"]) for url in urls}
        assert len(names) == 3 and names <= _databases(postgres)
        expected = _migrations(postgres.url_for(TEMPLATE_DB))
        assert expected and all(_migrations(url) == expected for url in urls)
    finally:
        for url in urls:
            postgres.drop_database(url)


def test_a_database_handed_back_is_dropped_even_with_a_connection_left_open(postgres: TestPostgres) -> None:
    url = postgres.new_database()
    name = str(conninfo_to_dict(url)["dbname"])
    left_open = psycopg.connect(url)

    postgres.drop_database(url)

    wait_for(lambda: name not in _databases(postgres), timeout_s=60, what=f"{name} to be dropped")
    left_open.close()
