"""Measure what the SessionStart and UserPromptSubmit hooks add to a session, start to exit.

Each run is a real hook process fed a Claude Code payload, exactly as the client runs it: the
installed command, ``python -I -S <...>/hooks/launch.py <name>`` (no `site`), and with
``--form both`` the older ``python -I -m hooks.<name>`` beside it, input by input;
``--baseline-python`` adds an interpreter with an older itachi installed, run the way its hooks
were installed (``-I -m``), for a before/after in one run. The floors are
``python -I -c pass`` and ``python -I -S -c pass``. The hook's state (outbox, log, MEMORY.md)
goes to a temporary directory, one per interpreter. Two checkouts' servers compare in one run with
``--python`` and ``--api-url`` given twice each: each interpreter's hooks call the server given
beside it, input by input, so a busy moment hits both alike.

    python bench/hooks_overhead.py --api-url http://127.0.0.1:8787 --api-key KEY \\
        --project github.com/acme/repo -n 100 --form both
    python bench/hooks_overhead.py --project github.com/acme/repo -n 100 \\
        --python OLD/.venv/bin/python --api-url http://127.0.0.1:8791 \\
        --python NEW/.venv/bin/python --api-url http://127.0.0.1:8792 --api-key KEY
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
PROMPTS = [
    "which database did we decide to use for the notes service and why?",
    "how do the hooks spool requests when the API is down?",
    "what is the convention for naming modules in this repository?",
    "remind me how project identity works across git worktrees",
    "what did we change in the session briefing endpoint last week?",
]


def hook_python(explicit: str | None, scratch: Path) -> str:
    """An interpreter that can import the hooks in isolated mode (-I)."""
    if explicit:
        return explicit
    probe = subprocess.run([sys.executable, "-I", "-c", "import hooks.runtime"], capture_output=True)
    if probe.returncode == 0:
        return sys.executable
    # Not installed here: a bare venv with the repository on its path, as the tests use.
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    Path(purelib, "itachi_repo.pth").write_text(str(REPO_ROOT) + "\n")
    return str(python)


def hook_commands(hook: str, python: str, form: str) -> list[tuple[str, list[str]]]:
    """(label, argv) per command form: the installed launcher form and/or the older module form."""
    from agent.installers.install_hooks import launch_argv, launcher_for

    forms = {"launcher": launch_argv(hook, python, launcher_for(python)),
             "module": [python, "-I", "-m", f"hooks.{hook}"]}
    chosen = ("launcher", "module") if form == "both" else (form,)
    return [(f"{hook} ({name})" if form == "both" else hook, forms[name]) for name in chosen]


def payload(hook: str, index: int, cwd: Path) -> bytes:
    common = {"session_id": f"bench-{index}", "cwd": str(cwd),
              "transcript_path": str(cwd / "transcript.jsonl")}
    if hook == "session_start":
        return json.dumps({**common, "hook_event_name": "SessionStart", "source": "startup"}).encode()
    prompt = PROMPTS[index % len(PROMPTS)]
    return json.dumps({**common, "hook_event_name": "UserPromptSubmit", "prompt": prompt}).encode()


def _children_cpu_ms() -> float:
    try:
        import resource
    except ImportError:  # Windows: no rusage, the CPU column reads 0
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


Runs = tuple[list[float], list[float]]


Command = tuple[list[str], dict[str, str]]  # argv, environment


def time_runs(commands: list[Command], inputs: list[bytes], cwd: Path) -> list[Runs]:
    """Per command: the wall time of each process, start to exit, and the CPU time it used (less
    load-sensitive). Commands alternate input by input, so a busy moment hits them alike."""
    runs: list[Runs] = [([], []) for _ in commands]
    for data in inputs:
        for (command, env), (timings, cpu) in zip(commands, runs, strict=True):
            started, cpu_before = time.perf_counter(), _children_cpu_ms()
            subprocess.run(command, input=data, cwd=cwd, env=env, capture_output=True, check=True)
            timings.append((time.perf_counter() - started) * 1000)
            cpu.append(_children_cpu_ms() - cpu_before)
    return runs


def summary(name: str, runs: Runs) -> str:
    ordered = sorted(runs[0])
    p95 = ordered[max(0, round(len(ordered) * 0.95) - 1)]
    return (f"| {name} | {len(ordered)} | {statistics.median(ordered):.1f} | {p95:.1f} | "
            f"{ordered[-1]:.1f} | {statistics.median(runs[1]):.1f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--api-url", action="append", required=True,
                        help="the API; give it once per --python to send each interpreter's hooks to its own")
    parser.add_argument("--api-key", default="")
    parser.add_argument("--project", required=True, help="project whose memories are searched")
    parser.add_argument("-n", type=int, default=50, help="measured runs per hook")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--form", choices=("launcher", "module", "both"), default="launcher",
                        help="launcher: the installed -I -S hooks/launch.py command; module: the older "
                             "-I -m hooks.<name>; both: the two, alternating")
    parser.add_argument("--baseline-python",
                        help="an interpreter with an older itachi installed, run as `-I -m hooks.<name>`")
    parser.add_argument("--python", action="append",
                        help="interpreter to run the hooks with; give it twice to compare two "
                             "(for example two checkouts): their runs alternate")
    args = parser.parse_args()
    if len(args.api_url) not in (1, len(args.python or [None])):
        parser.error("give --api-url once, or once per --python")
    with tempfile.TemporaryDirectory(prefix="itachi-bench-") as scratch_dir:
        scratch = Path(scratch_dir)
        pythons = [hook_python(p, scratch) for p in (args.python or [None])]
        cwd = scratch / "project"
        cwd.mkdir()
        homes = [scratch / (f"home-{i}" if len(pythons) > 1 else "home") for i in range(len(pythons))]
        envs = [{"PATH": os.environ.get("PATH", ""), "SYSTEMROOT": os.environ.get("SYSTEMROOT", ""),
                 "HOME": str(scratch), "ITACHI_HOME": str(home), "CLAUDE_CONFIG_DIR": str(scratch / "claude"),
                 "ITACHI_API_URL": args.api_url[min(i, len(args.api_url) - 1)],
                 "ITACHI_API_KEY": args.api_key, "ITACHI_PROJECT": args.project}
                for i, home in enumerate(homes)]
        label = (lambda i: f" [{pythons[i]}]") if len(pythons) > 1 else (lambda i: "")
        floors = [(f"python {flags} -c pass (floor){label(i)}", ([py, *flags.split(), "-c", "pass"], envs[i]))
                  for i, py in enumerate(pythons) for flags in ("-I", "-I -S")]
        measured = time_runs([command for _, command in floors], [b""] * args.n, cwd)
        rows = [summary(name, runs) for (name, _), runs in zip(floors, measured, strict=True)]
        for hook in ("session_start", "user_prompt_submit"):
            commands = [(f"{name}{label(i)}", (argv, envs[i])) for i, py in enumerate(pythons)
                        for name, argv in hook_commands(hook, py, args.form)]
            if args.baseline_python:
                baseline = [args.baseline_python, "-I", "-m", f"hooks.{hook}"]
                commands.append((f"{hook} (baseline, -I -m)", (baseline, envs[0])))
            argvs = [command for _, command in commands]
            time_runs(argvs, [payload(hook, i, cwd) for i in range(args.warmup)], cwd)
            measured = time_runs(argvs, [payload(hook, i, cwd) for i in range(args.n)], cwd)
            rows.extend(summary(name, runs) for (name, _), runs in zip(commands, measured, strict=True))
        failures = [line for home in homes for line in (home / "logs" / "hooks.log").read_text().splitlines()
                    if " ok " not in line + " "]
    print(f"Hook overhead against {', '.join(args.api_url)} (project {args.project}), ms, "
          "process start to exit\n")
    print("| hook | runs | p50 | p95 | max | CPU p50 |\n|---|---|---|---|---|---|")
    print("\n".join(rows))
    if failures:
        print(f"\n{len(failures)} runs did not finish cleanly (deadline/error), e.g.: {failures[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
