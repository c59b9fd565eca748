"""Long coding conversations generated for retrieval: facts stated, updated and contradicted.

    .venv/bin/python -m bench.coding_conversations [--conversations 8] [--seed 7] --out F.json

Deterministic for a seed. Each conversation is one project's working history: `--sessions`
sessions a few days apart, each a run of user / assistant messages about a codebase. Assistant
answers are long (2,000-6,000 characters: explanation paragraphs and code blocks, well past the
embedding model's 256 word pieces), and the facts a later question asks about sit anywhere in
them, often deep inside. Each conversation carries:
- facts stated once (a version, a port, a timeout, a count, a day, a tool, a file or a
  function name), asked about later ("Which Postgres version does staging run?");
- facts updated in a later session with another value ("staging moved from Postgres 15 to
  16"); the question's evidence is the update, the earlier statement is recorded as outdated;
- contradictions: two messages in different sessions state different values without saying one
  replaces the other; the question's evidence is both.
Questions use the wording a person would, not the message's. Output: JSON with conversations
(id, sessions with dates, messages with ids "S<session>:<n>", role, text) and questions (id,
text, kind, evidence ids, outdated ids). Nothing here is fitted to Itachi's search.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Fact:
    subject: str  # the thing the fact is about, as messages name it
    statement: str  # "{v}" is the value
    update: str  # "{old}" and "{v}"
    question: str
    values: tuple[str, ...]


FACTS = (
    Fact("staging database", "The staging database runs Postgres {v}, with pgvector enabled.",
         "We moved the staging database from Postgres {old} to Postgres {v} this morning.",
         "Which Postgres version is the staging database on?", ("13", "14", "15", "16", "17")),
    Fact("API gateway timeout", "The API gateway timeout is set to {v} seconds for every route.",
         "I raised the API gateway timeout from {old} to {v} seconds after the export job failed.",
         "How long may a request take before the gateway cuts it off?", ("29", "30", "45", "60", "90")),
    Fact("deploy day", "Production deploys happen on {v} afternoons, after the standup.",
         "Deploys are now on {v}, not {old}, because of the on-call rotation.",
         "On which day of the week do we ship to production?",
         ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays")),
    Fact("worker concurrency", "The queue worker runs with a concurrency of {v} consumers per container.",
         "Worker concurrency went from {old} to {v} consumers per container after the load test.",
         "How many consumers does each worker container start?", ("4", "6", "8", "12", "16")),
    Fact("dev server port", "The local dev server listens on port {v}; the proxy forwards to it.",
         "The dev server port changed from {old} to {v} because another tool grabbed the old one.",
         "Which port do I open to reach the app locally?", ("3000", "5173", "8000", "8080", "8787")),
    Fact("package manager", "The frontend uses {v} for installs; the lockfile is committed.",
         "We switched the frontend from {old} to {v}, so delete node_modules and reinstall.",
         "What installs the JavaScript dependencies?", ("npm", "pnpm", "yarn", "bun")),
    Fact("retry limit", "Failed webhook deliveries are retried {v} times with exponential backoff.",
         "Webhook retries are now capped at {v} instead of {old} attempts.",
         "How many times is a failing webhook attempted again?", ("3", "5", "7", "10")),
    Fact("cache TTL", "Session tokens stay in the Redis cache for {v} minutes.",
         "The Redis session TTL is {v} minutes now, down from {old}.",
         "When does a cached login expire?", ("15", "30", "45", "60", "120")),
    Fact("entry module", "The billing logic lives in `{v}`; start reading there.",
         "Billing moved out of `{old}` into `{v}` during the refactor.",
         "Where is the code that computes invoices?",
         ("billing/invoice.py", "services/billing_service.py", "app/payments/ledger.py", "core/charges.py")),
    Fact("release branch", "Releases are cut from the `{v}` branch every second week.",
         "We cut releases from `{v}` now; `{old}` is frozen.",
         "Which branch do release builds come from?", ("main", "release", "stable", "trunk")),
    Fact("CI runner", "CI runs on {v} runners with 4 vCPUs.",
         "CI moved from {old} to {v} runners to cut queue times.",
         "What kind of machines run our pipelines?",
         ("GitHub-hosted", "self-hosted ARM", "Buildkite", "GitLab shared")),
    Fact("log retention", "Application logs are kept for {v} days in CloudWatch.",
         "Log retention dropped from {old} to {v} days to save cost.",
         "How long do we keep application logs?", ("7", "14", "30", "90")),
)

TOPICS = ("the retry wrapper", "the upload handler", "the auth middleware", "the search endpoint",
          "the migration runner", "the rate limiter", "the CSV importer", "the notification service",
          "the feature flag client", "the health check", "the pagination helper", "the webhook signer")
VERBS = ("refactor", "debug", "add tests for", "speed up", "document", "type-annotate", "split up",
         "review", "profile", "harden")
PROSE = (
    "The function does three things at once, which is why it is hard to test: it parses the input, "
    "talks to the database and formats the response.",
    "I would start by pulling the parsing into a pure function, then pass the connection in "
    "explicitly instead of reaching for a global.",
    "There is a subtle ordering problem here: the lock is taken after the read, so two callers can "
    "both see the old value and both write.",
    "Most of the time goes into serialising the rows one by one; batching them cuts the round trips "
    "from hundreds to a handful.",
    "The error path swallows the exception and returns None, so the caller cannot tell a missing "
    "record from a failed query.",
    "A property-based test would catch the edge cases around empty input and unicode that the "
    "current examples miss.",
    "Keep the public signature as it is for now; callers in three packages depend on it and a "
    "breaking change needs its own release note.",
    "The log line includes the whole payload, which can contain tokens: log the id and the size "
    "instead.",
    "The retry loop has no upper bound on its sleep, so a long outage turns into hour-long waits "
    "between attempts.",
    "You can replace the hand-written loop with a comprehension, but the bigger win is not "
    "computing the same thing twice.",
    "The type checker complains because the function returns a dict in one branch and a list in "
    "the other; pick one shape.",
    "This module imports the HTTP client at import time, which makes every cold start pay for it.",
    "Pagination uses OFFSET, which gets slower as the table grows; a keyset on (created_at, id) "
    "stays fast.",
    "The test is flaky because it sleeps a fixed time instead of waiting for the condition.",
)
CODE = (
    "```python\ndef {name}(rows, *, batch=500):\n    out = []\n    for start in range(0, len(rows), batch):\n"
    "        chunk = rows[start:start + batch]\n        out.extend(process(chunk))\n    return out\n```",
    "```python\nclass {cls}:\n    def __init__(self, conn):\n        self._conn = conn\n\n"
    "    def get(self, key):\n        row = self._conn.execute(\"SELECT value FROM kv WHERE key = %s\","
    " (key,)).fetchone()\n        return row[0] if row else None\n```",
    "```bash\n$ pytest -q tests/test_{name}.py -x\n....F\n"
    "FAILED tests/test_{name}.py::test_{name}_handles_empty\n1 failed, 4 passed in 0.42s\n```",
    "```python\n@retry(attempts=3)\ndef {name}(client, payload):\n"
    "    response = client.post(\"/api/{name}\", json=payload, timeout=10)\n"
    "    response.raise_for_status()\n    return response.json()\n```",
)
ASKS = ("Can you help me {verb} {topic}?", "I want to {verb} {topic}, where do I start?",
        "{topic} is a mess; let's {verb} it.", "Next: {verb} {topic}. Thoughts?")


def _name(rng: random.Random) -> tuple[str, str]:
    word = rng.choice(("load", "sync", "fetch", "index", "merge", "flush", "parse", "render"))
    thing = rng.choice(("events", "users", "orders", "batches", "tokens", "reports", "files"))
    return f"{word}_{thing}", f"{word.title()}{thing.title()}"


def _answer(rng: random.Random, topic: str, inserts: list[str]) -> str:
    """A long assistant answer about `topic`; each insert sits somewhere in the middle or end."""
    parts = [f"Sure, let's look at {topic}."]
    for _ in range(rng.randint(8, 18)):
        name, cls = _name(rng)
        parts.append(rng.choice(CODE).format(name=name, cls=cls) if rng.random() < 0.3
                     else " ".join(rng.sample(PROSE, 3)))
    for text in inserts:
        parts.insert(rng.randint(max(1, len(parts) // 3), len(parts)), text)
    parts.append("Let me know if you want me to apply the change.")
    return "\n\n".join(parts)


def conversation(rng: random.Random, index: int, sessions: int, start: datetime) -> dict[str, Any]:
    facts = rng.sample(FACTS, len(FACTS))
    plan: dict[int, list[tuple[str, Fact, str, str]]] = {s: [] for s in range(1, sessions + 1)}
    questions: list[dict[str, Any]] = []
    for k, fact in enumerate(facts):
        first_session = rng.randint(1, max(1, sessions // 2))
        old, new = rng.sample(fact.values, 2)
        kind = ("updated", "contradicted", "stated")[k % 3]
        plan[first_session].append(("state", fact, old, ""))
        if kind != "stated":
            later = rng.randint(first_session + 1, sessions)
            plan[later].append(("update" if kind == "updated" else "restate", fact, new, old))
        questions.append({"fact": fact.subject, "kind": kind, "text": fact.question})
    messages_by_session = []
    where: dict[tuple[str, str], str] = {}  # (subject, state|update|restate) -> message id
    for s in range(1, sessions + 1):
        messages: list[dict[str, str]] = []
        events = list(plan[s])
        pairs = rng.randint(10, 14)
        slots: dict[int, list[tuple[str, Fact, str, str]]] = {p: [] for p in range(pairs)}
        for event in events:
            slots[rng.randrange(pairs)].append(event)
        for p in range(pairs):
            topic = rng.choice(TOPICS)
            ask = rng.choice(ASKS).format(verb=rng.choice(VERBS), topic=topic)
            inserts: list[str] = []
            user_inserts: list[str] = []
            ids: list[tuple[str, str, str]] = []
            for what, fact, value, old in slots[p]:
                text = (fact.update.format(v=value, old=old) if what == "update"
                        else fact.statement.format(v=value))
                (user_inserts if what == "update" and rng.random() < 0.5 else inserts).append(text)
                ids.append((fact.subject, what, "user" if text in user_inserts else "assistant"))
            user_text = " ".join([ask, *user_inserts])
            messages.append({"id": f"S{s}:{len(messages) + 1}", "role": "user", "text": user_text})
            messages.append({"id": f"S{s}:{len(messages) + 1}", "role": "assistant",
                             "text": _answer(rng, topic, inserts)})
            for subject, what, role in ids:
                where[(subject, what)] = messages[-2 if role == "user" else -1]["id"]
        date = start + timedelta(days=3 * (s - 1))
        messages_by_session.append({"session": s, "date": date.isoformat(), "messages": messages})
    for q in questions:
        stated = where[(q["fact"], "state")]
        if q["kind"] == "updated":
            q["evidence"], q["outdated"] = [where[(q["fact"], "update")]], [stated]
        elif q["kind"] == "contradicted":
            q["evidence"], q["outdated"] = [stated, where[(q["fact"], "restate")]], []
        else:
            q["evidence"], q["outdated"] = [stated], []
    return {"id": f"coding-{index}", "sessions": messages_by_session,
            "questions": [{"qid": f"coding-{index}-q{i}", **q} for i, q in enumerate(questions)]}


def generate(conversations: int, sessions: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    start = datetime(2026, 3, 2, 9, tzinfo=UTC)
    return {"seed": seed, "conversations": [
        conversation(rng, i + 1, sessions, start + timedelta(days=60 * i)) for i in range(conversations)]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    data = generate(args.conversations, args.sessions, args.seed)
    args.out.write_text(json.dumps(data, indent=1))
    messages = [m for c in data["conversations"] for s in c["sessions"] for m in s["messages"]]
    long = [m for m in messages if m["role"] == "assistant"]
    print(f"{len(data['conversations'])} conversations, {len(messages)} messages (assistant answers "
          f"{min(len(m['text']) for m in long)}-{max(len(m['text']) for m in long)} characters), "
          f"{sum(len(c['questions']) for c in data['conversations'])} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
