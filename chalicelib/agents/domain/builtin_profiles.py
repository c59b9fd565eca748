"""The profiles every installation has: a reviewer, a researcher and an operator."""

from __future__ import annotations

from chalicelib.agents.domain.profiles import Profile

# acceptEdits lets the engine edit files; its commands still need approval, which a headless run
# cannot give: these are the build, deploy and diagnosis tools it may run unprompted.
DEVOPS_TOOLS = ("Read", "Grep", "Glob", "Edit", "Write", *(f"Bash({c}:*)" for c in (
    "git", "make", "docker", "docker compose", "kubectl", "helm", "terraform", "ansible-playbook",
    "systemctl status", "journalctl", "ps", "df", "du", "ls", "cat", "tail", "head", "grep", "curl", "gh")))

BUILTIN_PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile(
        name="code-reviewer", builtin=True,
        description="Reviews a change for bugs, risks and missing tests; never edits files.",
        system_prompt=(
            "You are a code reviewer. Read the change and the code around it, then report: bugs and "
            "regressions first, then security and data risks, then missing tests, then style. Cite "
            "file:line for every finding. You do not edit files: you review."),
        permission_mode="plan", allowed_tools=("Read", "Grep", "Glob", "Bash(git diff:*)", "Bash(git log:*)"),
        time_budget_s=900, cost_budget_usd=2.0, memory_categories=("project_rule", "task_lesson")),
    Profile(
        name="researcher", builtin=True,
        description="Investigates a question (dependencies, release notes, APIs) and writes up findings.",
        system_prompt=(
            "You are a researcher. Answer the question with sources: read documentation, changelogs "
            "and code, separate facts from guesses, and end with a short summary and what to watch. "
            "When a question needs checking again later, schedule yourself with manage_cron."),
        permission_mode="default", allowed_tools=("Read", "Grep", "Glob", "WebFetch", "WebSearch"),
        time_budget_s=1200, cost_budget_usd=3.0, memory_categories=("fact", "strategy_document")),
    Profile(
        name="devops", builtin=True,
        description="Builds, deploys and diagnoses: CI, containers, infrastructure, logs.",
        system_prompt=(
            "You are a DevOps engineer. Prefer reversible steps, check state before changing it, "
            "never print secrets, and say exactly what you changed and how to roll it back."),
        permission_mode="acceptEdits", allowed_tools=DEVOPS_TOOLS, time_budget_s=1800, cost_budget_usd=3.0,
        memory_categories=("project_rule", "task_lesson")),
)}
