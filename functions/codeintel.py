"""Scheduled code-intelligence workers (chalicelib/codeintel): one handler per schedule row.

Each is idempotent (a run with nothing new writes nothing) and bounded per run; the ones that
ask the LLM are budgeted and fall back to rules without a key.
"""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger


def _done(worker: str, counts: dict[str, Any]) -> dict[str, Any]:
    get_logger().info(f"{worker} done", extra=counts)
    return counts


def synthesize_sessions(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _done("session synthesizer", get_container().codeintel.session_synthesizer.run())


def analyze_edits(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _done("edit analyzer", get_container().codeintel.edit_analyzer.run())


def repo_expertise(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _done("repo expertise", get_container().codeintel.repo_expertise.run())


def extract_style(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _done("style extractor", get_container().codeintel.style_extractor.run())


def cross_project(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _done("cross-project insights", get_container().codeintel.cross_project.run())


def index_transcripts(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _done("transcript indexer", get_container().codeintel.transcript_indexer.run())


def github_sync(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _done("github sync", get_container().codeintel.github_sync.run())
