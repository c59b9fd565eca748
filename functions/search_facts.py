"""Scheduled (every 10 minutes): the facts a language model states about memories join their search keys.

One bounded run (`Settings.search_facts_batch` memories, `search_facts_per_call` per model call)
within the day's LLM budget; without a model it does nothing.
"""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import get_container


def handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    return get_container().search_facts.run()
