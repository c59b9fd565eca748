"""GET /openapi.json: the API's OpenAPI 3.1 document, built from the routes and their models."""

from __future__ import annotations

import functools
from typing import Any

from chalice import Response

from chalicelib.kernel.http import ApiBlueprint, ok

bp = ApiBlueprint(__name__, object)  # it uses no service


@functools.cache
def _spec() -> dict[str, Any]:
    from chalicelib.kernel.openapi import build_spec  # lazy: only this route reads view sources

    return build_spec(bp.current_app.routes)


@bp.route("/openapi.json", methods=["GET"])
def openapi() -> Response:
    """The OpenAPI document of this API."""
    return ok(_spec())
