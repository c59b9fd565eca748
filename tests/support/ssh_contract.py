"""The SSH services' behaviour, on the in-memory repositories and on Postgres.

Subclasses provide `services`: (SshTargets, SshRuns, sent messages list, RecordingOutput).
"""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound, Unavailable
from chalicelib.ssh.domain.ssh_model import SshTarget
from chalicelib.ssh.services.ssh_runs import RunRequest, SshRuns
from chalicelib.ssh.services.ssh_targets import SshTargets

FP = "SHA256:" + "b" * 43
BOX = SshTarget("box", "laptop", "10.0.0.5", 22, "me", "~/.ssh/id", FP, "posix", "buildbox", ("uptime",))
Services = tuple[SshTargets, SshRuns, list[tuple[str, dict[str, Any]]], Any]


class SshContract:
    def test_a_target_belongs_to_the_machine_that_registered_it(self, services: Services) -> None:
        targets = services[0]
        assert targets.register(BOX)[1] is True and targets.register(BOX)[1] is False
        with pytest.raises(Conflict):
            targets.register(SshTarget("box", "desktop", "10.0.0.6", user="me"))
        assert targets.for_machine("buildbox").name == "box"
        with pytest.raises(NotFound):
            targets.for_machine("nowhere")

    def test_an_allowed_command_is_queued_to_its_machine_with_a_header(self, services: Services) -> None:
        targets, runs, sent, output = services
        targets.register(BOX)
        run = runs.request(RunRequest("uptime", chat_id=-100, topic_id=7, user_id=1, target="box"))
        assert run.status == "queued" and run.machine_id == "laptop"
        assert sent == [("laptop", {"kind": "ssh_run", "run_id": run.id})]
        assert output.posts == [(run.stream, -100, 7, ["🖥 box (laptop connects)\n$ uptime"])]

    def test_a_command_off_the_allow_list_waits_for_the_button(self, services: Services) -> None:
        targets, runs, sent, _ = services
        targets.register(BOX)
        run = runs.request(RunRequest("rm -rf build", chat_id=-100, machine="buildbox"))
        assert run.status == "awaiting_confirmation" and sent == []
        assert runs.confirm(run.id, True).status == "queued" and len(sent) == 1
        with pytest.raises(Conflict):
            runs.confirm(run.id, True)
        declined = runs.request(RunRequest("reboot", chat_id=-100, target="box"))
        assert runs.confirm(declined.id, False).status == "cancelled" and len(sent) == 1

    def test_output_batches_show_once_and_the_ending_has_the_exit_code(self, services: Services) -> None:
        targets, runs, _, output = services
        targets.register(BOX)
        run = runs.request(RunRequest("uptime", chat_id=-100, target="box"))
        claimed, target = runs.claim(run.id, "laptop")
        assert claimed.status == "running" and target.fingerprint == FP
        with pytest.raises(Conflict):
            runs.claim(run.id, "laptop")
        assert runs.record_output(run.id, "laptop", 1, [{"stream": "stdout", "text": "up 3 days\n"}])
        assert not runs.record_output(run.id, "laptop", 1, [{"stream": "stdout", "text": "up 3 days\n"}])
        runs.record_output(run.id, "laptop", 2, [{"text": "password=hunter2-secret-value\n"}])
        done = runs.finish(run.id, "laptop", "failed", 2, None, 1.25)
        assert runs.finish(run.id, "laptop", "failed", 2, None) == done
        texts = output.texts(run.stream)
        assert texts[1:] == ["up 3 days\n", "password=[REDACTED:secret]\n", "❌ exit code 2 after 1.2s"]

    def test_only_the_owning_machine_reports_on_a_run(self, services: Services) -> None:
        targets, runs, _, _ = services
        targets.register(BOX)
        run = runs.request(RunRequest("uptime", chat_id=-100, target="box"))
        with pytest.raises(Conflict):
            runs.claim(run.id, "desktop")
        with pytest.raises(InvalidInput):
            runs.claim("not-a-uuid", "laptop")
        with pytest.raises(NotFound):
            runs.claim("0f8e2c4a-1b2c-4d5e-8f90-123456789abc", "laptop")

    def test_an_unknown_target_or_an_empty_command_is_refused(self, services: Services) -> None:
        targets, runs, _, _ = services
        targets.register(BOX)
        with pytest.raises(NotFound):
            runs.request(RunRequest("uptime", chat_id=1, target="nope"))
        with pytest.raises(InvalidInput):
            runs.request(RunRequest("   ", chat_id=1, target="box"))
        with pytest.raises(InvalidInput):
            runs.request(RunRequest("uptime", chat_id=1, target="box", timeout_s=0))

    def test_a_run_for_an_offline_machine_is_refused_before_it_is_queued(self, services: Services) -> None:
        targets, runs, sent, _ = services
        targets.register(BOX)
        offline = SshRuns(runs._uow, targets, lambda m, body: sent.append((m, body)), services[3],
                          lambda text: text, machine_online=lambda machine: machine != "laptop")
        with pytest.raises(Unavailable, match="laptop, the machine that reaches box, is offline"):
            offline.request(RunRequest("uptime", chat_id=-100, target="box"))
        assert sent == [] and runs.recent() == []
