"""What the learning loop and the code-intelligence workers are built from."""

from chalicelib.codeintel.adapters.codeintel_repository import codeintel_units
from chalicelib.codeintel.adapters.github_client import GitHubClient
from chalicelib.codeintel.services.workers import CodeIntelWorkers
from chalicelib.kernel.redaction import redact
from chalicelib.learning.adapters.learning_unit_of_work import learning_units
from chalicelib.learning.services.insight_extraction import InsightExtraction
from chalicelib.learning.services.learning_review import LearningReview
from chalicelib.learning.services.lesson_enrichment import LessonEnricher
from chalicelib.learning.services.lessons import Lessons
from chalicelib.learning.services.ports import LearningUnits
from chalicelib.learning.services.project_rules import ProjectRules
from chalicelib.learning.services.rule_clashes import RuleClashes
from chalicelib.learning.services.rule_promotion import RulePromotion
from chalicelib.learning.services.task_feedback import TaskFeedback
from chalicelib.learning.services.task_lessons import TaskLessons
from chalicelib.memory.adapters.memory_repository import PostgresMemoryRepository
