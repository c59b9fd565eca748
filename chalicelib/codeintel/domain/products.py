"""What a code-intelligence worker last wrote for one (project, subject): its product."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Product:
    """`mark` is the newest source row the worker has seen (e.g. an edit id); `content_hash` tells
    an unchanged product from a new one; `memory_ids` are the memories it wrote."""

    mark: int
    content_hash: str
    memory_ids: tuple[str, ...]
    generator: str
