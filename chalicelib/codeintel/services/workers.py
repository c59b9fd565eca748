"""The seven code-intelligence workers, built together over one set of ports and one publisher."""

from __future__ import annotations

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
        publisher = Publisher(units, store)
        self.session_synthesizer = SessionSynthesizer(units, publisher, llm)
        self.edit_analyzer = EditAnalyzer(units, publisher)
        self.repo_expertise = RepoExpertise(units, publisher, llm)
        self.style_extractor = StyleExtractor(units, publisher, llm)
        self.cross_project = CrossProjectInsights(units, publisher, llm)
        self.transcript_indexer = TranscriptIndexer(units, publisher, redact)
        self.github_sync = GitHubSync(units, github)
