"""What the assistant learns about its user from the conversation.

After each message: facts about the user and their preferences (`fact` / `identity` memories in
`_global`, source `assistant`); about every ten messages: personality traits (`personality_trait`
memories, with a confidence, reinforced when seen again). The model reads them when configured
(purposes `assistant_facts`, `personality`, budgeted); the rules of `domain/` otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from chalicelib.assistant.domain import personality, user_facts
from chalicelib.assistant.services.ports import AssistantUnits, Memories, Redact
from chalicelib.kernel.logging import get_logger
from chalicelib.llm.services.ports import LanguageModel
from chalicelib.memory.domain.memory_model import MemoryDraft

R = TypeVar("R")
GLOBAL = "_global"
SOURCE = "assistant"
FACTS_PURPOSE = "assistant_facts"
TRAITS_PURPOSE = "personality"
MAX_MESSAGE_CHARS = 2000
FACTS_SYSTEM = """Extract durable facts the user states about themselves: preferences (tools, style,
how they want answers or work done) and identity (name, role, employer). Only what the user said
about themselves, each as one short third-person sentence ("The user prefers ..."). None is fine."""
TRAITS_SYSTEM = """From these chat messages of one user, name up to 5 personality traits that should
shape how an assistant talks to them (tone, verbosity, formality, what they value), each with a
confidence between 0 and 1. Short phrases."""


class UserModel:
    def __init__(self, units: AssistantUnits, memories: Memories, llm: LanguageModel, redact: Redact) -> None:
        self._units, self._memories, self._llm, self._redact = units, memories, llm, redact

    def observe(self, chat_id: int, speaker: str, message: str) -> dict[str, int]:
        """Record a message, learn the facts it states, and read traits when ten are unread."""
        text = self._redact(message)[:MAX_MESSAGE_CHARS]
        with self._units() as uow:
            uow.assistant.add_message(chat_id, speaker, text)
            uow.commit()
        learned = self.learn_facts(text)
        traits = self.read_personality(chat_id)
        return {"facts": learned, "traits": traits}

    def learn_facts(self, message: str) -> int:
        if not user_facts.worth_reading(message):
            return 0
        facts = self._model_reading(FACTS_PURPOSE, FACTS_SYSTEM, message, user_facts.FACTS_SCHEMA, 250,
                                    user_facts.facts_from_answer)
        if facts is None:
            facts = user_facts.stated_facts(message)
        for fact in facts:
            category = "identity" if fact.kind == "identity" else "fact"
            self._remember(category, fact.text, 0.8, 0.7, {"source": SOURCE, "kind": fact.kind})
        return len(facts)

    def read_personality(self, chat_id: int, every: int = personality.EVERY) -> int:
        with self._units() as uow:
            unread = uow.assistant.unread(chat_id, every * 3)
            if len(unread) < every:
                return 0
            messages = [text for _, text in unread]
            listed = "\n".join(f"- {m[:400]}" for m in messages)
            traits = self._model_reading(TRAITS_PURPOSE, TRAITS_SYSTEM, listed, personality.TRAITS_SCHEMA,
                                         300, personality.traits_from_answer)
            if traits is None:
                traits = personality.heuristic_traits(messages)
            for trait in traits:
                self._remember("personality_trait", trait.text, trait.confidence, 0.6, {"source": SOURCE},
                               near_dedup=False)
            uow.assistant.mark_read(chat_id, unread[-1][0])
            uow.commit()
        get_logger().info("personality traits read", extra={"chat_id": chat_id, "traits": len(traits)})
        return len(traits)

    def top_traits(self) -> list[tuple[str, float, int]]:
        found = self._memories.recent(GLOBAL, limit=100, category="personality_trait")
        return personality.rank([(m.content, m.confidence, m.times_reinforced) for m in found])

    def about_user(self) -> list[str]:
        found = [
            *self._memories.recent(GLOBAL, limit=10, category="identity", metadata={"source": SOURCE}),
            *self._memories.recent(GLOBAL, limit=15, category="fact", metadata={"source": SOURCE}),
        ]
        return [m.content for m in found]

    def _model_reading(self, purpose: str, system: str, text: str, schema: dict[str, Any], max_tokens: int,
                       read: Callable[[dict[str, Any]], R]) -> R | None:
        """What the model reads in `text`; None when no model is configured or it gave no answer."""
        if not self._llm.enabled:
            return None
        answer = self._llm.complete_json(purpose, system, text, schema, max_tokens=max_tokens)
        return read(answer) if answer is not None else None

    def _remember(self, category: str, content: str, confidence: float, significance: float,
                  metadata: dict[str, Any], *, near_dedup: bool = True) -> None:
        draft = MemoryDraft(project=GLOBAL, category=category, content=content, confidence=confidence,
                            significance=significance, metadata=metadata)
        self._memories.remember(draft, near_dedup=near_dedup)
