"""A Lambda cold start with the ONNX embedder, inside an unzipped package: run by path, not imported.

    python3.11 -I -S infra/lambda_probe.py CODE_DIR MODULE TEXT...

With `-I -S` nothing but the standard library and CODE_DIR is importable (as in /var/task). It
imports MODULE (a handler's module: `app`, `functions.lambda_entry` with ITACHI_HANDLER set),
builds the embedder the way the container does from the environment's settings
(ITACHI_EMBEDDING_PROVIDER, LAMBDA_TASK_ROOT pointing at CODE_DIR), embeds the texts, and prints
one JSON line: the phases' wall and CPU seconds, the peak RSS, the provider, model and dimension,
the onnxruntime and numpy versions it loaded (and from where), and the vectors.
"""

from __future__ import annotations

import importlib
import json
import resource
import sys
import time


def main(code_dir: str, module: str, texts: list[str]) -> dict[str, object]:
    sys.path.insert(0, code_dir)
    phases: dict[str, tuple[float, float]] = {}
    wall, cpu = time.perf_counter(), time.process_time()

    def mark(name: str) -> None:
        nonlocal wall, cpu
        phases[name] = (round(time.perf_counter() - wall, 4), round(time.process_time() - cpu, 4))
        wall, cpu = time.perf_counter(), time.process_time()

    importlib.import_module(module)
    mark("import_handler")
    from chalicelib.kernel.settings import Settings
    from chalicelib.memory.adapters.embedders import local_embedder

    settings = Settings.from_env()  # as the container builds it (secrets too, when named)
    embedder = local_embedder(settings.embedding_provider, model=settings.embedding_model,
                              dimension=settings.embedding_dim, threads=settings.embedding_threads)
    mark("settings")
    embedder.embed(["warm up"])  # loads the runtime and the model (checked by hash), then one encode
    mark("load_and_first_embed")
    vectors = embedder.embed(texts)
    mark("embed")
    import numpy
    import onnxruntime

    peak_mib = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return {"phases": phases, "peak_rss_mib": peak_mib,
            "provider": settings.embedding_provider, "model": embedder.model, "dimension": embedder.dimension,
            "onnxruntime": [onnxruntime.__version__, onnxruntime.__file__],
            "numpy": [numpy.__version__, numpy.__file__], "vectors": vectors}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], sys.argv[3:])))
