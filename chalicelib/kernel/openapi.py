"""Build the OpenAPI 3.1 document of the app from its routes and the models they validate with.

Each view is read once (its source, parsed with `ast`): the model it hands to `parse_body` is the
request body, the one it hands to `parse_query` the query parameters, and the `status=` of its
`ok(...)` calls the success codes. So the spec cannot drift from what the routes accept: there is
no second declaration to keep in step.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

ERROR_STATUSES = {400: "invalid input", 401: "missing, invalid or revoked API key",
                  403: "the key's scope does not allow this request", 404: "not found",
                  409: "conflict with the current state", 413: "body too large",
                  422: "Idempotency-Key reused with a different request",
                  503: "a dependency (database, queue, machine) is unavailable"}
ERROR_SCHEMA = {"type": "object", "required": ["error", "message"], "properties": {
    "error": {"type": "string", "description": "machine-readable code, e.g. invalid_input"},
    "message": {"type": "string", "description": "what went wrong, for a person"},
    "field": {"type": "string", "description": "the offending field, when there is one"}}}
OPEN_PATHS = {"/health"}  # no credentials
TOKEN_PATHS = {"/api/machines/join"}  # no API key: a one-time invite token in the body
TELEGRAM_PATH = "/telegram/webhook"
GITHUB_PATH = "/webhooks/github"  # GitHub's HMAC-SHA256 signature of the body
MCP_PATH = "/mcp"
CONSOLE_PREFIX = "/console"  # the web console: HTML pages behind a session cookie (chalicelib/console)
CONSOLE_OPEN = {"/console/login", "/console/assets/{name}"}
CONSOLE_STATUSES = {303: "no session: to the sign-in page (or after a form: where to go next)",
                    400: "invalid input", 401: "no session (htmx requests, forms)",
                    403: "missing or wrong CSRF token", 404: "not found",
                    409: "conflict with the current state",
                    503: "a dependency is unavailable"}


@dataclass
class ViewFacts:
    """What a view's source says about its input and output."""

    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    statuses: set[int] = field(default_factory=set)
    summary: str = ""


def _constants(node: ast.AST) -> set[int]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, int)}


def view_facts(view: Any) -> ViewFacts:
    """Read the models and success codes of one view function from its source."""
    original = inspect.unwrap(view)
    tree = ast.parse(textwrap.dedent(inspect.getsource(original)))
    facts = ViewFacts(summary=(inspect.getdoc(original) or "").split("\n")[0])
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if node.func.id in ("parse_body", "parse_query") and len(node.args) == 2:
            model = original.__globals__.get(getattr(node.args[1], "id", ""))
            setattr(facts, "body" if node.func.id == "parse_body" else "query", model)
        elif node.func.id in ("ok", "Response"):
            status = next((k.value for k in node.keywords if k.arg in ("status", "status_code")), None)
            facts.statuses |= _constants(status) if status is not None else {200}
    facts.statuses = facts.statuses or {200}
    return facts


class _Components:
    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {"Error": ERROR_SCHEMA}

    def schema_of(self, model: type[BaseModel]) -> dict[str, Any]:
        # Qualified by capability: two capabilities may both call a model OutcomeBody.
        name = f"{model.__module__.split('.')[1]}.{model.__name__}"
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        self.schemas.update(schema.pop("$defs", {}))
        self.schemas[name] = schema
        return {"$ref": f"#/components/schemas/{name}"}


def _query_parameters(model: type[BaseModel]) -> list[dict[str, Any]]:
    schema = model.model_json_schema()
    required = set(schema.get("required", []))
    params = []
    for name, prop in schema.get("properties", {}).items():
        options = [p for p in prop.get("anyOf", [prop]) if p.get("type") != "null"]
        value = {k: v for k, v in (options[0] if len(options) == 1 else {"anyOf": options}).items()
                 if k != "title"}
        for key in ("default", "description"):
            if key in prop and prop[key] is not None:
                value[key] = prop[key]
        params.append({"name": name, "in": "query", "required": name in required, "schema": value})
    return params


def _console_responses(path: str) -> dict[str, Any]:
    page = {"text/html": {"schema": {"type": "string"}}}
    ok_content = ({kind: {"schema": {"type": "string"}} for kind in ("text/javascript", "text/css")}
                  if path.startswith(CONSOLE_PREFIX + "/assets/") else page)
    answers: dict[str, Any] = {"200": {"description": "the page", "content": ok_content}}
    for status, description in CONSOLE_STATUSES.items():
        answers[str(status)] = {"description": description} if status == 303 else {
            "description": description, "content": page}
    return answers


def _responses(path: str, statuses: set[int]) -> dict[str, Any]:
    if path.startswith(CONSOLE_PREFIX):
        return _console_responses(path)
    if path == MCP_PATH:  # JSON-RPC: the MCP transport picks the status (405 for a stream request...)
        return {"default": {"description": "a JSON-RPC answer, or the MCP transport's HTTP error"}}
    body = {"application/json": {"schema": {"type": "object"}}}
    answers: dict[str, Any] = {str(s): {"description": "success", "content": body} for s in sorted(statuses)}
    errors = ERROR_STATUSES if path not in OPEN_PATHS else {}
    for status, description in errors.items():
        answers[str(status)] = {"description": description, "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    return answers


def _security(path: str) -> list[dict[str, list[str]]]:
    if path in OPEN_PATHS or path in TOKEN_PATHS or path in CONSOLE_OPEN:
        return []
    if path.startswith(CONSOLE_PREFIX):
        return [{"consoleSession": []}]
    if path == GITHUB_PATH:
        return [{"githubSignature": []}]
    return [{"telegramSecret": []}] if path == TELEGRAM_PATH else [{"bearerAuth": []}]


def build_spec(routes: dict[str, dict[str, Any]], *, title: str = "Itachi API",
               version: str = "1") -> dict[str, Any]:
    """The OpenAPI document of `routes` (Chalice's `app.routes`: path -> method -> RouteEntry)."""
    components = _Components()
    paths: dict[str, Any] = {}
    for path, methods in sorted(routes.items()):
        for method, entry in sorted(methods.items()):
            facts = view_facts(entry.view_function)
            operation: dict[str, Any] = {
                "operationId": f"{method.lower()}_{entry.view_function.__name__}",
                "summary": facts.summary or entry.view_function.__name__.replace("_", " "),
                "security": _security(path),
                "parameters": [{"name": arg, "in": "path", "required": True,
                                "schema": {"type": "string", "minLength": 1}} for arg in entry.view_args],
                "responses": _responses(path, facts.statuses),
            }
            if facts.query is not None:
                operation["parameters"] += _query_parameters(facts.query)
            if facts.body is not None:
                operation["requestBody"] = {"required": True, "content": {
                    "application/json": {"schema": components.schema_of(facts.body)}}}
            paths.setdefault(path, {})[method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version,
                 "description": "Every route but /health needs `Authorization: Bearer <key>` (the Telegram "
                                "webhook: Telegram's secret token; /api/machines/join: a one-time invite "
                                "token in its body). Errors answer {error, message, field?}."},
        "paths": paths,
        "components": {"schemas": components.schemas, "securitySchemes": {
            "bearerAuth": {"type": "http", "scheme": "bearer"},
            "consoleSession": {"type": "apiKey", "in": "cookie", "name": "itachi_console"},
            "telegramSecret": {"type": "apiKey", "in": "header",
                               "name": "X-Telegram-Bot-Api-Secret-Token"},
            "githubSignature": {"type": "apiKey", "in": "header", "name": "X-Hub-Signature-256"}}},
    }


def _request_summary(operation: dict[str, Any], spec: dict[str, Any]) -> str:
    names = [p["name"] + ("" if p["required"] else "?") for p in operation.get("parameters", [])
             if p["in"] == "query"]
    ref = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    if "$ref" in ref:
        schema = spec["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]
        required = set(schema.get("required", []))
        names += ["{" + ", ".join(n + ("" if n in required else "?") for n in schema["properties"]) + "}"]
    return " ".join(names)


def route_table(spec: dict[str, Any]) -> list[str]:
    """The markdown rows of docs/api.md's route index, one per operation, in spec order."""
    rows = ["| method | path | auth | request (`?` optional) | success |", "|---|---|---|---|---|"]
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            auth = next(iter(op["security"][0]), "none") if op["security"] else "none"
            success = ", ".join(s for s in op["responses"] if s.startswith("2"))
            request = _request_summary(op, spec).replace("|", "\\|")
            rows.append(f"| {method.upper()} | `{path}` | {auth} | {request} | {success} |")
    return rows


def markdown_route_rows(text: str) -> list[str]:
    """The route index rows found in a markdown document (the lines between its two markers)."""
    match = re.search(r"<!-- routes:begin -->\n(.*?)\n<!-- routes:end -->", text, re.S)
    return match.group(1).splitlines() if match else []
