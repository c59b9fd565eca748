"""An unexpected error is logged by type and frames, never with the values its message quotes."""

from __future__ import annotations

import pytest
from chalice import Chalice
from chalice.test import Client

from chalicelib.kernel.http import ApiBlueprint

SECRET = "hunter2-do-not-log"


def _app() -> Chalice:
    bp = ApiBlueprint(__name__, object)

    @bp.route("/boom", methods=["GET"])
    def boom() -> None:
        raise ValueError(f'invalid input syntax for type json: {{"password": "{SECRET}"}}')

    app = Chalice(app_name="error-logging")
    app.register_blueprint(bp)
    return app


def test_an_unexpected_error_is_a_500_whose_logs_name_the_type_but_not_the_values(
        capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    with Client(_app()) as client:
        response = client.http.get("/boom")

    assert response.status_code == 500
    assert SECRET not in response.body.decode()
    out, err = capfd.readouterr()
    logged = out + err + caplog.text
    assert SECRET not in logged
    # Where the JSON lines go depends on when the logger was first made; the record is the same.
    failure = next(r for r in caplog.records if r.getMessage() == "unexpected error in a route")
    assert (failure.error_type, failure.view) == ("ValueError", "boom")  # type: ignore[attr-defined]
