"""What the budgeted LLM, the transcriber and the embedder are built from."""

from chalicelib.llm.adapters.llm_usage_repository import llm_units
from chalicelib.llm.adapters.openai_chat import OpenAIChat
from chalicelib.llm.adapters.openai_transcription import OpenAITranscription
from chalicelib.llm.domain.llm_budget import DailyBudget
from chalicelib.llm.services.budgeted_llm import BudgetedLlm, DisabledLlm
from chalicelib.llm.services.budgeted_transcriber import BudgetedTranscriber, DisabledTranscriber
from chalicelib.llm.services.ports import LanguageModel, LlmUnits
from chalicelib.memory.adapters.embedders import build_embedder
from chalicelib.memory.services.ports import Embedder
