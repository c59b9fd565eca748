"""The container for the code-intelligence tests: real Postgres and moto, the deterministic word
embedder (the workers' memories are embedded like any other), with or without the fake OpenAI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container, set_container
from tests.fakes.fake_embedder import WordEmbedder
from tests.fakes.fake_openai import FakeOpenAI
from tests.support.local_stack import make_container, settings_for_test


@pytest.fixture
def intel(container: Container) -> Container:
    """No OpenAI key: every worker takes its rules path."""
    container.embedder = WordEmbedder()  # type: ignore[misc]
    return container


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def keyed(
    tmp_path: Path, database_url: str, moto_endpoint: str, fake_openai: FakeOpenAI
) -> Iterator[Container]:
    """An OpenAI key pointing at the fake: the workers ask the model through the budgeted port."""
    settings = settings_for_test(tmp_path / "keyed", database_url, moto_endpoint).replace(
        openai_api_key="sk-test", openai_base_url=fake_openai.base_url, embedding_provider="local"
    )
    container = make_container(settings, with_queues=False)
    container.embedder = WordEmbedder()  # type: ignore[misc]
    set_container(container)
    yield container
    set_container(None)
    container.close()
