"""LLM calls and tokens the graph store pipeline spends per prompt when a key is set.

    .venv/bin/python bench/graph_store_cost.py [-n 20]

Runs the store pipeline (classify, filter and instructions, the store tool loop, reconciliation)
on `-n` prompts of the kind the prompt hook sends, through the real openai SDK against the
local fake OpenAI server (no real key is used or needed). The fake answers a typical run: the
prompt is to be stored, one fact or instruction, `search_entity`, `store_memory`, `done`; an
instruction with similar older ones is reconciled (the fake finds no conflict). Tokens are what
`llm_usage` recorded: the input as the fake counts it (4 characters a token, as OpenAI's rule
of thumb), so they measure what Itachi sends (prompts, schemas, tool definitions, the growing
loop transcript); completion tokens are the scripted answers' and stand in for a real model's
short tool calls.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo import postgres_url
from bench.memory_api import ItachiServer
from tests.fakes.fake_openai import FakeOpenAI

PROMPTS = [
    ("fact", "Dana owns the billing service and reviews every change to its invoices module."),
    ("instruction", "From now on our team never deploys the billing service on Fridays."),
    ("fact", "The staging cluster runs on k3s with three nodes in the Lisbon office."),
    ("instruction", "Always run make lint before pushing anything under chalicelib/graph."),
]


def script(fake: FakeOpenAI, kind: str, text: str, entity: str) -> None:
    fake.script_chat(
        json.dumps(
            {
                "entities": [{"name": entity, "type": "tool"}],
                "facts": [],
                "events": [],
                "plans": [],
                "opinions": [],
                "intents": ["instruction"],
                "retrieve": True,
                "store": True,
            }
        )
    )
    item = {"type": "fact", "subtype": None, "content": text, "valid_from": None, "entities": [entity]}
    rule = {"content": text, "pattern": "ban", "scope": 0.5, "entities": [entity]}
    fake.script_chat(
        json.dumps(
            {
                "items": [item] if kind == "fact" else [],
                "instructions": [rule] if kind == "instruction" else [],
            }
        )
    )
    fake.script_chat_tool_calls(("search_entity", {"name": entity}))
    fake.script_chat_tool_calls(("store_memory", {"type": kind, "content": text}))
    fake.script_chat_tool_calls(("done", {"stored_count": 1}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("-n", type=int, default=20)
    args = parser.parse_args()
    from chalicelib.bootstrap import build
    from chalicelib.kernel.settings import Settings

    server = ItachiServer(env={"ITACHI_EMBEDDING_TIMEOUT_S": "120"}).start()
    try:
        handle, url = postgres_url(server)
        # Reconciliation (asked only when a similar instruction exists) gets the default: no conflict.
        with FakeOpenAI(default_chat_content=json.dumps({"verdicts": []})) as fake:
            settings = Settings.from_env({"ITACHI_HOME": str(server.home)}).replace(
                database_url=url,
                openai_api_key="sk-bench",
                openai_base_url=fake.base_url,
                llm_daily_budget_usd=100.0,
            )
            container = build(settings)
            try:
                for i in range(args.n):
                    kind, text = PROMPTS[i % len(PROMPTS)]
                    text = f"{text} (note {i})"
                    script(fake, kind, text, "billing service")
                    container.graph_store.run({"project": "bench", "text": text})
                with container.llm_units() as uow:
                    rows = uow.usage.by_day_and_purpose(1)
            finally:
                container.close()
        handle.cleanup()
    finally:
        server.stop()
    print(f"{args.n} prompts through the store pipeline (half facts, half instructions)\n")
    print("| purpose | calls | calls per prompt | prompt tokens per call | completion tokens per call |")
    print("|---|---|---|---|---|")
    calls = tokens = 0
    for r in rows:
        n = int(r["calls"])
        calls += n
        tokens += int(r["prompt_tokens"]) + int(r["completion_tokens"])
        print(
            f"| {r['purpose']} | {n} | {n / args.n:.2f} | {int(r['prompt_tokens']) / n:.0f} | "
            f"{int(r['completion_tokens']) / n:.0f} |"
        )
    print(f"\nper prompt: {calls / args.n:.2f} calls, {tokens / args.n:.0f} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
