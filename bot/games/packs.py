"""Content packs of any game: YAML validated by a pydantic model, errors with line:col."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError


def _node_at(root: yaml.Node | None, loc: tuple[Any, ...]) -> yaml.Node | None:
    """Walk a composed YAML node tree along a pydantic error location; deepest node found."""
    node = root
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if k.value == key), None)
            if child is None:
                return node
            node = child
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
            if key >= len(node.value):
                return node
            node = node.value[key]
        else:
            return node
    return node


def _position(node: yaml.Node | None) -> str:
    if node is None:
        return "1:1"
    return f"{node.start_mark.line + 1}:{node.start_mark.column + 1}"


def validate_yaml(text: str, model: type[BaseModel], filename: str = "<pack>") -> list[str]:
    """Errors as ``file:line:col: message`` (empty when ``text`` is a valid ``model``)."""
    try:
        root = yaml.compose(text)
        raw = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        return [syntax_error(exc, filename)]
    if not isinstance(raw, dict):
        return [f"{filename}:1:1: a pack is a mapping with 'pack:' and card lists"]
    try:
        model.model_validate(raw)
    except ValidationError as exc:
        return schema_errors(exc, filename, lambda loc: _position(_node_at(root, loc)))
    return []


def syntax_error(exc: yaml.MarkedYAMLError, filename: str) -> str:
    """A YAML syntax error as ``file:line:col: message``."""
    mark = exc.problem_mark
    where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1:1"
    return f"{filename}:{where}: YAML syntax error: {exc.problem}"


def schema_errors(
    exc: ValidationError,
    filename: str,
    position: Callable[[tuple[Any, ...]], str],
    *,
    keep_union_names: bool = False,
    value_error_prefix: bool = True,
) -> list[str]:
    """A model's validation errors as ``file:line:col: path: message``, each at `position` of
    its path. Pydantic puts the name of a union member in a path: left out unless
    `keep_union_names`; without `value_error_prefix` a "Value error, " opening is dropped."""
    errors = []
    for err in exc.errors():
        loc = tuple(
            p
            for p in err["loc"]
            if keep_union_names or not isinstance(p, str) or not p[0].isupper()
        )
        path = ".".join(str(p) for p in loc) or "(top)"
        message = err["msg"] if value_error_prefix else err["msg"].removeprefix("Value error, ")
        errors.append(f"{filename}:{position(loc)}: {path}: {message}")
    return errors


Problem = tuple[tuple[Any, ...], str]  # where in the pack (a path of keys) and what is wrong


def positioned(text: str, filename: str, problems: list[Problem]) -> list[str]:
    """Checks across a valid pack's cards (``problems``) as ``file:line:col: message``, each
    at the position of its own path in the YAML."""
    if not problems:
        return []
    root = yaml.compose(text)
    return [f"{filename}:{_position(_node_at(root, loc))}: {message}" for loc, message in problems]
