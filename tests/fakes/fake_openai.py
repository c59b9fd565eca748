"""A local fake of the OpenAI chat completions, embeddings and transcriptions API, for the real openai SDK.

Itachi's integration tests point ``OpenAI(api_key=..., base_url=fake.base_url)`` at it.
Chat requests are checked as the real API checks them (``openai_rules``: per-model parameters,
unknown parameters, strict JSON schemas, tool definitions and tool-message order, unknown
models), and so are embeddings requests (``openai_embedding_rules``: models, ``dimensions``,
8,192 tokens an input, 2,048 inputs and 300,000 tokens a request); refusals carry the real
API's status, message, param and code. Replies are scripted: content, a refusal, an error (a
429 may carry Retry-After), or a delay to provoke client timeouts. Content longer than the
request's output cap is cut to it with ``finish_reason: "length"``, as the real API does.
Embeddings are deterministic unit vectors built from hashes of the text and its words, so
equal texts get equal vectors and texts sharing words point in similar directions.
Transcriptions are ``openai_audio``'s.
"""

from __future__ import annotations

import array
import base64
import functools
import hashlib
import itertools
import json
import math
import random
import re
import struct
import threading
import time
from collections import Counter, deque
from email.message import Message
from http import HTTPStatus
from typing import Any, NamedTuple

from tests.fakes.local_http_server import LocalHttpServer, Reply
from tests.fakes.openai_audio import TRANSCRIPTIONS_PATH, transcription
from tests.fakes.openai_embedding_rules import answer_dimensions, check_embeddings_request
from tests.fakes.openai_message_rules import check_chat_shape
from tests.fakes.openai_rules import check_chat_request, output_cap

CHAT_PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"
_ERROR_KINDS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", None),
    429: ("requests", "rate_limit_exceeded"),
}
_BEARER = re.compile(r"Bearer\s+\S+")
_WORD = re.compile(r"\w+")


class RecordedRequest(NamedTuple):
    """One request as received: path, headers (lower-case names) and JSON body (or None)."""

    path: str
    headers: dict[str, str]
    json: Any


def error_body(status: int, message: str, param: str | None = None,
               code: str | None = None) -> dict[str, Any]:
    """An OpenAI-shaped error body for ``status``."""
    kind, default_code = _ERROR_KINDS.get(status, ("server_error", None))
    return {"error": {"message": message, "type": kind, "param": param, "code": code or default_code}}


class FakeOpenAI(LocalHttpServer):
    """Serve ``POST /v1/chat/completions`` and ``POST /v1/embeddings`` on 127.0.0.1.

    Use it as a context manager. Scripted chat replies are consumed one per request, in
    order; with none left the reply is ``default_chat_content``.
    """

    def __init__(self, *, default_chat_content: str = "{}") -> None:
        super().__init__()
        self.default_chat_content = default_chat_content
        self.requests: list[RecordedRequest] = []
        self._chat_script: deque[_Scripted] = deque()
        self._embedding_script: deque[_Scripted] = deque()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """The value for the SDK's ``base_url``."""
        return f"{self.url}/v1"

    # -- scripting and inspection --------------------------------------------------------

    def script_chat(self, content: str) -> None:
        """Answer a later chat request with ``content`` as the assistant message."""
        self._push(self._chat_script, _Scripted(content=content))

    def script_chat_tool_calls(self, *calls: tuple[str, dict[str, Any]]) -> None:
        """Answer a later chat request with these function calls (name, arguments), as a model
        given ``tools`` does: no content, ``finish_reason: "tool_calls"``."""
        numbered = tuple((next(self._ids), name, json.dumps(args)) for name, args in calls)
        scripted = _Scripted(tool_calls=numbered, finish_reason="tool_calls")
        self._push(self._chat_script, scripted)

    def script_chat_refusal(self, message: str = "I'm sorry, I cannot help with that.") -> None:
        """Answer a later chat request with a refusal (no content), as structured outputs do."""
        self._push(self._chat_script, _Scripted(refusal=message))

    def script_chat_finish(self, content: str, finish_reason: str) -> None:
        """Answer a later chat request with ``content`` and ``finish_reason`` (e.g. "length")."""
        self._push(self._chat_script, _Scripted(content=content, finish_reason=finish_reason))

    def script_chat_error(
        self,
        status: int,
        body: dict[str, Any] | str | None = None,
        retry_after: float | None = None,
    ) -> None:
        """Answer a later chat request with an error; a string body becomes its message."""
        self._push(self._chat_script, _error(status, body, retry_after))

    def script_chat_delay(self, seconds: float, content: str | None = None) -> None:
        """Answer a later chat request only after ``seconds`` (default content if None)."""
        self._push(self._chat_script, _Scripted(content=content, delay=seconds))

    def script_embeddings_error(
        self,
        status: int,
        body: dict[str, Any] | str | None = None,
        retry_after: float | None = None,
    ) -> None:
        """Answer a later embeddings request with an error."""
        self._push(self._embedding_script, _error(status, body, retry_after))

    def requests_to(self, path: str) -> list[Any]:
        """JSON bodies of every request to ``path`` (e.g. ``/v1/embeddings``), oldest first."""
        with self._lock:
            return [request.json for request in self.requests if request.path == path]

    def _push(self, script: deque[_Scripted], scripted: _Scripted) -> None:
        with self._lock:
            script.append(scripted)

    # -- request handling ----------------------------------------------------------------

    def respond(self, method: str, path: str, headers: Message, body: bytes) -> Reply:
        route = path.partition("?")[0]
        audio = method == "POST" and route == TRANSCRIPTIONS_PATH
        try:
            payload = json.loads(body) if body and not audio else None
        except ValueError:
            payload = None
        if not _BEARER.fullmatch(headers.get("Authorization", "").strip()):
            self._record(route, headers, payload)
            return Reply(
                HTTPStatus.UNAUTHORIZED,
                error_body(401, "You didn't provide an API key in the Authorization header."),
            )
        if audio:
            reply, payload = transcription(headers.get("Content-Type", ""), body, error_body)
            self._record(route, headers, payload)
            return reply
        self._record(route, headers, payload)
        if method != "POST" or route not in (CHAT_PATH, EMBEDDINGS_PATH):
            return Reply(HTTPStatus.NOT_FOUND, error_body(404, f"Invalid URL ({method} {route})"))
        if not isinstance(payload, dict):
            return Reply(HTTPStatus.BAD_REQUEST, error_body(400, "We could not parse the JSON body."))
        if route == CHAT_PATH:
            return self._chat_completion(payload)
        return self._embeddings(payload)

    def _record(self, route: str, headers: Message, payload: Any) -> None:
        with self._lock:
            self.requests.append(RecordedRequest(route, {k.lower(): v for k, v in headers.items()}, payload))

    def _next_scripted(self, script: deque[_Scripted]) -> _Scripted | None:
        with self._lock:
            return script.popleft() if script else None

    def _chat_completion(self, request: dict[str, Any]) -> Reply:
        messages = request.get("messages")
        if not request.get("model") or not isinstance(messages, list) or not messages:
            return Reply(HTTPStatus.BAD_REQUEST, error_body(400, "'model' and 'messages' are required."))
        refused = check_chat_shape(request) or check_chat_request(request)
        if refused is not None:
            return Reply(refused.status,
                         error_body(refused.status, refused.message, refused.param, refused.code))
        scripted = self._next_scripted(self._chat_script) or _Scripted()
        if scripted.delay:
            self.closing.wait(scripted.delay)
        if scripted.error is not None:
            return scripted.error
        content: str | None = self.default_chat_content if scripted.content is None else scripted.content
        finish_reason = scripted.finish_reason
        cap = output_cap(request)
        if scripted.refusal is not None or scripted.tool_calls:
            content = None
        elif content is not None and cap is not None and _count_tokens(content) > cap:
            content, finish_reason = content[:cap * 4], "length"
        prompt_tokens = sum(_count_tokens(_message_text(m)) + 4 for m in messages)
        completion_tokens = _count_tokens(content or scripted.refusal or "")
        return Reply(
            HTTPStatus.OK,
            {
                "id": f"chatcmpl-fake{next(self._ids)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": request["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": _assistant_message(content, scripted),
                        "logprobs": None,
                        "finish_reason": finish_reason,
                    }
                ],
                "usage": _usage(prompt_tokens, completion_tokens),
                "system_fingerprint": "fp_itachi_fake",
            },
        )

    def _embeddings(self, request: dict[str, Any]) -> Reply:
        scripted = self._next_scripted(self._embedding_script)
        if scripted is not None and scripted.error is not None:
            return scripted.error
        refused = check_embeddings_request(request)
        if refused is not None:
            return Reply(refused.status,
                         error_body(refused.status, refused.message, refused.param, refused.code))
        texts = request["input"]
        texts = [texts] if isinstance(texts, str) else texts
        dimensions = answer_dimensions(request)
        as_base64 = request.get("encoding_format") == "base64"
        data = [
            {
                "object": "embedding",
                "index": index,
                "embedding": _encode(embed(text, dimensions), as_base64=as_base64),
            }
            for index, text in enumerate(texts)
        ]
        tokens = sum(_count_tokens(text) for text in texts)
        return Reply(
            HTTPStatus.OK,
            {
                "object": "list",
                "data": data,
                "model": request["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )


class _Scripted(NamedTuple):
    content: str | None = None
    error: Reply | None = None
    delay: float = 0.0
    refusal: str | None = None
    finish_reason: str = "stop"
    tool_calls: tuple[tuple[int, str, str], ...] = ()  # (unique number, function name, JSON arguments)


def _error(status: int, body: dict[str, Any] | str | None, retry_after: float | None) -> _Scripted:
    if not isinstance(body, dict):
        body = error_body(status, body or HTTPStatus(status).phrase)
    headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
    return _Scripted(error=Reply(status, body, headers))


def embed(text: str, dimensions: int) -> list[float]:
    """The fake's embedding of ``text``: a unit vector, the same on every run.

    It sums one pseudo-random direction per word and one for the whole text, so equal
    texts are identical, and texts sharing words have a positive cosine.
    """
    counts = Counter(_WORD.findall(text.lower()))
    parts = [_direction(f"text:{text}", dimensions)]
    parts += [array.array("d", (count * v for v in _word_direction(word, dimensions)))
              for word, count in counts.items()]  # a word said twice weighs twice, computed once
    summed = [math.fsum(values) for values in zip(*parts, strict=True)]
    norm = math.sqrt(math.fsum(v * v for v in summed)) or 1.0
    # Round to float32 like the real API, so float and base64 answers agree exactly.
    packed = struct.pack(f"<{dimensions}f", *(v / norm for v in summed))
    return list(struct.unpack(f"<{dimensions}f", packed))


def _direction(seed: str, dimensions: int) -> array.array[float]:
    """A pseudo-random direction drawn from a generator seeded by the hash of ``seed``."""
    rng = random.Random(hashlib.sha256(seed.encode("utf-8")).digest())
    return array.array("d", (rng.gauss(0.0, 1.0) for _ in range(dimensions)))


@functools.lru_cache(maxsize=1024)  # about 12 MB at 1536 dimensions
def _word_direction(word: str, dimensions: int) -> array.array[float]:
    return _direction(f"word:{word}", dimensions)


def _encode(vector: list[float], *, as_base64: bool) -> list[float] | str:
    """Floats, or base64 of little-endian float32s as the SDK decodes them."""
    if not as_base64:
        return vector
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def _assistant_message(content: str | None, scripted: _Scripted) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": scripted.refusal}
    if scripted.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{number}_{name}", "type": "function",
             "function": {"name": name, "arguments": args}}
            for number, name, args in scripted.tool_calls]
    return message


def _message_text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def _count_tokens(text: str) -> int:
    """About four characters per token, like OpenAI's rule of thumb for English."""
    return max(1, math.ceil(len(text) / 4))


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }
