"""The model's pass over search keys: facts a language model states about a memory join its key.

Off the write path (the `search-facts` schedule): one run takes up to `batch` memories whose key
has had no model pass, the fewest failed passes first, then the oldest (live, trusted, of the
categories searched by default), and asks the model about `per_call` of them at a time
(`key_facts`). Each memory's facts replace the ones a pass before added, after its model-free key,
within MAX_KEY_CHARS (`search_keys.with_facts`), and the memory is marked done in the same
statement, so a rerun appends nothing. A call that
answers None (the day's budget spent, a failure, an unusable answer) leaves its memories waiting
for a later run, and the run goes on with the next group: over budget every later call answers
None at once, without reaching the model. The failure is counted on each of them (`tries`) only
when another call of the same run was answered, so the model, reachable and within the budget,
failed on these memories: a day over budget or an outage counts nothing. A memory failed on before
goes after the ones never asked, and alone, so one the model keeps failing on holds back neither
the ones behind it nor the ones it was asked with; after MAX_TRIES counted failures it is asked no
more and keeps its model-free key (a rewrite of its content starts it over). Without a model
nothing is read and nothing is marked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from chalicelib.kernel.logging import get_logger
from chalicelib.llm.services.ports import LanguageModel
from chalicelib.memory.domain.key_facts import (
    SCHEMA,
    SYSTEM,
    KeyFacts,
    WaitingMemory,
    answer_tokens,
    facts_of,
    prompt,
)
from chalicelib.memory.domain.search_keys import with_facts

PURPOSE = "memory_search_facts"
MAX_TRIES = 3


class SearchFactsStore(Protocol):
    def waiting(self, limit: int, max_tries: int) -> list[WaitingMemory]:
        """Memories whose key waits for the model's pass, failed on fewer than `max_tries` times: the
        fewest failed passes first, then the oldest."""
        ...

    def failed(self, memory_ids: Sequence[str]) -> None:
        """Count one more unanswered pass on each of these memories."""
        ...

    def record(self, results: Sequence[KeyFacts]) -> int:
        """Store the new keys and mark them done, each only if its memory still waits with the
        content the model read; return how many were stored."""
        ...


class SearchFactsUnit(Protocol):
    @property
    def search_facts(self) -> SearchFactsStore: ...

    def commit(self) -> None: ...


class SearchFacts:
    def __init__(self, units: Callable[[], AbstractContextManager[SearchFactsUnit]], llm: LanguageModel, *,
                 batch: int, per_call: int) -> None:
        self._units = units
        self._llm = llm
        self._batch = batch
        self._per_call = per_call

    def run(self) -> dict[str, int]:
        """One bounded pass: counts of memories keyed, facts the model stated, calls made and memories left
        waiting by a call that answered None."""
        counts = {"keyed": 0, "facts": 0, "calls": 0, "left": 0}
        if not self._llm.enabled:
            return counts
        with self._units() as uow:
            waiting = uow.search_facts.waiting(self._batch, MAX_TRIES)
        unanswered: list[str] = []
        answered = False
        for group in _groups(waiting, self._per_call):
            counts["calls"] += 1
            answer = self._llm.complete_json(PURPOSE, SYSTEM, prompt(group), SCHEMA,
                                             max_tokens=answer_tokens(len(group)), temperature=0.0)
            if answer is None:  # this group waits for a later run; the next may still be keyed
                counts["left"] += len(group)
                unanswered += [memory.memory_id for memory in group]
                continue
            answered = True
            facts = facts_of(answer, len(group))
            results = [_keyed(memory, found) for memory, found in zip(group, facts, strict=True)]
            with self._units() as uow:
                counts["keyed"] += uow.search_facts.record(results)
                uow.commit()
            counts["facts"] += sum(map(len, facts))
        if answered and unanswered:  # the model answered others: it failed on these
            with self._units() as uow:
                uow.search_facts.failed(unanswered)
                uow.commit()
        get_logger().info("search facts done", extra=counts)
        return counts


def _groups(waiting: Sequence[WaitingMemory], per_call: int) -> Iterator[Sequence[WaitingMemory]]:
    """The memories never asked about, `per_call` to a call; then each one asked before, alone."""
    fresh = [memory for memory in waiting if memory.tries == 0]
    for start in range(0, len(fresh), per_call):
        yield fresh[start:start + per_call]
    yield from ([memory] for memory in waiting if memory.tries > 0)


def _keyed(memory: WaitingMemory, facts: list[str]) -> KeyFacts:
    key, appended = with_facts(memory.search_key, memory.search_facts, facts)
    return KeyFacts(memory.memory_id, memory.content_hash, key, appended)
