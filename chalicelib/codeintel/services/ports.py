"""What the code-intelligence workers need: their unit of work (reads, products, the repos
registry), the memory core's write path, and GitHub's repository listing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from chalicelib.codeintel.domain.cross_project import Learned
from chalicelib.codeintel.domain.edit_patterns import EditRow
from chalicelib.codeintel.domain.github_repos import RepoRecord
from chalicelib.codeintel.domain.products import Product
from chalicelib.codeintel.domain.style_profile import EditText
from chalicelib.kernel.unit_of_work import UnitOfWork
from chalicelib.memory.domain.memory_model import MemoryDraft, StoreResult


class CodeIntelRepository(Protocol):
    def product(self, worker: str, project: str, subject: str) -> Product | None: ...

    def save_product(self, worker: str, project: str, subject: str, product: Product) -> None: ...

    def drop_memories(self, ids: list[str]) -> None: ...

    def sessions_without(self, worker: str, limit: int, *, with_transcript: bool) -> list[dict[str, Any]]: ...

    def session_files(self, session_id: str, limit: int = 50) -> list[str]: ...

    def projects_with_new_edits(self, worker: str, limit: int) -> list[tuple[str, int]]: ...

    def recent_edits(self, project: str, days: int, limit: int) -> list[EditRow]: ...

    def edit_texts(self, project: str, limit: int) -> list[EditText]: ...

    def file_counts(self, project: str, limit: int) -> list[tuple[str, int]]: ...

    def session_count(self, project: str) -> int: ...

    def memory_texts(self, project: str, categories: tuple[str, ...], limit: int) -> list[str]: ...

    def latest_memory(self, project: str, category: str) -> str | None: ...

    def learned(self, categories: tuple[str, ...], min_confidence: float, limit: int) -> list[Learned]: ...


class RepoRegistry(Protocol):
    def upsert(self, repo: RepoRecord) -> str: ...

    def all(self) -> list[dict[str, Any]]: ...


class CodeIntelUnitOfWork(UnitOfWork, Protocol):
    intel: CodeIntelRepository
    repos: RepoRegistry


CodeIntelUnits = Callable[[], CodeIntelUnitOfWork]
StoreMemories = Callable[[Sequence[MemoryDraft]], list[StoreResult]]
Redact = Callable[[str], str]


class GitHubListing(Protocol):
    def user_repos(self, page: int, per_page: int) -> list[Any]:
        """One page of `GET /user/repos` (raises on an HTTP failure)."""
        ...
