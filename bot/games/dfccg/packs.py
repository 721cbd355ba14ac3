"""Loading and validating DFCCG card packs (YAML), with line:col positions in errors."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from bot.games.dfccg.cards import Book, BookCard, Character, Pack, ShowdownCard
from bot.games.packs import Problem, positioned, validate_yaml

PACK_DIR = Path(__file__).resolve().parents[3] / "data" / "packs" / "dfccg"


Name = tuple[str, str]  # ("card id" | "character key" | "book key", the value)


def pack_names(pack: Pack) -> Iterator[tuple[tuple[Any, ...], Name]]:
    """Every id and key a pack defines, with its path in the pack."""
    for i, character in enumerate(pack.characters):
        yield ("characters", i, "key"), ("character key", character.key)
        for j, card in enumerate(character.cards):
            yield ("characters", i, "cards", j, "id"), ("card id", card.id)
    for i, book in enumerate(pack.books):
        yield ("books", i, "key"), ("book key", book.key)
        yield ("books", i, "showdown", "id"), ("card id", book.showdown.id)
        for j, book_card in enumerate(book.cards):
            yield ("books", i, "cards", j, "id"), ("card id", book_card.id)
    if pack.side_jobs:
        for j, showdown in enumerate(pack.side_jobs.showdowns):
            yield ("side_jobs", "showdowns", j, "id"), ("card id", showdown.id)
        for j, book_card in enumerate(pack.side_jobs.cards):
            yield ("side_jobs", "cards", j, "id"), ("card id", book_card.id)


def _duplicates(pack: Pack, others: dict[Name, str]) -> list[Problem]:
    """An id used twice in the pack (at the second use), or already used by another pack."""
    problems: list[Problem] = []
    first: dict[Name, tuple[Any, ...]] = {}
    for loc, name in pack_names(pack):
        kind, value = name
        if name in first:
            where = ".".join(str(p) for p in first[name])
            problems.append((loc, f"{kind} {value!r} is used twice (first at {where})"))
        elif name in others:
            problems.append((loc, f"{kind} {value!r} is already used by the pack {others[name]}"))
        first.setdefault(name, loc)
    return problems


def _link_partners(cards: list[BookCard], at: tuple[Any, ...]) -> list[Problem]:
    """Each link letter needs a partner: an inbound letter some card sends, and back."""
    sent = {letter for card in cards for letter in card.links_out}
    received = {letter for card in cards for letter in card.links_in}
    problems: list[Problem] = []
    for j, card in enumerate(cards):
        for letter in sorted(set(card.links_in) - sent):
            problems.append(
                ((*at, j, "links_in"), f"link {letter} has no partner: no card has it in links_out")
            )
        for letter in sorted(set(card.links_out) - received):
            problems.append(
                ((*at, j, "links_out"), f"link {letter} has no partner: no card has it in links_in")
            )
    return problems


def pack_problems(pack: Pack, others: dict[Name, str] | None = None) -> list[Problem]:
    """Checks across the cards of a pack that the schema cannot make: unique ids (also
    against ``others``, the names of the other installed packs) and link partners."""
    problems = _duplicates(pack, others or {})
    for i, book in enumerate(pack.books):
        problems += _link_partners(book.cards, ("books", i, "cards"))
    if pack.side_jobs:
        problems += _link_partners(pack.side_jobs.cards, ("side_jobs", "cards"))
    return problems


def validate_pack_text(
    text: str, filename: str = "<pack>", others: dict[Name, str] | None = None
) -> list[str]:
    """Errors as ``file:line:col: message`` (empty when the pack is valid)."""
    errors = validate_yaml(text, Pack, filename)
    if errors:
        return errors
    pack = Pack.model_validate(yaml.safe_load(text))
    return positioned(text, filename, pack_problems(pack, others))


def installed_names(directory: Path, leave_out: Path | None = None) -> dict[Name, str]:
    """The ids and keys of the valid packs in ``directory`` (but ``leave_out``), each with
    the file that defines it."""
    names: dict[Name, str] = {}
    for path in sorted(directory.glob("*.yaml")):
        if leave_out is not None and path.resolve() == leave_out.resolve():
            continue
        try:
            pack = Pack.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, yaml.YAMLError):
            continue  # an invalid pack reports its own errors
        for _loc, name in pack_names(pack):
            names.setdefault(name, path.name)
    return names


def validate_pack_file(path: str | Path, directory: Path | None = None) -> list[str]:
    """Validate one pack file, also against the other packs of ``directory`` (the installed
    packs by default); returns human-readable errors with line:col positions."""
    file_path = Path(path)
    try:
        text = file_path.read_text(encoding="utf-8")
    except OSError as exc:
        return [f"{file_path}:1:1: cannot read the file ({exc.strerror})"]
    others = installed_names(directory or PACK_DIR, leave_out=file_path)
    return validate_pack_text(text, str(file_path), others)


class Library:
    """All loaded packs merged: characters, books and the Side Jobs pool by key."""

    def __init__(self, packs: list[Pack]) -> None:
        self.packs = packs
        self.characters: dict[str, Character] = {}
        self.books: dict[str, Book] = {}
        self.side_job_cards: list[BookCard] = []
        self.side_job_showdowns: list[ShowdownCard] = []
        owners: dict[Name, str] = {}
        for pack in packs:
            for _loc, name in pack_names(pack):
                if owners.setdefault(name, pack.pack.key) != pack.pack.key:
                    raise ValueError(
                        f"{name[0]} {name[1]!r} is in both packs {owners[name]} and "
                        f"{pack.pack.key}; a pack may not reuse another's ids"
                    )
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


def load_pack(path: str | Path, directory: Path | None = None) -> Pack:
    """Load one pack; raises ValueError with the positioned errors when it is invalid."""
    errors = validate_pack_file(path, directory)
    if errors:
        raise ValueError("\n".join(errors))
    return Pack.model_validate(yaml.safe_load(Path(path).read_text(encoding="utf-8")))


_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when installed


def _checked_once(directory: Path) -> list[Pack] | None:
    """Every pack of ``directory`` parsed once and given the checks ``load_pack`` makes (schema,
    ids unique across packs, link partners); None when any pack has a problem, for
    ``load_pack`` to report it with line:col positions. (``load_pack`` on each file parses
    every other pack again to know their ids: seven packs cost seconds of YAML at the first
    card game of a process.)"""
    paths = sorted(directory.glob("*.yaml"))
    try:
        packs = [
            Pack.model_validate(yaml.load(path.read_text(encoding="utf-8"), Loader=_FAST_LOADER))
            for path in paths
        ]
    except (OSError, ValueError, yaml.YAMLError):
        return None
    names = [
        {name: path.name for _loc, name in pack_names(pack)}
        for pack, path in zip(packs, paths, strict=True)
    ]
    for k, pack in enumerate(packs):
        others: dict[Name, str] = {}
        for j, theirs in enumerate(names):
            if j != k:
                for name, filename in theirs.items():
                    others.setdefault(name, filename)
        if pack_problems(pack, others):
            return None
    return packs


@lru_cache(maxsize=4)
def load_library(pack_dir: str | None = None) -> Library:
    """The cached library of every ``*.yaml`` pack in ``data/packs/dfccg`` (or ``pack_dir``)."""
    directory = Path(pack_dir) if pack_dir else PACK_DIR
    packs = _checked_once(directory)
    if packs is None:  # say what is wrong, where
        packs = [load_pack(p, directory) for p in sorted(directory.glob("*.yaml"))]
    return Library(packs)


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
