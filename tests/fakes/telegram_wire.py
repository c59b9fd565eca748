"""The Bot API's wire format as Itachi's fake Telegram server sees it.

Requests arrive as a query string, form-encoded or multipart bodies (python-telegram-bot)
or JSON; every parameter is decoded to JSON types. Errors are answered in the Bot API's
``{"ok": false, "error_code", "description", "parameters"}`` shape.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
from typing import Any, NamedTuple
from urllib.parse import parse_qsl

from tests.fakes.local_http_server import Reply

Params = dict[str, Any]
MAX_TEXT_LENGTH = 4096
# PTB JSON-encodes every non-string parameter; these free-text ones arrive raw and must stay
# strings even when they look like JSON (a message text of "42" is not a number).
FREE_TEXT_FIELDS = frozenset(
    {
        "text", "caption", "name", "title", "description", "short_description", "data",
        "callback_query_id", "inline_message_id", "url", "secret_token", "query",
        "icon_custom_emoji_id", "parse_mode", "question", "emoji", "file_name", "file_id",
    }
)  # fmt: skip


class Call(NamedTuple):
    """One Bot API call as the fake received it, parameters decoded to JSON types."""

    method: str
    params: Params


class ApiError(Exception):
    """A Bot API error reply: HTTP status, description and optional response parameters."""

    def __init__(self, status: int, description: str, parameters: Params | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.payload: Params = {"ok": False, "error_code": status, "description": description}
        if parameters:
            self.payload["parameters"] = parameters

    def reply(self) -> Reply:
        return Reply(self.status, self.payload)


def decode_value(name: str, raw: str) -> Any:
    """Turn one form value back into the JSON value PTB encoded."""
    if name in FREE_TEXT_FIELDS:
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def parse_params(content_type: str, body: bytes, query: str) -> Params:
    """Decode a request's parameters; raise ValueError on a malformed body."""
    params: Params = {k: decode_value(k, v) for k, v in parse_qsl(query, keep_blank_values=True)}
    mime = content_type.split(";", 1)[0].strip().lower()
    if mime == "application/json":
        decoded = json.loads(body or b"{}")
        if not isinstance(decoded, dict):
            raise ValueError("a JSON body must be an object")
        params.update(decoded)
    elif mime == "multipart/form-data":
        params.update(_parse_multipart(content_type, body))
    elif body:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
        params.update({k: decode_value(k, v) for k, v in pairs})
    return params


def _parse_multipart(content_type: str, body: bytes) -> Params:
    """Decode form fields to JSON types; an uploaded file becomes its bytes."""
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    params: Params = {}
    for part in message.walk():
        name = part.get_param("name", header="content-disposition")
        if part.is_multipart() or not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            continue
        if part.get_filename():
            params[name] = payload
            params[f"{name}_file_name"] = part.get_filename()
        else:
            params[name] = decode_value(name, payload.decode("utf-8"))
    return params


def utf16_length(text: str) -> int:
    """A text's length as Telegram counts it: UTF-16 code units (an emoji past the BMP is two)."""
    return len(text.encode("utf-16-le")) // 2


def check_text(text: Any) -> str:
    """Apply Telegram's rules for a message text: not empty, at most 4096 UTF-16 code units."""
    if not text or not str(text).strip():
        raise ApiError(400, "Bad Request: message text is empty")
    if utf16_length(str(text)) > MAX_TEXT_LENGTH:
        raise ApiError(400, "Bad Request: message is too long")
    return str(text)


def chat_shape(params: Params, forums: frozenset[int] | set[int] = frozenset()) -> Params:
    """The Chat object for ``chat_id``: private (positive), supergroup (below -10^12) or group.

    A supergroup is a forum only when it is one of ``forums`` (a forum is a setting of the
    group in Telegram, not something its id says).
    """
    chat_id = params.get("chat_id")
    if chat_id is None or chat_id == "":
        raise ApiError(400, "Bad Request: chat_id is empty")
    if not isinstance(chat_id, int) or isinstance(chat_id, bool):
        raise ApiError(400, "Bad Request: chat not found")
    if chat_id > 0:
        return {"id": chat_id, "type": "private", "first_name": "Itachi user"}
    if chat_id < -1_000_000_000_000:
        return {"id": chat_id, "type": "supergroup", "title": "Itachi", "is_forum": chat_id in forums}
    return {"id": chat_id, "type": "group", "title": "Itachi"}


def chat_key(params: Params, field: str) -> tuple[int, int]:
    """Identify a message or topic by its chat id and its own id."""
    own_id = params.get(field)
    return chat_shape(params)["id"], own_id if isinstance(own_id, int) else 0
