"""Loading and validating DFCCG card packs (YAML), with line:col positions in errors."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from bot.games.dfccg.cards import Book, BookCard, Character, Pack, ShowdownCard
from bot.games.packs import validate_yaml

PACK_DIR = Path(__file__).resolve().parents[3] / "data" / "packs" / "dfccg"


def validate_pack_text(text: str, filename: str = "<pack>") -> list[str]:
    """Errors as ``file:line:col: message`` (empty when the pack is valid)."""
    return validate_yaml(text, Pack, filename)


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
