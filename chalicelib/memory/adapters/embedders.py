"""Choose the embedder from Settings: OpenAI when configured, else the local model; always cached."""

from __future__ import annotations

from chalicelib.kernel.database import Database
from chalicelib.kernel.errors import ConfigurationError
from chalicelib.kernel.settings import Settings
from chalicelib.memory.adapters.cached_embedder import CachedEmbedder
from chalicelib.memory.services.ports import Embedder

LOCAL_PROVIDERS = ("local", "onnx", "torch")


def build_embedder(settings: Settings, db: Database) -> CachedEmbedder:
    """The deployment's embedder behind the `embedding_cache` table (nothing is loaded yet)."""
    inner: Embedder
    if settings.embedding_provider == "openai":
        if not settings.openai_api_key:
            raise ConfigurationError("ITACHI_EMBEDDING_PROVIDER=openai needs OPENAI_API_KEY")
        from chalicelib.memory.adapters.openai_embedder import OpenAIEmbedder

        inner = OpenAIEmbedder(api_key=settings.openai_api_key, model=settings.embedding_model,
                               dimension=settings.embedding_dim, base_url=settings.openai_base_url,
                               timeout_s=max(10.0, 5 * settings.embedding_timeout_s))
    elif settings.embedding_provider in LOCAL_PROVIDERS:
        inner = local_embedder(settings.embedding_provider, model=settings.embedding_model,
                               dimension=settings.embedding_dim, threads=settings.embedding_threads)
    else:
        raise ConfigurationError(f"unknown embedding provider {settings.embedding_provider!r}"
                                 " (expected local, onnx, torch or openai)")
    return CachedEmbedder(inner, db)


def local_embedder(provider: str = "local", *, model: str = "all-MiniLM-L6-v2", dimension: int = 384,
                   threads: int = 1) -> Embedder:
    """The packaged MiniLM on ONNX Runtime (`onnx`) or torch (`torch`); `local` is ONNX Runtime
    when its pinned export is installed, else torch. Both give the same vectors (docs/memory.md)."""
    if provider == "local":
        from chalicelib.memory.adapters.onnx_model import model_dir

        provider = "onnx" if (model_dir() / "model.onnx").is_file() else "torch"
    if provider == "onnx":
        from chalicelib.memory.adapters.onnx_embedder import OnnxEmbedder

        return OnnxEmbedder(model=model, dimension=dimension, threads=threads)
    if provider == "torch":
        from chalicelib.memory.adapters.local_embedder import LocalEmbedder

        return LocalEmbedder(model=model, dimension=dimension, threads=threads)
    raise ConfigurationError(f"unknown local embedding provider {provider!r} (expected local, onnx or torch)")


def warm_up_embedder(embedder: Embedder) -> None:
    """Load a local model now (a network embedder needs no warming, and would cost money)."""
    inner = embedder.inner if isinstance(embedder, CachedEmbedder) else embedder
    warm = getattr(inner, "warm_up", None)
    if callable(warm):
        warm()


def warm_up_in_background(embedder: Embedder) -> None:
    """Load a local model on a thread of its own; searches answer from full text until it is loaded."""
    if isinstance(embedder, CachedEmbedder):
        embedder.warm_up_in_background()
    else:
        warm_up_embedder(embedder)
