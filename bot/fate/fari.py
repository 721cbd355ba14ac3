"""Import of Fari (fari.app) character files into a Character.

Fari stores a sheet as pages of sections holding typed blocks. Two layouts exist:
- current: pages[].rows[].columns[].sections[].blocks[]
- older:   pages[].sections (either {"left": [...], "right": [...]} or a list)[].blocks[]
Block types: Text, Numeric, Skill, DicePool, PointCounter, SlotTracker, Link, Separator, Image.

Mapping is by section and block labels (case-insensitive): aspects, skills, stunts, stress,
consequences, fate points and refresh. Everything else is reported back as readable strings.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bot.errors import RuleError
from bot.fate.ladder import describe
from bot.fate.sheet import (
    ASPECT_MAX,
    MAX_FATE_POINTS,
    MAX_REFRESH,
    NAME_MAX,
    NOTES_MAX,
    AspectKind,
    Character,
    new_character,
)
from bot.fate.skills import SkillList, default_skills
from bot.fate.stress import MENTAL, MILD, MODERATE, PHYSICAL, SEVERE, StressStyle
from bot.fate.stunts import STUNT_NAME_MAX, STUNT_TEXT_MAX, Stunt


class FariImportError(RuleError):
    """A file that does not look like a Fari character."""


@dataclass(frozen=True)
class FariBlock:
    where: str  # "page 'Character' > section 'Aspects'"
    section: str
    type: str
    label: str
    value: Any
    meta: dict[str, Any]


def looks_like_fari(data: object) -> bool:
    return isinstance(data, dict) and isinstance(data.get("pages"), list)


def _sections_of(page: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if isinstance(page.get("rows"), list):
        for row in page["rows"]:
            for column in (row or {}).get("columns") or []:
                yield from (column or {}).get("sections") or []
        return
    sections = page.get("sections")
    if isinstance(sections, dict):  # older layout: left/right columns
        for side in ("left", "right"):
            yield from sections.get(side) or []
    elif isinstance(sections, list):
        yield from sections


def iter_blocks(data: dict[str, Any]) -> Iterator[FariBlock]:
    """Every block of a Fari character, in either layout."""
    for page in data.get("pages") or []:
        if not isinstance(page, dict):
            continue
        page_label = str(page.get("label") or "page")
        for section in _sections_of(page):
            if not isinstance(section, dict):
                continue
            section_label = str(section.get("label") or "")
            for block in section.get("blocks") or []:
                if not isinstance(block, dict):
                    continue
                meta = block.get("meta")
                yield FariBlock(
                    where=f"page '{page_label}' > section '{section_label}'",
                    section=section_label,
                    type=str(block.get("type") or ""),
                    label=str(block.get("label") or "").strip(),
                    value=block.get("value"),
                    meta=meta if isinstance(meta, dict) else {},
                )


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str:
    return " ".join(str(value or "").split())


def _has(label: str, *words: str) -> bool:
    lowered = label.casefold()
    return any(w in lowered for w in words)


def _aspect_kind(label: str) -> AspectKind:
    if _has(label, "high concept", "concept"):
        return AspectKind.HIGH_CONCEPT
    if _has(label, "trouble"):
        return AspectKind.TROUBLE
    if _has(label, "relationship"):
        return AspectKind.RELATIONSHIP
    return AspectKind.FREE


class _Importer:
    def __init__(self, data: dict[str, Any], skills: SkillList, style: StressStyle) -> None:
        self.data = data
        self.skills = skills
        self.style = style
        self.unmapped: list[str] = []
        self.aspects: list[tuple[AspectKind, str]] = []
        self.ratings: dict[str, int] = {}
        self.stunts: list[Stunt] = []
        self.stress: dict[str, list[bool]] = {}
        self.consequences: list[tuple[str, str]] = []  # (severity, aspect)
        self.fate_points: int | None = None
        self.refresh: int | None = None
        self.notes: list[str] = []

    def note(self, block: FariBlock, why: str) -> None:
        label = f" '{block.label}'" if block.label else ""
        self.unmapped.append(f"{block.where}: {block.type or 'unknown'} block{label} - {why}")

    def run(self) -> tuple[Character, list[str]]:
        for block in iter_blocks(self.data):
            self.map_block(block)
        return self.build(), self.unmapped

    def map_block(self, block: FariBlock) -> None:
        kind = block.type
        if kind == "Separator":
            return  # layout only
        if kind in ("Image", "Link", "DicePool"):
            self.note(block, "not part of a Fate sheet here")
            return
        if kind == "Skill":
            self.map_skill(block)
        elif kind == "PointCounter":
            self.map_counter(block)
        elif kind == "SlotTracker":
            self.map_slots(block)
        elif kind in ("Text", "Numeric"):
            self.map_text(block)
        else:
            self.note(block, "unknown block type")

    def map_skill(self, block: FariBlock) -> None:
        rating = _int(block.value)
        found = self.skills.find(block.label)
        if rating is None:
            self.note(block, f"rating '{_text(block.value)[:20]}' is not a number")
        elif found is None:
            self.note(block, f"{describe(rating)} is not on the campaign's skill list")
        elif rating != 0:
            self.ratings[found] = rating

    def map_counter(self, block: FariBlock) -> None:
        value = _int(block.value)
        if block.meta.get("isMainPointCounter") or _has(block.label, "fate point"):
            if value is not None:
                self.fate_points = value
            refresh = _int(block.meta.get("max"))
            if refresh is not None:
                self.refresh = refresh
        elif _has(block.label, "refresh") and value is not None:
            self.refresh = value
        else:
            self.note(block, f"counter with value {_text(block.value)[:20]}")

    def map_slots(self, block: FariBlock) -> None:
        harm = None
        if _has(block.label, "phys"):
            harm = PHYSICAL
        elif _has(block.label, "ment"):
            harm = MENTAL
        if harm is None or not isinstance(block.value, list):
            self.note(block, "only physical and mental stress tracks are mapped")
            return
        marks = []
        for box in block.value:
            marks.append(bool(box.get("checked")) if isinstance(box, dict) else bool(box))
        self.stress[harm] = marks

    def map_text(self, block: FariBlock) -> None:
        value = _text(block.value)
        section = block.section
        if block.type == "Numeric" and _has(block.label, "refresh"):
            number = _int(block.value)
            if number is not None:
                self.refresh = number
                return
        if not value:
            return  # an empty field carries nothing to lose
        if _has(section, "aspect"):
            self.aspects.append((_aspect_kind(block.label), value))
        elif _has(section, "stunt", "extra"):
            name = block.label if block.label and not _has(block.label, "stunt") else value
            self.stunts.append(
                Stunt(
                    name=" ".join(name.split()[:8])[:STUNT_NAME_MAX],
                    text=str(block.value).strip()[:STUNT_TEXT_MAX],
                )
            )
            if len(str(block.value).strip()) > STUNT_TEXT_MAX:
                self.note(block, f"stunt text cut to {STUNT_TEXT_MAX} characters")
        elif _has(section, "consequence") or _has(block.label, "mild", "moderate", "severe"):
            severity = next(
                (s for s in (MILD, MODERATE, SEVERE) if _has(block.label, s)),
                {"2": MILD, "4": MODERATE, "6": SEVERE}.get(block.label[:1]),
            )
            if severity is None:
                self.note(block, "consequence without a mild/moderate/severe label")
            else:
                self.consequences.append((severity, value))
        elif _has(block.label, "refresh"):
            self.note(block, f"refresh '{value[:20]}' is not a number")
        elif _has(section, "note", "other") or _has(block.label, "note", "description"):
            self.notes.append(f"{block.label}: {block.value}" if block.label else str(block.value))
        else:
            self.note(block, "no matching place on the sheet")

    def build(self) -> Character:
        name = _text(self.data.get("name")) or "Imported character"
        if len(name) > NAME_MAX:
            self.unmapped.append(f"name cut to {NAME_MAX} characters")
        character = new_character(name[:NAME_MAX], skills=self.ratings, skill_list=self.skills)
        character = character.recompute_stress(self.style)
        character = self.add_aspects(character)
        # Imported sheets keep every stunt as-is; refresh is taken from the file, not recounted.
        unique: list[Stunt] = []
        for number, stunt in enumerate(self.stunts, start=1):
            if any(s.name.casefold() == stunt.name.casefold() for s in unique):
                stunt = stunt.model_copy(update={"name": f"{stunt.name[:70]} ({number})"})
            unique.append(stunt)
        character = character._evolve(lambda c: c.stunts.extend(unique))
        character = self.add_stress(character)
        character = self.add_consequences(character)
        if self.refresh is not None:
            refresh = max(1, min(self.refresh, MAX_REFRESH))
            if refresh != self.refresh:
                self.unmapped.append(f"refresh {self.refresh} adjusted to {refresh}")
            character = character.set_refresh(refresh)
        if self.fate_points is not None:
            points = max(0, min(self.fate_points, MAX_FATE_POINTS))
            character = character.set_fate_points(points)
        if self.notes:
            text = "\n".join(self.notes)
            if len(text) > NOTES_MAX:
                self.unmapped.append(f"notes cut to {NOTES_MAX} characters")
            character = character.set_notes(text[:NOTES_MAX])
        return character

    def add_aspects(self, character: Character) -> Character:
        for kind, text in self.aspects:
            if len(text) > ASPECT_MAX:
                self.unmapped.append(f"aspect '{text[:40]}...' cut to {ASPECT_MAX} characters")
                text = text[:ASPECT_MAX].rstrip()
            taken = character.aspect(kind) is not None and kind is not AspectKind.FREE
            frees = sum(1 for a in character.aspects if a.kind is AspectKind.FREE)
            if taken or (kind is AspectKind.FREE and frees >= 2) or len(character.aspects) >= 5:
                if len(character.aspects) < 5 and frees < 2:
                    kind = AspectKind.FREE
                else:
                    self.unmapped.append(f"aspect '{text}' - the sheet has no free aspect slot")
                    continue
            try:
                character = character.set_aspect(kind, text)
            except RuleError as error:
                self.unmapped.append(f"aspect '{text}' - {error}")
        return character

    def add_stress(self, character: Character) -> Character:
        for harm, marks in self.stress.items():
            track = character.track(harm)
            if len(marks) != len(track.boxes):
                self.unmapped.append(
                    f"{harm} stress had {len(marks)} boxes in Fari; the sheet derives "
                    f"{len(track.boxes)} from its skills"
                )
            for index, marked in enumerate(marks[: len(track.boxes)]):
                if marked:
                    character = character.mark_box(harm, index + 1)
        return character

    def add_consequences(self, character: Character) -> Character:
        for severity, text in self.consequences:
            slot = character.track(severity)
            if not slot.is_free and severity == MILD:
                spare = [t for t in character.tracks if t.key.startswith("mild_") and t.is_free]
                if spare:
                    slot = spare[0]
            if not slot.is_free:
                self.unmapped.append(f"{severity} consequence '{text}' - no free slot")
                continue
            character = character.take_consequence(slot.key, text[:ASPECT_MAX])
        return character


def import_fari(
    data: object,
    skills: SkillList | None = None,
    stress_style: StressStyle = StressStyle.CONDENSED,
) -> tuple[Character, list[str]]:
    """A Character from a parsed Fari JSON document, plus what could not be mapped."""
    if not looks_like_fari(data):
        raise FariImportError(
            "This is not a Fari character file: it has no 'pages'. Export the character "
            "from Fari (character menu > export) and attach that .json file."
        )
    assert isinstance(data, dict)
    return _Importer(data, skills or default_skills(), stress_style).run()


__all__ = [
    "FariBlock",
    "FariImportError",
    "import_fari",
    "iter_blocks",
    "looks_like_fari",
]
