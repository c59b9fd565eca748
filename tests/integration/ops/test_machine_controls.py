"""/engines <machine> <order> stores the order on the server; the agent hears it in its heartbeat's
answer (and /restart likewise), through the real heartbeat route."""

from __future__ import annotations

from pathlib import Path

from chalicelib.contracts.agent_api import HeartbeatRequest, Registration
from chalicelib.contracts.api_transport import ApiClient
from chalicelib.contracts.local_home import ClientConfig
from tests.support.telegram_bot import GROUP, bot_harness, message_update


def test_engines_and_restart_reach_the_agent_in_its_heartbeat_answer(tmp_path: Path, database_url: str,
                                                                     moto_endpoint: str) -> None:
    from app import app
    from infra.local.api_server import ApiServer

    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as bot:
        server = ApiServer(app, port=0, max_body_bytes=bot.container.settings.max_body_bytes)
        server.start()
        try:
            client = ApiClient(ClientConfig(tmp_path, server.url, "test-key"))

            def beat(instance: str, version: str) -> Registration:
                body = HeartbeatRequest("box", instance, "online", 0, 1, ["claude", "codex"], [], [], "h",
                                        version)
                return Registration.from_body(client.post("/api/machines/heartbeat", body.to_body()))

            first = beat("agent-1", "0.1.0")
            bot.send(message_update("/engines box codex,claude"))
            bot.send(message_update("/engines nowhere codex"))
            second = beat("agent-1", "0.1.0")
            bot.send(message_update("/restart box"))
            asked = beat("agent-1", "0.1.0")
            back = beat("agent-2", "0.1.0")
        finally:
            server.stop()
        texts = bot.texts(chat_id=GROUP)

    assert first.engine_priority is None and first.restart is None
    assert "box will try codex > claude" in texts[0] and "No machine named nowhere" in texts[1]
    assert second.engine_priority == ["codex", "claude"]
    assert asked.restart is not None and asked.restart["kind"] == "restart"
    assert back.restart is None and back.engine_priority == ["codex", "claude"]
    assert texts[-1] == "box restarted and back: version 0.1.0 -> 0.1.0"
