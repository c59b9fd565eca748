"""What every console route module shares: its blueprint, the error page, small parsers."""

from __future__ import annotations

from datetime import UTC, date, datetime

from chalice import Response
from chalice.app import Request

from chalicelib.console.pages.layout import bare_page, el
from chalicelib.console.web import C, ConsoleBlueprint, base_prefix, html
from chalicelib.kernel.errors import InvalidInput


def error_page(request: Request, status: int, message: str) -> Response:
    base = base_prefix(request)
    return html(
        bare_page(
            base,
            f"Error {status}",
            el("p", {"class": "error"}, message),
            el("p", None, el("a", {"href": base + "/console"}, "Back to the console")),
        ),
        status,
    )


def console_blueprint(name: str, uses: type[C]) -> ConsoleBlueprint[C]:
    """A console page module's blueprint; its `Uses` (which includes the sign-in sessions) is
    provided by app.py."""
    return ConsoleBlueprint(name, uses, error_page)


def parse_day(raw: str, field: str) -> date | None:
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise InvalidInput(f"{field}: a date like 2026-01-31", field=field) from None


def day_start(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def parse_int(raw: str, field: str, low: int, high: int) -> int | None:
    if not raw:
        return None
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise InvalidInput(f"{field}: a whole number from {low} to {high}", field=field)
    return int(raw)


def bounded_text(raw: str, field: str, limit: int = 300) -> str | None:
    if "\x00" in raw:
        raise InvalidInput(f"{field}: must not contain the NUL character", field=field)
    if len(raw) > limit:
        raise InvalidInput(f"{field}: at most {limit} characters", field=field)
    return raw or None
