"""Loading and validating DFCCG card packs (YAML), with line:col positions in errors."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from bot.games.dfccg.cards import Book, BookCard, Character, Pack, ShowdownCard

PACK_DIR = Path(__file__).resolve().parents[3] / "data" / "packs" / "dfccg"


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


def validate_pack_text(text: str, filename: str = "<pack>") -> list[str]:
    """Errors as ``file:line:col: message`` (empty when the pack is valid)."""
    try:
        root = yaml.compose(text)
        raw = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1:1"
        return [f"{filename}:{where}: YAML syntax error: {exc.problem}"]
    if not isinstance(raw, dict):
        return [f"{filename}:1:1: a pack is a mapping with 'pack:' and card lists"]
    try:
        Pack.model_validate(raw)
    except ValidationError as exc:
        errors = []
        for err in exc.errors():
            loc = tuple(p for p in err["loc"] if not isinstance(p, str) or not p[0].isupper())
            path = ".".join(str(p) for p in loc) or "(top)"
            errors.append(f"{filename}:{_position(_node_at(root, loc))}: {path}: {err['msg']}")
        return errors
    return []


def validate_pack_file(path: str | Path) -> list[str]:
    """Validate one pack file; returns human-readable errors with line:col positions."""
    file_path = Path(path)
    try:
        text = file_path.read_text(encoding="utf-8")
    except OSError as exc:
        return [f"{file_path}:1:1: cannot read the file ({exc.strerror})"]
    return validate_pack_text(text, str(file_path))


class Library:
    """All loaded packs merged: characters, books and the Side Jobs pool by key."""

    def __init__(self, packs: list[Pack]) -> None:
        self.packs = packs
        self.characters: dict[str, Character] = {}
        self.books: dict[str, Book] = {}
        self.side_job_cards: list[BookCard] = []
        self.side_job_showdowns: list[ShowdownCard] = []
        for pack in packs:
            for character in pack.characters:
                self.characters[character.key] = character
            for book in pack.books:
                self.books[book.key] = book
            if pack.side_jobs:
                self.side_job_cards.extend(pack.side_jobs.cards)
                self.side_job_showdowns.extend(pack.side_jobs.showdowns)

    def campaign_books(self) -> list[Book]:
        """Numbered books in campaign order (Storm Front first)."""
        return sorted((b for b in self.books.values() if b.number), key=lambda b: b.number or 0)


def load_pack(path: str | Path) -> Pack:
    """Load one pack; raises ValueError with the positioned errors when it is invalid."""
    errors = validate_pack_file(path)
    if errors:
        raise ValueError("\n".join(errors))
    return Pack.model_validate(yaml.safe_load(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=4)
def load_library(pack_dir: str | None = None) -> Library:
    """The cached library of every ``*.yaml`` pack in ``data/packs/dfccg`` (or ``pack_dir``)."""
    directory = Path(pack_dir) if pack_dir else PACK_DIR
    return Library([load_pack(p) for p in sorted(directory.glob("*.yaml"))])


def card_index(library: Library) -> dict[str, Any]:
    """Every card definition by id (action cards, Book cards, Side Jobs, Showdowns)."""
    index: dict[str, Any] = {}
    for character in library.characters.values():
        for card in character.cards:
            index[card.id] = card
    for book in library.books.values():
        index[book.showdown.id] = book.showdown
        for book_card in book.cards:
            index[book_card.id] = book_card
    for book_card in library.side_job_cards:
        index[book_card.id] = book_card
    for showdown in library.side_job_showdowns:
        index[showdown.id] = showdown
    return index
