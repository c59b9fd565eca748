"""What the prompt context is built from."""

from chalicelib.context.services.prompt_context import PromptContext
from chalicelib.graph.services.graph_store import PROMPT_DELAY_S
