"""Each REST body an agent machine sends (stdlib contract) agrees with the server's pydantic model.

Same field names, same types, same defaults and the same required fields; and a body with
every field set survives the model's validation unchanged.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from chalicelib.contracts import agent_api as wire
from chalicelib.tasks.routes import agent_bodies as models
from chalicelib.tasks.routes import agent_session_routes, task_routes

MODULES = (models, agent_session_routes, task_routes)
PAIRS: list[tuple[type[wire.Body], type[BaseModel]]] = [
    (getattr(wire, vars(model)["mirrors"]), model) for module in MODULES for model in vars(module).values()
    if isinstance(model, type) and model.__module__ == module.__name__ and "mirrors" in vars(model)]
NESTED = {wire.ProgressEvent: "event", models.EventBody: "event",
          wire.FolderEntry: "folder", models.FolderEntryBody: "folder",
          wire.ResumableEntry: "resumable", models.ResumableEntryBody: "resumable"}
IDS = [contract.__name__ for contract, _ in PAIRS]


def _shape(tp: Any) -> Any:
    """A comparable form of a type: limits (Annotated) dropped, unions as sets, the nested event
    pair as one token."""
    if tp in NESTED:
        return NESTED[tp]
    origin = get_origin(tp)
    if origin is Annotated:
        return _shape(get_args(tp)[0])
    if origin in (Union, types.UnionType):
        return ("union", frozenset(_shape(a) for a in get_args(tp)))
    if origin is Literal:
        return ("literal", frozenset(get_args(tp)))
    if origin is not None:
        return (origin, tuple(_shape(a) for a in get_args(tp)))
    return tp


def _contract_defaults(contract: type[wire.Body]) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(contract):  # type: ignore[arg-type]
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


def _model_defaults(model: type[BaseModel]) -> dict[str, Any]:
    out = {}
    for name, info in model.model_fields.items():
        if info.default is not PydanticUndefined:
            out[name] = info.default
        elif info.default_factory is not None:
            out[name] = info.default_factory()  # type: ignore[call-arg]
    return out


def _sample(tp: Any) -> Any:
    """A value of type tp that is valid for the models and differs from every default."""
    if tp is wire.ProgressEvent:
        return wire.ProgressEvent("tool_use", "Edit a.py", {"file_path": "a.py"})
    if tp is wire.FolderEntry:
        return wire.FolderEntry("src", True)
    if tp is wire.ResumableEntry:
        return wire.ResumableEntry("codex", "0199a1b2", "/work/app", "2026-03-01T10:00:00+00:00", "fix", "ok")
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        return _sample(next(a for a in args if a is not type(None)))
    if origin is Literal:
        return args[-1]
    if origin is list:
        return [_sample(args[0]), _sample(args[0])]
    if origin is dict:
        return {"key": [1, "two"]}
    return {str: "sample", int: 3, float: 1.5, bool: True}[tp]


def _full(contract: type[wire.Body]) -> wire.Body:
    hints = get_type_hints(contract)
    return contract(**{f.name: _sample(hints[f.name]) for f in dataclasses.fields(contract)})  # type: ignore[arg-type]


@pytest.mark.parametrize(("contract", "model"), PAIRS, ids=IDS)
def test_the_contract_and_the_model_name_the_same_fields_with_the_same_types(
        contract: type[wire.Body], model: type[BaseModel]) -> None:
    hints = get_type_hints(contract)
    model_types = {name: _shape(info.annotation) for name, info in model.model_fields.items()}
    assert {name: _shape(tp) for name, tp in hints.items()} == model_types


@pytest.mark.parametrize(("contract", "model"), PAIRS, ids=IDS)
def test_the_contract_and_the_model_agree_on_defaults_and_required_fields(
        contract: type[wire.Body], model: type[BaseModel]) -> None:
    assert _contract_defaults(contract) == _model_defaults(model)


@pytest.mark.parametrize(("contract", "model"), PAIRS, ids=IDS)
def test_a_body_with_every_field_set_round_trips_through_the_model(
        contract: type[wire.Body], model: type[BaseModel]) -> None:
    sent = _full(contract)
    body = sent.to_body()
    assert set(body) == set(model.model_fields)
    validated = model.model_validate(body).model_dump(mode="json")
    assert validated == body
    assert contract.from_body(validated) == sent


@pytest.mark.parametrize(("contract", "model"), PAIRS, ids=IDS)
def test_a_body_with_only_the_required_fields_gets_the_same_defaults_on_both_sides(
        contract: type[wire.Body], model: type[BaseModel]) -> None:
    defaults = _contract_defaults(contract)
    full = _full(contract).to_body()
    required = {name: value for name, value in full.items() if name not in defaults}
    body = contract.from_body(required).to_body()
    assert model.model_validate(required).model_dump(mode="json") == body


def test_every_contract_request_has_one_model_and_answers_read_back_what_they_wrote() -> None:
    requests = {obj for obj in vars(wire).values() if isinstance(obj, type) and issubclass(obj, wire.Body)
                and obj.__name__.endswith("Request")}
    mirrored = [contract for contract, _ in PAIRS]
    assert len(mirrored) == len(set(mirrored))
    assert set(mirrored) == requests | {wire.ProgressEvent, wire.FolderEntry, wire.ResumableEntry}
    for answer in (wire.Registration, wire.TaskClaim, wire.LeaseState, wire.SessionClaim):
        sent = _full(answer)
        assert answer.from_body({**sent.to_body(), "added_later": 1}) == sent
    assert typing.get_origin(get_type_hints(wire.TaskEventsRequest)["events"]) is list
