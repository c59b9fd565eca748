"""The application's database login, as the deploy step makes it: rows yes, schema no."""

from __future__ import annotations

import json
import uuid

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from chalicelib.kernel.app_role import ensure_app_role
from chalicelib.kernel.database import connect_once


def test_the_app_role_reads_and_writes_rows_but_cannot_change_the_schema(database_url: str) -> None:
    role = f"itachi_app_{uuid.uuid4().hex[:8]}"
    with connect_once(database_url) as master:
        ensure_app_role(master, role, "first-password")
        ensure_app_role(master, role, "second-password")  # a rotation: same role, new password
        attrs = master.execute("SELECT rolsuper, rolcreatedb, rolcreaterole, rolcanlogin FROM pg_roles "
                               "WHERE rolname = %s", (role,)).fetchone()
        assert attrs == {"rolsuper": False, "rolcreatedb": False, "rolcreaterole": False, "rolcanlogin": True}
        # A table a later migration creates (as the master login) is the role's to use too.
        master.execute("CREATE TABLE later_feature (id bigserial PRIMARY KEY, note text)")
    with psycopg.connect(make_conninfo(database_url, user=role, password="second-password"),
                         autocommit=True) as app:
        app.execute("INSERT INTO itachi_meta (key, value) VALUES ('app-role-check', 'ok')")
        assert app.execute("SELECT value FROM itachi_meta WHERE key = 'app-role-check'").fetchone() == ("ok",)
        app.execute("UPDATE itachi_meta SET value = 'yes' WHERE key = 'app-role-check'")
        app.execute("DELETE FROM itachi_meta WHERE key = 'app-role-check'")
        app.execute("INSERT INTO later_feature (note) VALUES ('x')")
        assert app.execute("SELECT count(*) FROM memories").fetchone() is not None
        for ddl in ("CREATE TABLE sneaky (id int)", "DROP TABLE memories", "TRUNCATE memories",
                    "ALTER TABLE memories ADD COLUMN x int", f"CREATE ROLE {role}_friend"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                app.execute(ddl)


def test_an_unsafe_role_name_or_an_empty_password_is_refused(database_url: str) -> None:
    from chalicelib.kernel.errors import ConfigurationError

    with connect_once(database_url) as master:
        for role, password in (('app"; DROP TABLE memories; --', "pw"), ("itachi_app", "")):
            with pytest.raises(ConfigurationError):
                ensure_app_role(master, role, password)


def test_the_deploy_step_makes_the_app_login_from_its_secret(database_url: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3
    from aws_lambda_powertools.utilities.parameters import base
    from moto import mock_aws

    from functions.migrate_on_deploy import grant_app_role

    for name, value in (("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_ACCESS_KEY_ID", "testing"),
                        ("AWS_SECRET_ACCESS_KEY", "testing")):
        monkeypatch.setenv(name, value)
    role = f"itachi_app_{uuid.uuid4().hex[:8]}"
    base.DEFAULT_PROVIDERS.clear()  # a provider built outside moto would talk to AWS
    try:
        with mock_aws():
            secrets = boto3.client("secretsmanager", region_name="us-east-1")
            arn = secrets.create_secret(Name="itachi/dev/database-app", SecretString=json.dumps(
                {"username": role, "password": "from-the-secret", "dbname": "itachi", "port": 5432}))["ARN"]
            with connect_once(database_url) as master:
                assert grant_app_role(master, {"DATABASE_APP_SECRET_ID": arn}) == role
                assert grant_app_role(master, {}) == "none"  # the local stack: one login
    finally:
        base.DEFAULT_PROVIDERS.clear()
    with psycopg.connect(make_conninfo(database_url, user=role, password="from-the-secret")) as app:
        assert app.execute("SELECT current_user").fetchone() == (role,)
