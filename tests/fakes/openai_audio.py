"""The fake OpenAI server's `POST /v1/audio/transcriptions`, refusing what the real API refuses.

The body is multipart (the SDK's upload): `file` and `model` are required (400 naming the
missing one), the model must be a speech model (400 otherwise), the file must be at most
25 MB (413). The fake "hears" audio whose bytes are UTF-8 text as those words; other audio
is heard as nothing (`{"text": ""}`).
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from tests.fakes.local_http_server import Reply
from tests.fakes.telegram_wire import parse_params

TRANSCRIPTIONS_PATH = "/v1/audio/transcriptions"
SPEECH_MODELS = frozenset({"whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"})
MAX_AUDIO_BYTES = 25 * 1024 * 1024


def transcription(content_type: str, body: bytes, error: Any) -> tuple[Reply, dict[str, Any]]:
    """The answer to one transcription request and what was asked (model, file name, size)."""
    try:
        params = parse_params(content_type, body, "")
    except ValueError:
        params = {}
    audio, model = params.get("file"), params.get("model")
    asked = {"model": model, "file_name": params.get("file_file_name"),
             "size": len(audio) if isinstance(audio, bytes) else None}
    if not isinstance(audio, bytes):
        return Reply(HTTPStatus.BAD_REQUEST, error(400, "you must provide a file", "file")), asked
    if not model:
        return Reply(HTTPStatus.BAD_REQUEST, error(400, "you must provide a model parameter", "model")), asked
    if model not in SPEECH_MODELS:
        return Reply(HTTPStatus.BAD_REQUEST, error(400, f"Invalid model {model}. The model argument "
                                                        "should be left blank.", "model")), asked
    if len(audio) > MAX_AUDIO_BYTES:
        return Reply(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                     error(413, "Maximum content size limit (26214400) exceeded.", "file")), asked
    try:
        heard = audio.decode("utf-8").strip()
    except UnicodeDecodeError:
        heard = ""
    return Reply(HTTPStatus.OK, {"text": heard}), asked
