"""A local fake of the Telegram Bot API, driven by the real python-telegram-bot client.

Itachi's integration tests point ``telegram.Bot(token, base_url=fake.base_url)`` at it. It
records every call, answers with real Bot API shapes, serves pushed updates to getUpdates
(with long polling), and plays back scripted failures such as flood-control 429s.

It refuses what Telegram refuses: a message to a topic that does not exist ("message thread
not found") or is closed, anything sent to a user who blocked the bot or a group that removed
it (403), files over 20 MB (``telegram_files``, which serves users' files), edits and
deletions of unknown messages, texts over 4096 UTF-16 code units, topics in a chat that is not
a forum, and changes to unknown topics or that change nothing; messages
over Telegram's flood limits (``telegram_limits``: 20 a minute in a group, 429 with
``retry_after``), texts that do not parse in their ``parse_mode`` and ``callback_data`` over
64 bytes (``telegram_markup``).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from email.message import Message
from http import HTTPStatus
from pathlib import Path
from typing import Any

from tests.fakes.local_http_server import LocalHttpServer, Reply
from tests.fakes.telegram_files import FilesMixin
from tests.fakes.telegram_limits import SENDING_METHODS, FloodControl, TelegramLimits
from tests.fakes.telegram_markup import check_entities, check_keyboard
from tests.fakes.telegram_updates import UpdatesMixin
from tests.fakes.telegram_wire import (
    ApiError,
    Call,
    Params,
    chat_key,
    chat_shape,
    check_text,
    parse_params,
    utf16_length,
)

FIXTURES_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "telegram"
DEFAULT_TOPIC_ICON_COLOR = 7322096


def load_update_fixture(name: str) -> Params:
    """Load a Telegram update from ``tests/fixtures/telegram/<name>.json``."""
    path = FIXTURES_DIR / (name if name.endswith(".json") else f"{name}.json")
    loaded: Params = json.loads(path.read_text(encoding="utf-8"))
    return loaded


class FakeTelegram(FilesMixin, UpdatesMixin, LocalHttpServer):
    """Serve the Bot API at ``/bot<token>/<method>`` on an ephemeral 127.0.0.1 port.

    Use it as a context manager. Chat ids below -1000000000000 are supergroups, forums only
    when listed in ``forums``; other negative ids are groups, positive ids private chats.
    """

    def __init__(self, token: str = "123:ABC", *, bot_username: str = "itachi_test_bot",
                 forums: tuple[int, ...] = (), limits: TelegramLimits | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.flood = FloodControl(limits or TelegramLimits(), clock)
        self.token = token
        self.bot_username = bot_username
        self.forums = set(forums)
        self.blocked: set[int] = set()
        self.send_delay_s = 0.0
        self.most_concurrent_sends = 0  # the most sendMessage calls to one chat at the same time
        self._flying: dict[Any, int] = {}
        self._flight_lock = threading.Lock()
        self.calls: list[Call] = []
        self.messages: dict[tuple[int, int], Params] = {}
        self.topics: dict[tuple[int, int], Params] = {}
        self.commands: list[Params] = []
        self.webhook_url = ""
        self._sent: list[Params] = []
        self._updates: list[Params] = []
        self._failures: dict[str, list[ApiError]] = {}
        self._files = {}
        self._paths = {}
        self._next_message_id = 1
        self._next_update_id = 1
        self._lock = threading.Lock()
        self._updates_ready = threading.Condition(self._lock)
        self._methods: dict[str, Callable[[Params], Any]] = {
            name.lower(): handler
            for name, handler in {
                "getMe": lambda _: self._bot_user(with_capabilities=True),
                "sendMessage": self._send_message,
                "sendDocument": self._send_document,
                "editMessageText": self._edit_message_text,
                "editMessageReplyMarkup": self._edit_message_reply_markup,
                "deleteMessage": self._delete_message,
                "sendChatAction": lambda _: True,
                "createForumTopic": self._create_forum_topic,
                "editForumTopic": self._edit_forum_topic,
                "closeForumTopic": lambda p: self._set_topic_closed(p, closed=True),
                "reopenForumTopic": lambda p: self._set_topic_closed(p, closed=False),
                "answerCallbackQuery": lambda _: True,
                "setWebhook": self._set_webhook,
                "deleteWebhook": self._delete_webhook,
                "getWebhookInfo": self._get_webhook_info,
                "setMyCommands": self._set_my_commands,
                "getMyCommands": lambda _: list(self.commands),
                "getUpdates": self._get_updates,
                "getFile": self._get_file,
            }.items()
        }

    def on_close(self) -> None:
        with self._lock:
            self._updates_ready.notify_all()

    @property
    def base_url(self) -> str:
        """The value for PTB's ``base_url``; PTB appends the token and the method."""
        return f"{self.url}/bot"

    # -- test controls and inspection ----------------------------------------------------

    def push_update(self, update: Params) -> int:
        """Queue an update for getUpdates and return its update_id.

        Update ids must grow for offsets to work, so an id not above the last one is
        replaced by the next free id (on a copy; the caller's dict is left alone).
        """
        with self._lock:
            queued = json.loads(json.dumps(update))
            if queued.get("update_id", 0) < self._next_update_id:
                queued["update_id"] = self._next_update_id
            self._next_update_id = queued["update_id"] + 1
            self._updates.append(queued)
            self._updates_ready.notify_all()
            return int(queued["update_id"])

    def fail_next(
        self, method: str, times: int = 1, status: int = 429, retry_after: int = 1,
        description: str | None = None,
    ) -> None:  # fmt: skip
        """Answer the next ``times`` calls of ``method`` with an error instead of a result.

        A 429 carries ``parameters.retry_after`` like Telegram's flood control; other
        statuses carry ``description`` (default: the HTTP reason phrase).
        """
        if status == HTTPStatus.TOO_MANY_REQUESTS:
            error = ApiError(
                status,
                description or f"Too Many Requests: retry after {retry_after}",
                {"retry_after": retry_after},
            )
        else:
            error = ApiError(status, description or HTTPStatus(status).phrase)
        with self._lock:
            self._failures.setdefault(method.lower(), []).extend([error] * times)

    def block(self, chat_id: int) -> None:
        """The user blocks the bot (a private chat) or a group removes it: every send is a 403."""
        with self._lock:
            self.blocked.add(chat_id)

    def open_topic(self, chat_id: int, name: str) -> int:
        """A topic someone else opened in a forum; return its thread id."""
        with self._lock:
            return int(self._create_forum_topic({"chat_id": chat_id, "name": name})["message_thread_id"])

    def calls_to(self, method: str) -> list[Params]:
        """Parameters of every call to ``method``, oldest first."""
        with self._lock:
            return [call.params for call in self.calls if call.method.lower() == method.lower()]

    def sent_messages(self, chat_id: int | None = None, thread_id: int | None = None) -> list[Params]:
        """Messages the bot sent successfully, optionally only to one chat or topic."""
        with self._lock:
            return [
                message
                for message in self._sent
                if (chat_id is None or message["chat"]["id"] == chat_id)
                and (thread_id is None or message.get("message_thread_id") == thread_id)
            ]

    def sent_texts(self, chat_id: int | None = None, thread_id: int | None = None) -> list[str]:
        """Texts of sendMessage calls that succeeded, optionally only to one chat or topic."""
        return [m["text"] for m in self.sent_messages(chat_id, thread_id) if "text" in m]

    # -- request handling ----------------------------------------------------------------

    def respond(self, method: str, path: str, headers: Message, body: bytes) -> Reply:
        route, _, query = path.partition("?")
        file_route = urllib.parse.unquote(route)  # PTB quotes the token's ':' in download links
        if file_route.startswith(f"/file/bot{self.token}/"):
            with self._lock:
                return self._download(file_route[len(f"/file/bot{self.token}/"):])
        prefix = f"/bot{self.token}/"
        if not route.startswith(prefix):
            status = HTTPStatus.UNAUTHORIZED if route.startswith("/bot") else HTTPStatus.NOT_FOUND
            return ApiError(status, status.phrase).reply()
        api_method = route[len(prefix) :]
        try:
            params = parse_params(headers.get("Content-Type", ""), body, query)
        except ValueError:
            return ApiError(400, "Bad Request: can't parse request body").reply()
        with self._in_flight(api_method, params):
            return self._handle(api_method, params)

    @contextlib.contextmanager
    def _in_flight(self, api_method: str, params: Params) -> Iterator[None]:
        """Count concurrent sends to each chat (each takes ``send_delay_s``, as a real round trip)."""
        chat = params.get("chat_id") if api_method.lower() == "sendmessage" else None
        if chat is None:
            yield
            return
        with self._flight_lock:
            self._flying[chat] = self._flying.get(chat, 0) + 1
            self.most_concurrent_sends = max(self.most_concurrent_sends, self._flying[chat])
        try:
            if self.send_delay_s:
                self.closing.wait(self.send_delay_s)
            yield
        finally:
            with self._flight_lock:
                self._flying[chat] -= 1

    def _handle(self, api_method: str, params: Params) -> Reply:
        with self._lock:
            self.calls.append(Call(api_method, params))
            failures = self._failures.get(api_method.lower())
            handler = self._methods.get(api_method.lower())
            try:
                if failures:
                    raise failures.pop(0)
                if handler is None:
                    raise ApiError(404, "Not Found")
                counted = api_method.lower() in SENDING_METHODS
                if counted:
                    chat = self._chat(params)
                    self.flood.check(chat["id"], chat["type"])
                result = handler(params)
                if counted:
                    self.flood.record(chat["id"], chat["type"])
                return Reply(HTTPStatus.OK, {"ok": True, "result": result})
            except ApiError as error:
                return error.reply()

    # -- Bot API methods (called with the lock held) -------------------------------------

    def _bot_user(self, *, with_capabilities: bool = False) -> Params:
        bot_id = self.token.split(":", 1)[0]
        user: Params = {
            "id": int(bot_id) if bot_id.isdigit() else 123,
            "is_bot": True,
            "first_name": "Itachi",
            "username": self.bot_username,
        }
        if with_capabilities:
            user.update(
                can_join_groups=True,
                can_read_all_group_messages=False,
                supports_inline_queries=False,
            )
        return user

    def _chat(self, params: Params) -> Params:
        chat = chat_shape(params, self.forums)
        if chat["id"] in self.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user" if chat["type"] == "private"
                           else f"Forbidden: bot was kicked from the {chat['type']} chat")
        return chat

    def _new_message(self, params: Params, **content: Any) -> Params:
        chat = self._chat(params)
        thread_id = params.get("message_thread_id")
        topic = self.topics.get((chat["id"], thread_id)) if thread_id is not None else None
        if thread_id is not None and topic is None and (chat["id"], thread_id) not in self.messages:
            raise ApiError(400, "Bad Request: message thread not found")
        if topic is not None and topic["closed"]:
            raise ApiError(400, "Bad Request: TOPIC_CLOSED")
        message: Params = {
            "message_id": self._next_message_id,
            "from": self._bot_user(),
            "chat": chat,
            "date": int(time.time()),
            **content,
        }
        self._next_message_id += 1
        if thread_id is not None:
            message.update(message_thread_id=thread_id, is_topic_message=True)
        markup = params.get("reply_markup")
        check_keyboard(markup)
        if isinstance(markup, dict) and "inline_keyboard" in markup:
            message["reply_markup"] = markup
        self.messages[(chat["id"], message["message_id"])] = message
        self._sent.append(dict(message))
        return message

    def _send_message(self, params: Params) -> Params:
        text = check_text(params.get("text"))
        check_entities(text, params.get("parse_mode"))
        content: Params = {"text": text}
        if params.get("entities"):
            content["entities"] = params["entities"]
        return self._new_message(params, **content)

    def _send_document(self, params: Params) -> Params:
        document = params.get("document")
        if document is None:
            raise ApiError(400, "Bad Request: there is no document in the request")
        size = len(document) if isinstance(document, bytes) else 0
        file_id = f"BQACAgIAAxk-fake-{self._next_message_id}"
        content: Params = {
            "document": {
                "file_id": file_id,
                "file_unique_id": f"AgAD-{self._next_message_id}",
                "file_name": params.get("document_file_name", "document"),
                "file_size": size,
            }
        }
        if params.get("caption"):
            check_entities(str(params["caption"]), params.get("parse_mode"))
            content["caption"] = params["caption"]
        return self._new_message(params, **content)

    def _stored_message(self, params: Params) -> Params:
        self._chat(params)
        message = self.messages.get(chat_key(params, "message_id"))
        if message is None:
            raise ApiError(400, "Bad Request: message to edit not found")
        return message

    def _edit_message_text(self, params: Params) -> Params | bool:
        text = check_text(params.get("text"))
        check_entities(text, params.get("parse_mode"))
        markup = params.get("reply_markup")
        check_keyboard(markup)
        if params.get("inline_message_id"):
            return True
        message = self._stored_message(params)
        if message.get("text") == text and message.get("reply_markup") == markup:
            raise ApiError(
                400,
                "Bad Request: message is not modified: specified new message content and "
                "reply markup are exactly the same as a current content and reply markup "
                "of the message",
            )
        message.update(text=text, edit_date=int(time.time()))
        message.pop("reply_markup", None)
        if isinstance(markup, dict) and "inline_keyboard" in markup:
            message["reply_markup"] = markup
        return dict(message)

    def _edit_message_reply_markup(self, params: Params) -> Params | bool:
        check_keyboard(params.get("reply_markup"))
        if params.get("inline_message_id"):
            return True
        message = self._stored_message(params)
        message.pop("reply_markup", None)
        markup = params.get("reply_markup")
        if isinstance(markup, dict) and markup.get("inline_keyboard"):
            message["reply_markup"] = markup
        message["edit_date"] = int(time.time())
        return dict(message)

    def _delete_message(self, params: Params) -> bool:
        self._chat(params)
        if self.messages.pop(chat_key(params, "message_id"), None) is None:
            raise ApiError(400, "Bad Request: message to delete not found")
        return True

    def _known_topic(self, params: Params) -> Params:
        self._chat(params)
        topic = self.topics.get(chat_key(params, "message_thread_id"))
        if topic is None:
            raise ApiError(400, "Bad Request: TOPIC_ID_INVALID")
        return topic

    def _create_forum_topic(self, params: Params) -> Params:
        chat = self._chat(params)
        if not chat.get("is_forum"):
            raise ApiError(400, "Bad Request: the chat is not a forum")
        name = str(params.get("name") or "")
        if not 1 <= utf16_length(name) <= 128:
            raise ApiError(400, "Bad Request: TOPIC_NAME_INVALID")
        # Telegram numbers a topic after the service message that opened it.
        thread_id = self._next_message_id
        self._next_message_id += 1
        topic: Params = {
            "message_thread_id": thread_id,
            "name": name,
            "icon_color": params.get("icon_color", DEFAULT_TOPIC_ICON_COLOR),
        }
        if params.get("icon_custom_emoji_id"):
            topic["icon_custom_emoji_id"] = params["icon_custom_emoji_id"]
        self.topics[(chat["id"], thread_id)] = {**topic, "closed": False}
        return topic

    def _edit_forum_topic(self, params: Params) -> bool:
        topic = self._known_topic(params)
        changes: Params = {key: params[key] for key in ("name", "icon_custom_emoji_id") if key in params}
        if all(topic.get(key) == value for key, value in changes.items()):
            raise ApiError(400, "Bad Request: TOPIC_NOT_MODIFIED")
        topic.update(changes)
        return True

    def _set_topic_closed(self, params: Params, *, closed: bool) -> bool:
        topic = self._known_topic(params)
        if topic["closed"] == closed:
            raise ApiError(400, "Bad Request: TOPIC_NOT_MODIFIED")
        topic["closed"] = closed
        return True
