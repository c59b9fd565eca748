"""Index a markdown file as memories, re-indexing only what changed.

The index state lives with the memories: each chunk carries `source_path`, `file_hash`,
`chunk_index` and `heading_path` in its metadata, and its content hash identifies it. A file
whose hash matches every stored chunk is skipped without chunking or embedding; otherwise
only new chunks are embedded and stored, and chunks that disappeared are deleted. The whole
text is redacted before chunking, so a secret cut by a chunk boundary is still caught.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from chalicelib.kernel.redaction import redact
from chalicelib.memory.domain.markdown_chunks import chunk_markdown
from chalicelib.memory.domain.memory_hygiene import clean
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.domain.provenance import Writer
from chalicelib.memory.services.memory_service import MemoryService


@dataclass(frozen=True)
class IndexReport:
    path: str
    chunks: int
    added: int
    removed: int
    unchanged: int
    skipped: bool = False  # the file had not changed at all

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "chunks": self.chunks, "added": self.added, "removed": self.removed,
                "unchanged": self.unchanged, "skipped": self.skipped}


class DocumentIndexer:
    def __init__(self, memory: MemoryService) -> None:
        self._memory = memory

    def index(self, project: str, path: str, text: str, *, category: str = "document",
              writer: Writer = "pipeline") -> IndexReport:
        file_hash = hashlib.sha256(text.encode()).hexdigest()
        stored = self._memory.stored_chunks(project, path)
        if stored and all(fh == file_hash for _, _, fh in stored):
            return IndexReport(path, len(stored), 0, 0, len(stored), skipped=True)
        drafts = [
            MemoryDraft(project=project, category=category, content=chunk.content, files=(path,),
                        metadata={"source_path": path, "file_hash": file_hash, "chunk_index": chunk.index,
                                  "heading_path": list(chunk.heading_path)}, writer=writer)
            for chunk in chunk_markdown(redact(text))
        ]
        by_hash = {clean(d).content_hash: d for d in drafts}
        stored_hashes = {h: memory_id for memory_id, h, _ in stored}
        new = [d for h, d in by_hash.items() if h not in stored_hashes]
        gone = [memory_id for h, memory_id in stored_hashes.items() if h not in by_hash]
        kept = {h: memory_id for h, memory_id in stored_hashes.items() if h in by_hash}
        if new:
            self._memory.remember_many(new, near_dedup=False)
        removed = self._memory.delete_many(gone)
        for h, memory_id in kept.items():  # the file changed around them: new position, new file hash
            self._memory.update_metadata(memory_id, by_hash[h].metadata)
        return IndexReport(path, len(by_hash), len(new), removed, len(kept))
