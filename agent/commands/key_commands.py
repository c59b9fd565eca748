"""`itachi keys create|list|revoke`: the API's named, scoped keys (an admin key is needed)."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_keys_parser(sub: Any) -> None:
    p = sub.add_parser("keys", help="create, list and revoke API keys (admin, machine, client)")
    verbs = p.add_subparsers(dest="keys_command", metavar="VERB", required=True)
    create = verbs.add_parser("create", help="create a key and print it once")
    create.add_argument("name", help="a name for the key, e.g. laptop-hooks or build-box")
    create.add_argument("--kind", choices=("admin", "machine", "client"), default="client")
    create.add_argument("--machine", help="the machine id a machine key acts as (machine keys only)")
    create.add_argument("--project", action="append", dest="projects", metavar="PROJECT",
                        help="limit the key to this project (repeat for more; default: every project)")
    create.add_argument("--namespace", action="append", dest="namespaces", metavar="NAME",
                        help="limit the key to this namespace's projects and shared scope (repeat for more)")
    create.add_argument("--read-only", action="store_true", help="the key may only read (client keys)")
    create.add_argument("--json", action="store_true", help="print the API's JSON answer")
    create.set_defaults(func=cmd_keys_create)
    listing = verbs.add_parser("list", help="list the live keys (never the keys themselves)")
    listing.add_argument("--all", action="store_true", help="revoked keys too")
    listing.add_argument("--json", action="store_true", help="print the API's JSON answer")
    listing.set_defaults(func=cmd_keys_list)
    revoke = verbs.add_parser("revoke", help="revoke a key: refused everywhere within a minute")
    revoke.add_argument("name")
    revoke.set_defaults(func=cmd_keys_revoke)


def _call(method: str, path: str, body: Any = None, **params: Any) -> Any:
    from chalicelib.contracts.api_transport import ApiClient

    client = ApiClient.configured()
    if method == "GET":
        return client.get(path, **params)
    return client.post(path, body) if method == "POST" else client.delete(path)


def _run(action: str, method: str, path: str, body: Any = None, **params: Any) -> Any:
    from chalicelib.contracts.api_transport import ApiError

    try:
        return _call(method, path, body, **params)
    except ApiError as exc:
        print(f"cannot {action}: {exc.message}")
        return None


def cmd_keys_create(args: argparse.Namespace) -> int:
    body = {"name": args.name, "kind": "machine" if args.machine and args.kind == "client" else args.kind,
            "machine_id": args.machine, "projects": args.projects, "namespaces": args.namespaces,
            "read_only": args.read_only}
    created = _run("create the key", "POST", "/api/keys", {k: v for k, v in body.items() if v is not None})
    if created is None:
        return 1
    if args.json:
        print(json.dumps(created, indent=2))
        return 0
    print(f"{describe(created)}\n\n  {created['key']}\n\nThis is the only time the key is shown: "
          "store it now (as ITACHI_API_KEY, or api_key in the client's config.json, mode 0600).")
    return 0


def cmd_keys_list(args: argparse.Namespace) -> int:
    answer = _run("list keys", "GET", "/api/keys", include_revoked="true" if args.all else None)
    if answer is None:
        return 1
    keys = answer["keys"]
    if args.json:
        print(json.dumps(keys, indent=2))
    for key in keys:
        print(describe(key))
    if not keys and not args.json:
        print("No keys stored (the deployment's configured ITACHI_API_KEY works as an admin key).")
    return 0


def cmd_keys_revoke(args: argparse.Namespace) -> int:
    revoked = _run("revoke the key", "DELETE", f"/api/keys/{args.name}")
    if revoked is None:
        return 1
    print(f"revoked {describe(revoked)}; every API process refuses it within a minute")
    return 0


def describe(key: dict[str, Any]) -> str:
    """One line: name, kind and scope, prefix, and when it was revoked."""
    scope = [key["kind"]]
    if key.get("machine_id"):
        scope.append(f"machine {key['machine_id']}")
    if key.get("namespaces"):
        scope.append("namespaces " + ", ".join(key["namespaces"]))
    if key.get("projects") or not key.get("namespaces"):
        scope.append("projects " + ", ".join(key["projects"]) if key.get("projects") else "every project"
                     if key["kind"] != "admin" else "everything")
    if key.get("read_only"):
        scope.append("read-only")
    revoked = f", revoked {key['revoked_at']}" if key.get("revoked_at") else ""
    return f"{key['name']:<20} {key['prefix']}...  {'; '.join(scope)}{revoked}"
