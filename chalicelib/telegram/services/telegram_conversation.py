"""Free text to the bot: an LLM answer grounded in memory, within the daily LLM budget.

The context is composed from providers (facts, recent memories, active tasks, lessons: each a
function of the message and the project that returns a section, empty when it has nothing).
A provider that fails is skipped, never fatal. Significant exchanges are stored as
`conversation` memories when a writer is configured. Without an LLM the bot says what it can do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chalicelib.kernel.logging import get_logger
from chalicelib.llm.services.ports import LanguageModel
from chalicelib.telegram.domain.bot_commands import help_text
from chalicelib.telegram.domain.conversation_rules import compose_system, is_significant

PURPOSE = "telegram_chat"
GLOBAL_PROJECT = "_global"
NO_LLM = ("I answer free text with an LLM, and none is configured (set OPENAI_API_KEY). "
          "Meanwhile, these commands work:\n\n")
NO_ANSWER = "I cannot answer right now (the daily LLM budget is spent or the model did not respond). "


@dataclass(frozen=True)
class ContextProvider:
    title: str
    provide: Callable[[str, str], str]  # (message, project) -> section text


MemoryWriter = Callable[[str, str, str], object]  # (project, category, content)


class Conversation:
    def __init__(self, llm: LanguageModel, providers: Sequence[ContextProvider] = (),
                 remember: MemoryWriter | None = None) -> None:
        self._llm = llm
        self._providers = list(providers)
        self._remember = remember

    def answer(self, message: str, *, speaker: str, project: str | None = None) -> str:
        if not self._llm.enabled:
            return NO_LLM + help_text()
        scope = project or GLOBAL_PROJECT
        system = compose_system([(p.title, self._section(p, message, scope)) for p in self._providers])
        reply = self._llm.complete_text(PURPOSE, system, f"{speaker}: {message}", max_tokens=700)
        if not reply:
            return NO_ANSWER + "Commands still work: /help"
        if self._remember is not None and is_significant(message):
            try:
                self._remember(scope, "conversation", f"{speaker} said: {message}\nItachi answered: {reply}")
            except Exception:  # an answer is still worth sending when storing it failed
                get_logger().exception("conversation memory not stored")
        return reply

    @staticmethod
    def _section(provider: ContextProvider, message: str, project: str) -> str:
        try:
            return provider.provide(message, project)
        except Exception:
            get_logger().exception("context provider failed", extra={"provider": provider.title})
            return ""
