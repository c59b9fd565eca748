"""What the store and retrieve pipelines ask the model: prompts, JSON schemas and tool definitions."""

from __future__ import annotations

from typing import Any

NULLABLE_STRING = {"type": ["string", "null"]}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _strings() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}}


CLASSIFY_SYSTEM = (
    "You read one message a user sent to a coding agent. Extract the entities it names (people, "
    "services, tools, files, accounts...), implied facts, events, plans with their dates, opinions "
    "and the user's intents. For each entity list the other names the message gives it (an "
    "acronym in parentheses, 'aka', a person's first name). Decide whether the message should be "
    "looked up in memory (retrieve: the user asks about something) and whether it tells "
    "something worth storing (store: new instructions, corrections, concrete facts, dated plans)."
)
CLASSIFY_SCHEMA = _object(
    {
        "entities": {
            "type": "array",
            "items": _object(
                {"name": {"type": "string"}, "type": {"type": "string"}, "aliases": _strings()}
            ),
        },
        "facts": _strings(),
        "events": _strings(),
        "plans": _strings(),
        "opinions": _strings(),
        "intents": _strings(),
        "retrieve": {"type": "boolean"},
        "store": {"type": "boolean"},
    }
)

FILTER_SYSTEM = (
    "Decide what of the user's message is worth storing in long-term memory. Store only what the "
    "user is TELLING (teaching, concrete facts, real events, future plans with dates, corrections), "
    "never questions, hypotheticals, greetings or common sense. Separately list the instructions it "
    "gives, each with its pattern (process, tool_usage, role, threshold, exception, preference, "
    "correction, ban) and a scope: 1.0 universal, 0.5 team or tool wide, 0.2 one entity. "
    "Dates are ISO (YYYY-MM-DD)."
)
_ITEM = _object(
    {
        "type": {"type": "string", "enum": ["fact", "event", "opinion", "plan"]},
        "subtype": NULLABLE_STRING,
        "content": {"type": "string"},
        "valid_from": NULLABLE_STRING,
        "entities": _strings(),
    }
)
_INSTRUCTION = _object(
    {
        "content": {"type": "string"},
        "pattern": {"type": "string"},
        "scope": {"type": "number"},
        "entities": _strings(),
    }
)
FILTER_SCHEMA = _object(
    {"items": {"type": "array", "items": _ITEM}, "instructions": {"type": "array", "items": _INSTRUCTION}}
)

STORE_SYSTEM = (
    "You store memories in a graph. For each item: search_entity for the entities it names (to link "
    "them; an entity not found is stored with store_memory type entity, its name as content and the "
    "other names it goes by in aliases), store_memory it with their ids. For a correction, "
    "search_facts to find the old memory and supersede_memory it instead of storing a duplicate. "
    "Call done when finished."
)

RECONCILE_SYSTEM = (
    "A new instruction was stored. For each existing instruction listed, answer a verdict: "
    "NO_CONFLICT (different topics or compatible), SUPERSEDES (the new one explicitly replaces the "
    "old: 'taking over from', 'instead of', 'now handles', 'no longer') or CONTRADICTION (same topic, "
    "conflicting rules, no explicit replacement)."
)
RECONCILE_SCHEMA = _object(
    {
        "verdicts": {
            "type": "array",
            "items": _object(
                {
                    "old_id": {"type": "string"},
                    "verdict": {"type": "string", "enum": ["NO_CONFLICT", "SUPERSEDES", "CONTRADICTION"]},
                    "reason": {"type": "string"},
                }
            ),
        }
    }
)

PLAN_SYSTEM = (
    "Plan how to search a memory graph for what the user's message needs. Say the query's complexity "
    "(SIMPLE_FACT, ENTITY_LOOKUP, RULE_PROCESS, MULTI_PART) and the searches to run."
)
PLAN_SCHEMA = _object({"complexity": {"type": "string"}, "steps": _strings()})
RETRIEVE_SYSTEM = (
    "Find what the memory graph knows that helps answer the user's message. Use the tools; stop "
    "with done as soon as you have enough."
)
CURATE_SYSTEM = (
    "Copy, verbatim, the records of this section that help answer the user's message: no summary, "
    "no rephrasing, exact names, numbers and dates. Omit records that do not help. If none helps, "
    "answer exactly NO_RELEVANT_RECORDS."
)
NO_RELEVANT = "NO_RELEVANT_RECORDS"


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


_S = {"type": "string"}
SEARCH_ENTITY = _tool(
    "search_entity", "An entity's profile and relationships, by name", {"name": _S}, ["name"]
)
SEARCH_FACTS = _tool(
    "search_facts", "Facts and opinions matching a query", {"query": _S, "entity_id": _S}, ["query"]
)
STORE_TOOLS = [
    SEARCH_ENTITY,
    SEARCH_FACTS,
    _tool(
        "store_memory",
        "Store one memory node linked to entities",
        {
            "type": _S,
            "content": _S,
            "subtype": _S,
            "valid_from": _S,
            "entity_ids": {"type": "array", "items": _S},
            "edge_type": _S,
            "salience": {"type": "number"},
            "source": _S,
            "scope": {"type": "number"},
            "related_ids": {"type": "array", "items": _S},
            "aliases": {"type": "array", "items": _S},
        },
        ["type", "content"],
    ),
    _tool(
        "supersede_memory",
        "Replace an old memory by a corrected one (the old one is kept, superseded)",
        {"old_id": _S, "new_content": _S},
        ["old_id", "new_content"],
    ),
    _tool("done", "Storage complete", {"stored_count": {"type": "number"}}, ["stored_count"]),
]
RETRIEVE_TOOLS = [
    SEARCH_ENTITY,
    _tool("get_relationships", "All edges of an entity", {"entity_id": _S}, ["entity_id"]),
    SEARCH_FACTS,
    _tool(
        "search_events",
        "Events matching a query",
        {"query": _S, "entity_id": _S, "days": {"type": "number"}},
        ["query"],
    ),
    _tool(
        "search_processes",
        "Instructions and procedures matching a query",
        {"query": _S, "entity_id": _S},
        ["query"],
    ),
    _tool(
        "get_instructions",
        "Instructions on a topic or linked to an entity",
        {"topic": _S, "entity_id": _S},
        [],
    ),
    _tool("done", "Retrieval complete", {}, []),
]
