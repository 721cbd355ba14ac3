"""The authored content files and the pack validator (line and column in every message)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from bot.games.dreamwars.packs import DATA_DIR, load_library, validate_file, validate_text

POSITION = re.compile(r"^[^:]+:\d+:\d+: ")


def test_every_shipped_file_is_valid_and_authored() -> None:
    files = sorted(DATA_DIR.glob("*.yaml"))
    assert {f.stem for f in files} >= {
        "map",
        "heroes",
        "nemeses",
        "equipment",
        "adventures",
        "ordeals",
    }
    for path in files:
        assert validate_file(path) == [], path
        assert "authored: true" in path.read_text(encoding="utf-8")


def test_the_content_is_complete_enough_for_a_full_game() -> None:
    lib = load_library()
    assert len(lib.heroes) == 8
    assert {"max", "ilarier", "eogart", "melanie", "eilor", "duncard"} <= set(lib.heroes)
    assert len(lib.great) >= 3
    decks = Counter[str]()
    for item in lib.items.values():
        decks[item.deck] += item.copies
    assert decks == {"common": 30, "tech": 32, "cantici": 30, "shards": 30}
    adventures = Counter[str]()
    for card in lib.adventures.values():
        adventures[card.deck] += card.copies
    assert adventures == {"outland": 30, "city": 30}
    assert sum(e.copies for e in lib.events.values()) == 30
    horde = [m for m in lib.markers.values() if "behemoth" not in m.abilities]
    assert sum(m.copies for m in horde) == 34
    ordeal = next(iter(lib.ordeals.values()))
    assert len(ordeal.scenarios) >= 3
    # every Ekathon Portal of the rulebook is on the map
    portals = {n.name for n in lib.nodes.values() if "portal_ekathon" in n.icons}
    assert portals == {
        "Fluvial Port",
        "Galleon",
        "Underground Lake",
        "Murky Bog",
        "Circle of the Four Winds",
        "Swamp",
    }


def _siblings(tmp_path: Path, name: str, text: str) -> Path:
    for path in DATA_DIR.glob("*.yaml"):
        if path.name != name:
            (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    target = tmp_path / name
    target.write_text(text, encoding="utf-8")
    return target


def test_an_unknown_location_in_a_connection_is_reported_at_its_place(tmp_path: Path) -> None:
    text = (DATA_DIR / "map.yaml").read_text(encoding="utf-8")
    text = text.replace("  - [h_foundry_row, factory]", "  - [h_foundry_row, fatcory]")
    errors = validate_file(_siblings(tmp_path, "map.yaml", text))
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "fatcory" in row)
    assert any(f":{line}:" in e and "unknown location 'fatcory'" in e for e in errors), errors
    assert all(POSITION.match(e) for e in errors)


def test_an_unknown_effect_keyword_is_reported_with_the_known_ones(tmp_path: Path) -> None:
    text = (DATA_DIR / "equipment.yaml").read_text(encoding="utf-8")
    text = text.replace("{kind: heal, amount: 2}]}", "{kind: heall, amount: 2}]}", 1)
    errors = validate_file(_siblings(tmp_path, "equipment.yaml", text))
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "heall" in row)
    assert errors and all(POSITION.match(e) for e in errors)
    assert any(f":{line}:" in e and "unknown effect kind 'heall'" in e for e in errors), errors


def test_a_hero_without_a_field_is_reported(tmp_path: Path) -> None:
    text = (DATA_DIR / "heroes.yaml").read_text(encoding="utf-8")
    text = text.replace("    max_cantici: 0\n", "", 1)
    errors = validate_file(_siblings(tmp_path, "heroes.yaml", text))
    assert any("max_cantici: Field required" in e for e in errors), errors
    assert all(POSITION.match(e) for e in errors)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            "game: dreamwars\nkind: map\nauthored: false\nname: x\nnodes: []\npaths: []\n",
            "authored",
        ),
        ("game: dreamwars\nkind: maps\n", "kind must be one of"),
        ("game: dreamwars\nkind: [\n", "YAML syntax error"),
        ("kind: map\n", "starts with 'game: dreamwars'"),
    ],
)
def test_bad_files_get_one_positioned_sentence(text: str, needle: str) -> None:
    errors = validate_text(text, "pack.yaml")
    assert errors and all(POSITION.match(e) for e in errors)
    assert any(needle in e for e in errors), errors


def test_a_scenario_naming_an_unknown_marker_is_reported(tmp_path: Path) -> None:
    text = (DATA_DIR / "ordeals.yaml").read_text(encoding="utf-8")
    text = text.replace("deploy: {galleon: [behemoth]}", "deploy: {galleon: [behemot]}")
    errors = validate_file(_siblings(tmp_path, "ordeals.yaml", text))
    assert any("unknown Nemesis marker 'behemot'" in e for e in errors), errors


def test_the_engine_checks_its_own_packs_only_and_simulates_for_the_cli() -> None:
    from bot.games.dreamwars import ENGINE, DwOptions

    path = DATA_DIR / "map.yaml"
    assert ENGINE.validate_pack_text(path.read_text(encoding="utf-8"), str(path)) == []
    assert ENGINE.validate_pack_text("pack: {key: x}\n", "other.yaml") is None
    line = ENGINE.simulate(DwOptions(single_scenario=True), 1, 2, 3)
    assert line["games"] == 2 and line["options"] == {"single_scenario": True}
    assert {"win_rate", "scenario_outcomes", "mean_turns", "deaths"} <= set(line)


def test_a_status_caught_from_an_unknown_marker_or_with_an_active_effect_is_reported(
    tmp_path: Path,
) -> None:
    text = (DATA_DIR / "ordeals.yaml").read_text(encoding="utf-8")
    bad = text.replace("caught_from: [hireling]", "caught_from: [hirelign]")
    errors = validate_file(_siblings(tmp_path, "ordeals.yaml", bad))
    line = next(n for n, row in enumerate(bad.splitlines(), 1) if "hirelign" in row)
    assert any(f":{line}:" in e and "unknown Nemesis marker 'hirelign'" in e for e in errors)
    active = text.replace("damage: 1\n", "damage: 1\n            effects: [{kind: heal}]\n", 1)
    errors = validate_file(_siblings(tmp_path, "ordeals.yaml", active))
    assert any("a status's effects last while it does" in e for e in errors), errors
    assert all(POSITION.match(e) for e in errors)


def test_an_afflict_effect_needs_a_status_some_scenario_has(tmp_path: Path) -> None:
    text = (DATA_DIR / "equipment.yaml").read_text(encoding="utf-8")
    bad = text.replace("{kind: heal, amount: 2}]}", "{kind: afflict, status: plague}]}", 1)
    errors = validate_file(_siblings(tmp_path, "equipment.yaml", bad))
    line = next(n for n, row in enumerate(bad.splitlines(), 1) if "plague" in row)
    assert any(f":{line}:" in e and "unknown status 'plague'" in e for e in errors), errors
    missing = text.replace("{kind: heal, amount: 2}]}", "{kind: afflict}]}", 1)
    errors = validate_file(_siblings(tmp_path, "equipment.yaml", missing))
    assert any("needs the field 'status'" in e for e in errors), errors
