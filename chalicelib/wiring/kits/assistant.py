"""What the Telegram assistant's services are built from."""

from chalicelib.assistant.adapters.assistant_repository import assistant_units
from chalicelib.assistant.domain.offers import Offer
from chalicelib.assistant.services.assistant_context import AssistantContext
from chalicelib.assistant.services.ports import AssistantUnits
from chalicelib.assistant.services.project_deploys import ProjectDeploys
from chalicelib.assistant.services.task_offers import TaskOffers
from chalicelib.assistant.services.user_model import UserModel
from chalicelib.kernel.redaction import redact
from chalicelib.tasks.domain.task_model import NewTask
