"""Export/import of characters in the project's versioned JSON format, and file conversion.

Format: {"format": "fate-table/character", "version": 1, "character": {...Character...}}.
Older versions are upgraded step by step through UPGRADERS (version n -> n + 1). Fari files are
recognised and converted by bot.fate.fari. No I/O here except `convert_file` reading the one
file it is given.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from bot.errors import RuleError
from bot.fate.fari import import_fari, looks_like_fari
from bot.fate.ladder import describe
from bot.fate.sheet import AspectKind, Character
from bot.fate.skills import SkillList
from bot.fate.stress import StressStyle

FORMAT = "fate-table/character"
VERSION = 1
MAX_IMPORT_BYTES = 256 * 1024
MAX_NUMBER_DIGITS = 19  # a BIGINT id at most; a sheet's own numbers are far smaller

Upgrader = Callable[[dict[str, Any]], dict[str, Any]]
# version n -> the function that turns a version-n document into version n + 1
UPGRADERS: dict[int, Upgrader] = {}


class ImportFormatError(RuleError):
    """A file that is broken, foreign, oversized, or from an unknown version."""


@contextmanager
def _uploaded(kind: str) -> Iterator[None]:
    """Reading a file someone uploaded: a value of the wrong shape deep inside it (a number
    where a section belongs, a list where a name belongs) is the file's fault, so it becomes
    a sentence for the user instead of an incident."""
    try:
        yield
    except RuleError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError, IndexError):
        raise ImportFormatError(
            f"Parts of this {kind} file are not laid out the way an exported file is; "
            "export the character again and attach the file unchanged."
        ) from None


def upgrader(from_version: int) -> Callable[[Upgrader], Upgrader]:
    def register(func: Upgrader) -> Upgrader:
        UPGRADERS[from_version] = func
        return func

    return register


@upgrader(0)
def _v0_to_v1(document: dict[str, Any]) -> dict[str, Any]:
    """Version 0 (pre-release): aspects were bare strings in sheet order and skills were
    called "skill_ratings"; stress was not stored (it is derived on load)."""
    old = dict(document.get("character") or {})
    kinds = [AspectKind.HIGH_CONCEPT, AspectKind.TROUBLE, AspectKind.RELATIONSHIP]
    aspects = []
    for index, text in enumerate(old.pop("aspects", []) or []):
        kind = kinds[index] if index < len(kinds) else AspectKind.FREE
        aspects.append({"kind": kind.value, "text": text, "free_invokes": 0})
    old["aspects"] = aspects
    old["skills"] = old.pop("skill_ratings", {}) or {}
    old.setdefault("tracks", None)  # marker: derive on load
    return {"format": FORMAT, "version": 1, "character": old}


def export_character(character: Character) -> str:
    """The character as versioned JSON text (stable key order, readable indentation)."""
    document = {
        "format": FORMAT,
        "version": VERSION,
        "character": character.model_dump(mode="json"),
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _bounded_int(digits: str) -> int:
    """A JSON integer, refused past MAX_NUMBER_DIGITS digits (Python would spend time on a huge
    one, and past 4300 digits refuses to read it at all)."""
    if len(digits.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ImportFormatError(
            f"The file holds a number {len(digits.lstrip('-'))} digits long; no character file "
            "needs one. Attach the exported .json file unchanged."
        )
    return int(digits)


def _decode(data: bytes | str) -> Any:
    if isinstance(data, str):
        raw = data.encode("utf-8")
    else:
        raw = data
    if len(raw) > MAX_IMPORT_BYTES:
        raise ImportFormatError(
            f"The file is {len(raw) // 1024} KiB; character files are limited to "
            f"{MAX_IMPORT_BYTES // 1024} KiB."
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ImportFormatError(
            "The file is not UTF-8 text; attach the .json file exported by Fate Table or Fari."
        ) from None
    try:
        return json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as error:
        raise ImportFormatError(
            f"The file is not valid JSON (line {error.lineno}, column {error.colno}). "
            "Attach the exported .json file unchanged."
        ) from None
    except RecursionError:  # a few KiB of nested brackets exhaust the decoder's stack
        raise ImportFormatError(
            "The file nests too deeply to be a character file; attach the exported .json file."
        ) from None


def upgrade_document(document: dict[str, Any]) -> dict[str, Any]:
    """Bring a document of any known version up to VERSION."""
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ImportFormatError("The character file has no version number.")
    if version > VERSION:
        raise ImportFormatError(
            f"This character file is version {version}, newer than this bot understands "
            f"(up to {VERSION}). Update the bot, or export again from the same version."
        )
    while version < VERSION:
        step = UPGRADERS.get(version)
        if step is None:
            raise ImportFormatError(f"Character files of version {version} cannot be read.")
        document = step(document)
        version = document["version"]
    return document


def _character_from_document(document: dict[str, Any]) -> Character:
    body = document.get("character")
    if not isinstance(body, dict):
        raise ImportFormatError("The character file has no 'character' section.")
    derive_tracks = body.get("tracks") is None
    if derive_tracks:
        body = {k: v for k, v in body.items() if k != "tracks"}
    try:
        character = Character.model_validate(body)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "character"
        message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        raise ImportFormatError(f"The character file is invalid at {where}: {message}") from None
    return character.recompute_stress() if derive_tracks else character


def import_character(data: bytes | str) -> Character:
    """A Character from the project's JSON format (any known version)."""
    document = _decode(data)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        if looks_like_fari(document):
            raise ImportFormatError("This is a Fari character file; import it as a Fari file.")
        raise ImportFormatError(
            "This is not a Fate Table character file (its 'format' is not "
            f"'{FORMAT}'). Use a file made by the export command, or a Fari character file."
        )
    with _uploaded("Fate Table character"):
        return _character_from_document(upgrade_document(document))


class ConversionResult(BaseModel):
    """The outcome of converting an uploaded/given file."""

    source: str  # "fate-table" or "fari"
    character: Character
    unmapped: list[str] = Field(default_factory=list)

    @property
    def json_text(self) -> str:
        return export_character(self.character)


def fit_skill_list(character: Character, skills: SkillList) -> tuple[Character, list[str]]:
    """Check a sheet's skills against a campaign's list: names are spelled as the list spells
    them; skills the list lacks are dropped and reported (a sheet from a campaign with another
    skill list). Stunts that name a missing skill are kept and reported."""
    kept: dict[str, int] = {}
    unmapped: list[str] = []
    for name, rating in character.skills.items():
        found = skills.find(name)
        if found is None:
            if rating != 0:
                unmapped.append(
                    f"Skill {name[:40]} ({describe(rating)}) is not on the campaign's skill list"
                )
            continue
        kept[found] = rating
    for stunt in character.stunts:
        if stunt.skill and skills.find(stunt.skill) is None:
            unmapped.append(
                f"Stunt {stunt.name[:60]} uses {stunt.skill[:40]}, which is not on the "
                "campaign's skill list"
            )
    if kept == character.skills:
        return character, unmapped
    return character.model_copy(update={"skills": kept}), unmapped


def convert_bytes(
    data: bytes,
    filename: str = "",
    skills: SkillList | None = None,
    stress_style: StressStyle = StressStyle.CONDENSED,
) -> ConversionResult:
    """Read a Fate Table or Fari character file's bytes; says what could not be mapped."""
    document = _decode(data)
    if isinstance(document, dict) and document.get("format") == FORMAT:
        with _uploaded("Fate Table character"):
            character = _character_from_document(upgrade_document(document))
        unmapped: list[str] = []
        if skills is not None:
            character, unmapped = fit_skill_list(character, skills)
        return ConversionResult(source="fate-table", character=character, unmapped=unmapped)
    if looks_like_fari(document):
        with _uploaded("Fari character"):
            character, unmapped = import_fari(document, skills, stress_style)
        return ConversionResult(source="fari", character=character, unmapped=unmapped)
    shown = Path(filename).name[:60] or "The file"
    raise ImportFormatError(f"{shown} is neither a Fate Table character nor a Fari character file.")


def convert_file(path: str | Path) -> tuple[str, list[str]]:
    """For `python -m bot convert-character FILE`: (project JSON text, unmapped items)."""
    file = Path(path)
    try:
        size = file.stat().st_size
    except OSError as error:
        raise ImportFormatError(f"Cannot read {file.name}: {error.strerror}.") from None
    if size > MAX_IMPORT_BYTES:
        raise ImportFormatError(
            f"The file is {size // 1024} KiB; character files are limited to "
            f"{MAX_IMPORT_BYTES // 1024} KiB."
        )
    result = convert_bytes(file.read_bytes(), file.name)
    return result.json_text, result.unmapped
