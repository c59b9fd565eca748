"""The MCP tools and resources Itachi offers: names, JSON schemas and descriptions.

Stdlib only: the local stdio server (`itachi mcp`) and the API's `/mcp` endpoint both list
exactly these, so a model sees the same tools whichever way it is connected. Descriptions are
written for the model that reads them: what the tool is for, when to reach for it, what comes
back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CATEGORY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$"
UUID_PATTERN = r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
TASK_STATUSES = ("queued", "dispatched", "running", "completed", "failed", "cancelled", "timed_out")
MCP_ORIGINS = ("agent", "user", "assistant")  # memory_store: whose words (a label: the key decides trust)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool = True
    destructive: bool = False


@dataclass(frozen=True)
class ResourceSpec:
    uri: str
    name: str
    title: str
    description: str
    mime_type: str = "text/markdown"


def _object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {**properties, "project": _PROJECT},
                              "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


_PROJECT = {"type": "string", "minLength": 1, "maxLength": 300,
            "description": "Project id (normalised git remote such as github.com/acme/app). Leave it "
                           "out to use the project of the current working directory."}
_CATEGORY = {"type": "string", "minLength": 1, "maxLength": 64, "pattern": CATEGORY_PATTERN,
             "description": "Memory category, e.g. fact, decision, project_rule, pattern, "
                            "code_change, task_lesson, document."}
_REPO = {"type": "string", "minLength": 1, "maxLength": 2000,
         "description": "Repository path or URL on the agent's machine, if not the project's default."}
_MACHINE = {"type": "string", "minLength": 1, "maxLength": 40}
_MEMORY_ID = {"type": "string", "pattern": UUID_PATTERN,
              "description": "The memory's id (a UUID, as shown by memory_search or memory_list)."}

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "memory_search", "Search memory",
        "Search this project's long-term memory (and the shared _global scope) for facts, decisions, "
        "rules, past code changes and lessons. Use it before answering questions about the project's "
        "history or conventions, or before redoing work that may have been done. Returns the best "
        "matches with their id, category, score (0-1, higher is better) and date.",
        _object({
            "query": {"type": "string", "minLength": 1, "maxLength": 2000,
                      "description": "What to look for, in plain words or keywords."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 8,
                      "description": "How many results at most."},
            "category": _CATEGORY,
            "mode": {"type": "string", "enum": ["hybrid", "text", "vector"], "default": "hybrid",
                     "description": "hybrid (meaning and words, the default), text (exact words) or "
                                    "vector (meaning only)."},
        }, ("query",))),
    ToolSpec(
        "memory_store", "Store a memory",
        "Save one durable piece of knowledge about this project: a decision and its reason, a fact, "
        "a convention, a gotcha. Write it so it stands alone months later. A restatement of a known "
        "memory reinforces it instead of adding a duplicate. Secrets are redacted before storage. "
        "What is stored with a machine or client key is kept untrusted (searchable, never put in a "
        "prompt or made a rule) until a person promotes it; say `origin: user` only for the user's "
        "own words.",
        _object({
            "content": {"type": "string", "minLength": 1, "maxLength": 200_000,
                        "description": "The memory itself, self-contained."},
            "origin": {"type": "string", "enum": list(MCP_ORIGINS), "default": "agent",
                       "description": "Whose words these are: agent (the default: your own finding, "
                                      "stored untrusted), user (what the user told you) or assistant "
                                      "(your conclusion agreed with the user in this session): a label for "
                                      "the reviewer; a machine key may not claim user or assistant."},
            "category": {**_CATEGORY, "default": "fact"},
            "tags": {"type": "array", "maxItems": 20, "uniqueItems": True,
                     "items": {"type": "string", "minLength": 1, "maxLength": 64},
                     "description": "Short labels to find it by later with memory_list."},
        }, ("content",)), read_only=False),
    ToolSpec(
        "memory_list", "List recent memories",
        "List the newest memories of this project, optionally only one category or one tag. Use it "
        "to review what was stored recently; use memory_search to find something specific.",
        _object({
            "category": _CATEGORY,
            "tag": {"type": "string", "minLength": 1, "maxLength": 64,
                    "description": "Only memories stored with this tag."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        })),
    ToolSpec(
        "memory_get", "Read a memory",
        "Read one memory in full (content, summary, files, tags, reinforcement and access counts).",
        {"type": "object", "properties": {"id": _MEMORY_ID}, "required": ["id"],
         "additionalProperties": False}),
    ToolSpec(
        "memory_forget", "Forget a memory",
        "Delete one memory for good: only when it is wrong or obsolete, or the user asks.",
        {"type": "object", "properties": {"id": _MEMORY_ID}, "required": ["id"],
         "additionalProperties": False}, read_only=False, destructive=True),
    ToolSpec(
        "memory_status", "Memory status",
        "How much this project's memory holds: counts by category, how many are embedded, the "
        "embedding model in use, and when the last memory was written.",
        _object({})),
    ToolSpec(
        "rules_list", "Project rules",
        "The project's live rules and conventions (learned from past sessions, taught by the user, "
        "imported from rule files, and the global ones), strongest first. Follow them when working "
        "in this project. With as_of, the rules that were live at that time.",
        _object({"limit": {"type": "integer", "minimum": 1, "maximum": 15, "default": 15},
                 "as_of": {"type": "string", "maxLength": 40,
                           "description": "An ISO 8601 time: the rules live then (default: now)."}})),
    ToolSpec(
        "task_create", "Create a task",
        "Queue a coding task for an Itachi agent to run in its own git worktree on a machine (the "
        "user follows it in Telegram or with task_status). Only when the user asks for background "
        "work; the task runs a separate coding agent.",
        _object({
            "description": {"type": "string", "minLength": 1, "maxLength": 20_000,
                            "description": "What to do, as a complete instruction."},
            "repo": _REPO,
            "engine": {"type": "string", "enum": ["claude", "codex", "gemini"],
                       "description": "Coding engine to run; the machine's preference if left out."},
            "machine": {**_MACHINE, "description": "Machine id to run on; any suitable one if left out."},
        }, ("description",)), read_only=False),
    ToolSpec(
        "task_status", "Task status",
        "The state of one task (queued, running, completed, failed...) with its latest progress "
        "events and, once finished, its summary, files changed and branch.",
        {"type": "object", "properties": {"id": {
            "type": "string", "minLength": 6, "maxLength": 64, "pattern": r"^[0-9a-fA-F-]+$",
            "description": "The task id, or a unique prefix of at least 6 characters."}},
         "required": ["id"], "additionalProperties": False}),
    ToolSpec(
        "task_list", "List tasks",
        "This project's tasks, newest first, optionally only those in one status.",
        _object({
            "status": {"type": "string", "enum": list(TASK_STATUSES)},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        })),
)

_RUN_ID = {"type": "string", "minLength": 6, "maxLength": 36, "pattern": r"^[0-9a-fA-F-]+$",
           "description": "A subagent run's id, or a unique prefix of at least 6 characters."}
_PROFILE = {"type": "string", "minLength": 1, "maxLength": 48, "pattern": r"^[a-z0-9][a-z0-9-]*$",
            "description": "A subagent profile: code-reviewer, researcher, devops, or one the user added."}
AGENT_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "agent_spawn", "Spawn a subagent",
        "Start a specialist subagent (a profile with its own instructions, engine, tool permissions "
        "and budget) on a task; it runs on one of the user's machines like a task and reports back "
        "to the run that spawned it. Returns the run id for agent_message.",
        _object({
            "profile": _PROFILE,
            "task": {"type": "string", "minLength": 1, "maxLength": 20_000,
                     "description": "What the subagent should do, as a complete instruction."},
            "repo": _REPO,
            "machine": _MACHINE,
            "parent_run": {**_RUN_ID, "description": "Your own run id (ITACHI_AGENT_RUN_ID), so the "
                                                     "subagent's report comes back to you."},
        }, ("profile", "task")), read_only=False),
    ToolSpec(
        "agent_message", "Message a subagent",
        "Send a message to a subagent run (it reaches the running engine at its next turn; a "
        "finished run gets it as a follow-up run) or to a profile (its latest active run, or a new one).",
        _object({
            "run": _RUN_ID, "profile": _PROFILE,
            "message": {"type": "string", "minLength": 1, "maxLength": 10_000},
            "sender": {"type": "string", "minLength": 1, "maxLength": 100,
                       "description": "Who is writing (a run id or profile); 'user' if left out."},
        }, ("message",)), read_only=False),
    ToolSpec(
        "manage_cron", "Schedule a subagent",
        "Schedule a prompt for a profile (or for the profile of a run, e.g. yourself: a subagent naming "
        "neither schedules itself) on a five-field UTC cron expression such as '0 9 * * mon', optionally "
        "until a time; each due time starts one run.",
        _object({
            "schedule": {"type": "string", "minLength": 9, "maxLength": 100},
            "prompt": {"type": "string", "minLength": 1, "maxLength": 10_000},
            "profile": _PROFILE, "run": _RUN_ID,
            "until": {"type": "string", "minLength": 10, "maxLength": 40,
                      "description": "ISO 8601 time with a zone after which the job stops."},
        }, ("schedule", "prompt")), read_only=False),
)
TOOLS = (*TOOLS, *AGENT_TOOLS)

CONTRADICTION_STATUSES = ("open", "keep_new", "keep_old", "keep_both")
GRAPH_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "graph_recall", "Recall from the graph memory",
        "Ask the project's graph memory who and what a question is about: the people, services and "
        "files it names with their relationships, the instructions in force (with their scope), facts, "
        "events and dated plans. Corrected facts are left out. Deep by default: a model plans the "
        "searches and keeps only the relevant records (the server falls back to the fast path, no "
        "model, when it has no LLM key). Use it before acting on who owns what, team rules or plans.",
        _object({
            "query": {"type": "string", "minLength": 1, "maxLength": 2000,
                      "description": "The question or task, in plain words."},
            "deep": {"type": "boolean", "default": True,
                     "description": "false: the fast path only (no model, milliseconds)."},
        }, ("query",))),
    ToolSpec(
        "graph_contradictions", "Contradicting instructions",
        "Instructions that contradict each other (same subject, opposite rules, no explicit "
        "replacement). Both stay in force until a person resolves the pair (keep new, keep old, keep "
        "both); mention an open one to the user when it bears on your work.",
        _object({
            "status": {"type": "string", "enum": list(CONTRADICTION_STATUSES), "default": "open"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        })),
)
TOOLS = (*TOOLS, *GRAPH_TOOLS)

TOOLS_BY_NAME: dict[str, ToolSpec] = {tool.name: tool for tool in TOOLS}

RESOURCES: tuple[ResourceSpec, ...] = (
    ResourceSpec("itachi://project/rules", "rules", "Project rules",
                 "The rules and conventions Itachi learned for this project, strongest first."),
    ResourceSpec("itachi://project/briefing", "briefing", "Session briefing",
                 "Recent sessions, hot files, patterns, decisions and active tasks of this project."),
)
