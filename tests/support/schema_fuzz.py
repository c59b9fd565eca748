"""Fuzz a running Itachi API with Schemathesis from its own `/openapi.json`, with the API key.

Every operation gets `max_examples` generated requests (explicit examples first). Each response
must be no server error and must conform to the spec: a documented status code, the documented
content type, a body matching the documented schema. Failures are collected, not raised, so
one run reports all of them; `bench/openapi_fuzz.py` runs it with more examples.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

# The one 5xx the API documents on purpose: starting a session when the machine it names (or
# every machine) is offline. Counted apart, so any other 5xx is a failure.
EXPECTED_503 = {("POST", "/api/sessions")}


@dataclass
class FuzzReport:
    operations: int = 0
    covered: set[tuple[str, str]] = field(default_factory=set)
    examples: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    expected_503: int = 0
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        codes = ", ".join(f"{code}: {n}" for code, n in sorted(self.statuses.items()))
        return (f"{self.operations} operations, {self.examples} examples in {self.seconds:.0f} s, "
                f"{len(self.failures)} failures; statuses {codes}; documented 503s (no online "
                f"machine for a session): {self.expected_503}")


def _checks() -> list[Any]:
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    return [not_a_server_error, status_code_conformance, content_type_conformance,
            response_schema_conformance]


def _describe(label: tuple[str, str], response: Any, errors: Any, case: Any, headers: dict[str, str]) -> str:
    what = "; ".join(str(getattr(e, "title", "") or type(e).__name__) for e in errors)
    return (f"{label[0]} {label[1]} -> {response.status_code} ({what}): {response.text[:300]}\n"
            f"  {case.as_curl_command(headers)[:1500]}")


def fuzz(base_url: str, key: str, *, max_examples: int, seed: int = 0, allow_nul: bool = True) -> FuzzReport:
    """Run every operation of base_url's spec; return what was tried and what failed.

    `allow_nul=False` keeps NUL characters out of generated strings."""
    import schemathesis
    from hypothesis import HealthCheck, Phase, given, settings

    headers = {"Authorization": f"Bearer {key}"}
    schema = schemathesis.openapi.from_url(base_url + "/openapi.json", headers=headers, timeout=60)
    schema.config.generation.update(allow_x00=allow_nul)
    report, checks, started = FuzzReport(), _checks(), time.monotonic()

    def exercise(operation: Any, case: Any) -> None:
        report.examples += 1
        response = case.call(base_url=base_url, headers=headers, timeout=60)
        report.statuses[response.status_code] += 1
        label = (operation.method.upper(), operation.path)
        report.covered.add(label)
        if response.status_code == 503 and label in EXPECTED_503:
            report.expected_503 += 1
            return
        try:
            case.validate_response(response, checks=checks, headers=headers)
        except BaseExceptionGroup as group:  # checks failed: record them, go on with the next example
            report.failures.append(_describe(label, response, group.exceptions, case, headers))
        except AssertionError as exc:
            report.failures.append(_describe(label, response, (exc,), case, headers))

    def runner(operation: Any) -> Any:
        @given(case=operation.as_strategy())
        @settings(max_examples=max_examples, deadline=None, database=None, derandomize=not seed,
                  phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
        def run(case: Any) -> None:
            exercise(operation, case)

        return run

    from schemathesis.core.result import Ok

    for result in schema.get_all_operations():
        report.operations += 1
        if isinstance(result, Ok):
            runner(result.ok())()
        else:  # the spec itself is broken for this operation
            report.failures.append(f"invalid operation in /openapi.json: {result.err()}")
    report.seconds = time.monotonic() - started
    return report
