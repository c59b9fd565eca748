"""SQS consumer of `telegram-updates`: run the bot's handlers for each update, once per update_id.

Reports partial batch failures: a record that cannot be parsed or recorded is retried and,
after the queue's max receives, lands in its DLQ. A failing handler is not a failed record:
the bot's error handler has already told the user.
"""

from __future__ import annotations

import json
from typing import Any

from chalicelib.bootstrap import get_container
from chalicelib.kernel.logging import get_logger


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    runner = get_container().telegram.runner
    failures = []
    for record in event.get("Records", []):
        try:
            runner.run(json.loads(record["body"])["update"])
        except Exception:
            get_logger().exception("telegram update not processed",
                                   extra={"message_id": record.get("messageId")})
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures}
