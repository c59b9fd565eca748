"""What a request may carry, decided once at the edge: text Postgres can store, numbers its columns hold.

Postgres cannot store the NUL character (U+0000) in `text` or `jsonb`. Every string a request
carries (body, query string, path) is checked after validation: a NUL is a 400 naming the
field. Captured text, which nobody typed (engine output, hook payloads, transcripts, diffs),
is declared with `CapturedText` / `CapturedJson`: its NULs are removed instead, so output an
agent captured is always storable. Lone surrogates never get this far: the JSON parser
refuses them (400 "not valid JSON").

Numbers: every numeric field uses one of the bounded types below, matching its column
(`integer`, `bigint`, `numeric(12,4)`, `real`); floats are finite.

Times: every time a request asks to store (a memory's dates, an imported record's, a job's end)
is a `StoredTime`, within EARLIEST..LATEST (1970 to 2200); a snapshot is loaded only when its
rows are within the same range, and the memory search clamps to it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field

from chalicelib.kernel.errors import InvalidInput

NUL = "\x00"

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
MONEY_MAX = 99_999_999.9999  # numeric(12, 4)
REAL_MAX = 3.4e38  # float4; Fraction below is a `real` in [0, 1]
REAL_MIN = 1.1754944e-38  # float4's smallest normal: a non-zero value that rounds to 0 is an underflow error


def _as_real(value: float) -> float:
    """A magnitude too small for a `real` column is stored as 0 (Postgres refuses it otherwise)."""
    return 0.0 if abs(value) < REAL_MIN else value


Int32 = Annotated[int, Field(ge=-INT32_MAX - 1, le=INT32_MAX)]
Count = Annotated[int, Field(ge=0, le=INT32_MAX)]
Int64 = Annotated[int, Field(ge=-INT64_MAX - 1, le=INT64_MAX)]
Money = Annotated[float, Field(ge=0, le=MONEY_MAX, allow_inf_nan=False)]
Seconds = Annotated[float, Field(ge=0, le=REAL_MAX, allow_inf_nan=False), AfterValidator(_as_real)]
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False), AfterValidator(_as_real)]

EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
TIME_RANGE = "between 1970 and 2200"


def _in_time_range(value: datetime) -> datetime:
    """A time within EARLIEST..LATEST (one without a zone read as UTC), unchanged."""
    if not EARLIEST <= (value if value.tzinfo else value.replace(tzinfo=UTC)) <= LATEST:
        raise ValueError(f"must be {TIME_RANGE}")
    return value


StoredTime = Annotated[datetime, AfterValidator(_in_time_range)]


def strip_nul(value: Any) -> Any:
    """Remove NUL from every string in a JSON-like value (keys included)."""
    if isinstance(value, str):
        return value.replace(NUL, "") if NUL in value else value
    if isinstance(value, dict):
        return {strip_nul(k): strip_nul(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strip_nul(v) for v in value]
    return value


CapturedText = Annotated[str, AfterValidator(strip_nul)]
CapturedJson = Annotated[dict[str, Any], AfterValidator(strip_nul)]


def captured(max_chars: int) -> AfterValidator:
    """`Annotated[str, captured(n)]`: captured text without NUL, cut to n characters rather than
    refused (output an agent captured is always kept)."""
    return AfterValidator(lambda text: strip_nul(text)[:max_chars])


def check_storable(value: Any, where: str = "") -> None:
    """Raise InvalidInput naming the first field (dotted path) Postgres could not store:
    text holding a NUL, or a number that is not finite (jsonb has no NaN or infinity)."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            check_storable(getattr(value, name), f"{where}.{name}" if where else name)
        for name, item in (value.model_extra or {}).items():
            check_storable(item, f"{where}.{name}" if where else str(name))
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidInput(f"{where or 'value'}: numbers must be finite", field=where or None)
    elif isinstance(value, str):
        if NUL in value:
            raise InvalidInput(f"{where or 'value'}: must not contain the NUL character (\\u0000)",
                               field=where or None)
    elif isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if isinstance(key, str) and NUL in key:
                raise InvalidInput(f"{where or 'value'}: keys must not contain the NUL character (\\u0000)",
                                   field=where or None)
            check_storable(item, path)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            check_storable(item, f"{where}.{index}" if where else str(index))
