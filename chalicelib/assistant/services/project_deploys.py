"""/deploy and /deploy set: each project's deploy command, and the offer that runs it.

`/deploy set` stores the command (and optionally the machine to run it on); `/deploy <project>`
makes a task offer of it, so the Deploy button creates exactly one task as an offer's Create
does (`task_offers`), on the configured machine or else one that has the project. A project with
no command is refused, and so is a command that holds a secret (it would be stored redacted):
the command reads secrets from the machine's environment instead.
"""

from __future__ import annotations

from chalicelib.assistant.domain.deploys import MAX_COMMAND_CHARS, deploy_offer_text, deploy_prompt
from chalicelib.assistant.domain.offers import Offer
from chalicelib.assistant.services.ports import AssistantUnits, MachineFor, Redact
from chalicelib.kernel.errors import InvalidInput


class ProjectDeploys:
    def __init__(self, units: AssistantUnits, machine_for: MachineFor, redact: Redact) -> None:
        self._units, self._machine_for, self._redact = units, machine_for, redact

    def configure(self, project: str, command: str, machine: str | None = None) -> str:
        command = command.strip()
        if not command or len(command) > MAX_COMMAND_CHARS:
            raise InvalidInput(f"A deploy command is 1-{MAX_COMMAND_CHARS} characters.", field="command")
        if self._redact(command) != command:
            raise InvalidInput("That command holds what looks like a secret, which is never stored: "
                               "have it read the secret from the machine's environment.", field="command")
        with self._units() as uow:
            uow.assistant.set_deploy(project, command, machine)
            uow.commit()
        return f"/deploy {project} will run on {machine or 'a machine that has it'}:\n\n{command}"

    def offer(self, project: str, *, chat_id: int, topic_id: int, user_id: int | None) -> tuple[Offer, str]:
        """The offer to confirm, and its text; InvalidInput when no deploy command is configured."""
        with self._units() as uow:
            configured = uow.assistant.deploy(project)
        if configured is None:
            raise InvalidInput(f"No deploy command is configured for {project}. "
                               f"Set one with /deploy set {project} [@machine] <command>.")
        command, machine = configured
        machine = machine or self._machine_for(project)
        with self._units() as uow:
            offer = uow.assistant.add_offer(Offer(chat_id, topic_id, user_id, project, machine,
                                                  deploy_prompt(project, command)))
            uow.commit()
        return offer, deploy_offer_text(project, machine, command)
