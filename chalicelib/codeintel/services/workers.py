"""The seven code-intelligence workers, built on first use over one set of ports."""

from __future__ import annotations

from functools import cached_property

from chalicelib.codeintel.services.cross_project import CrossProjectInsights
from chalicelib.codeintel.services.edit_analyzer import EditAnalyzer
from chalicelib.codeintel.services.github_sync import GitHubSync
from chalicelib.codeintel.services.ports import CodeIntelUnits, GitHubListing, Redact, StoreMemories
from chalicelib.codeintel.services.publisher import Publisher
from chalicelib.codeintel.services.repo_expertise import RepoExpertise
from chalicelib.codeintel.services.session_synthesizer import SessionSynthesizer
from chalicelib.codeintel.services.style_extractor import StyleExtractor
from chalicelib.codeintel.services.transcript_indexer import TranscriptIndexer
from chalicelib.llm.services.ports import LanguageModel


class CodeIntelWorkers:
    def __init__(
        self,
        units: CodeIntelUnits,
        store: StoreMemories,
        llm: LanguageModel,
        redact: Redact,
        github: GitHubListing | None,
    ) -> None:
        self._units, self._llm, self._redact, self._github = units, llm, redact, github
        self._publisher = Publisher(units, store)

    @cached_property
    def session_synthesizer(self) -> SessionSynthesizer:
        return SessionSynthesizer(self._units, self._publisher, self._llm)

    @cached_property
    def edit_analyzer(self) -> EditAnalyzer:
        return EditAnalyzer(self._units, self._publisher)

    @cached_property
    def repo_expertise(self) -> RepoExpertise:
        return RepoExpertise(self._units, self._publisher, self._llm)

    @cached_property
    def style_extractor(self) -> StyleExtractor:
        return StyleExtractor(self._units, self._publisher, self._llm)

    @cached_property
    def cross_project(self) -> CrossProjectInsights:
        return CrossProjectInsights(self._units, self._publisher, self._llm)

    @cached_property
    def transcript_indexer(self) -> TranscriptIndexer:
        return TranscriptIndexer(self._units, self._publisher, self._redact)

    @cached_property
    def github_sync(self) -> GitHubSync:
        return GitHubSync(self._units, self._github)
