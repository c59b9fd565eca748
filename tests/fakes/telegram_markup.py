"""What the Bot API refuses in a message's formatting and buttons, worded as Telegram words it.

- `parse_mode` HTML: only Telegram's tags (b, strong, i, em, u, ins, s, strike, del, span
  class="tg-spoiler", tg-spoiler, a, tg-emoji, code, pre, blockquote), each closed in order, and
  only the entities &lt; &gt; &amp; &quot; and numeric ones; a bare `<` or `&` is an error;
- `parse_mode` MarkdownV2: the characters _ * [ ] ( ) ~ ` > # + - = | { } . ! are markup or
  must be escaped with a backslash, and every entity must be closed;
- any other `parse_mode` is unsupported;
- an inline button's `callback_data` is 1 to 64 bytes (BUTTON_DATA_INVALID otherwise).
"""

from __future__ import annotations

import re
from typing import Any

from tests.fakes.telegram_wire import ApiError

HTML_TAGS = frozenset({"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler",
                       "a", "tg-emoji", "code", "pre", "blockquote"})
MAX_CALLBACK_DATA = 64
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^<>]*)?)>")
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#[0-9]+|#x[0-9a-fA-F]+);")
_RESERVED = frozenset("_*[]()~`>#+-=|{}.!")
_MARKS = (("```", "Pre"), ("`", "Code"), ("__", "Underline"), ("||", "Spoiler"), ("*", "Bold"),
          ("_", "Italic"), ("~", "Strikethrough"))


def check_entities(text: str, parse_mode: Any) -> None:
    """Raise Telegram's 400 when `text` does not parse in `parse_mode` (None: plain text)."""
    if parse_mode in (None, ""):
        return
    if parse_mode == "HTML":
        _check_html(text)
    elif parse_mode == "MarkdownV2":
        _check_markdown_v2(text)
    elif parse_mode != "Markdown":
        raise ApiError(400, "Bad Request: unsupported parse_mode")


def check_keyboard(markup: Any) -> None:
    """Raise BUTTON_DATA_INVALID for a callback button whose data is empty or over 64 bytes."""
    if not isinstance(markup, dict):
        return
    for row in markup.get("inline_keyboard") or ():
        for button in row:
            data = button.get("callback_data") if isinstance(button, dict) else None
            if data is not None and not 1 <= len(str(data).encode("utf-8")) <= MAX_CALLBACK_DATA:
                raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")


def _cannot_parse(reason: str) -> ApiError:
    return ApiError(400, f"Bad Request: can't parse entities: {reason}")


def _offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def _check_html(text: str) -> None:
    open_tags: list[tuple[str, int]] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "&":
            entity = _ENTITY.match(text, index)
            if entity is None:
                raise _cannot_parse(f"Unsupported entity at byte offset {_offset(text, index)}")
            index = entity.end()
            continue
        if char != "<":
            index += 1
            continue
        tag = _TAG.match(text, index)
        name = tag.group(2).lower() if tag else ""
        if tag is None or name not in HTML_TAGS:
            raise _cannot_parse(f'Unsupported start tag "{name}" at byte offset {_offset(text, index)}')
        if tag.group(1):
            if not open_tags or open_tags[-1][0] != name:
                raise _cannot_parse(f'Unexpected end tag at byte offset {_offset(text, index)}')
            open_tags.pop()
        else:
            open_tags.append((name, index))
        index = tag.end()
    if open_tags:
        name, where = open_tags[-1]
        raise _cannot_parse(f'Can\'t find end tag corresponding to start tag "{name}" at byte offset '
                            f"{_offset(text, where)}")


def _check_markdown_v2(text: str) -> None:
    open_marks: list[tuple[str, str, int]] = []  # (mark, entity name, index)
    index = 0
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        in_code = bool(open_marks) and open_marks[-1][0] in ("`", "```")
        mark = next(((m, name) for m, name in _MARKS if text.startswith(m, index)), None)
        if mark is not None and (not in_code or mark[0] == open_marks[-1][0]):
            if open_marks and open_marks[-1][0] == mark[0]:
                open_marks.pop()
            else:
                open_marks.append((*mark, index))
            index += len(mark[0])
            continue
        if not in_code and text[index] == "[":
            open_marks.append(("[", "TextUrl", index))
            index += 1
            continue
        if not in_code and text.startswith("](", index) and open_marks and open_marks[-1][0] == "[":
            end = text.find(")", index)
            if end < 0:
                raise _cannot_parse(f"Can't find end of a URL at byte offset {_offset(text, index)}")
            open_marks.pop()
            index = end + 1
            continue
        quote = text[index] == ">" and (index == 0 or text[index - 1] == "\n")
        if not in_code and text[index] in _RESERVED and not quote:
            raise _cannot_parse(f"Character '{text[index]}' is reserved and must be escaped with the "
                                "preceding '\\'")
        index += 1
    if open_marks:
        _, name, where = open_marks[-1]
        raise _cannot_parse(f"Can't find end of {name} entity at byte offset {_offset(text, where)}")
