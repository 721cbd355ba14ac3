"""validate-pack: the rulebook's bounds, duplicate ids where they are, ids shared with an
installed pack, link letters without a partner; provenance stays out of card texts."""

from pathlib import Path

import pytest

from bot.games.dfccg.packs import (
    PACK_DIR,
    Library,
    load_library,
    load_pack,
    validate_pack_file,
    validate_pack_text,
)

HEAD = "pack:\n  key: mine\n  title: Mine\n"


def _character(*cards: str) -> str:
    lines = [
        HEAD + "characters:",
        "  - key: k",
        "    name: K",
        "    talent: {name: T}",
        "    stunt: {name: S, effects: []}",
        "    cards:",
    ]
    return "\n".join(lines + [f"      - {card}" for card in cards]) + "\n"


def _card(card_id: str = "k.a", **fields: object) -> str:
    values = {"name": "A", "type": "attack", "cost": 2, "discard": 1, "range": 1, "value": 2}
    values.update(fields)
    return "{" + ", ".join([f"id: {card_id}"] + [f"{k}: {v}" for k, v in values.items()]) + "}"


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"cost": 14}, "outside 0 to 13 Fate"),
        ({"cost": -1}, "outside 0 to 13 Fate"),
        ({"discard": 20}, "outside 0 to 13 Fate"),
        ({"range": 7}, "outside 1 to 6"),
        ({"range": 0}, "outside 1 to 6"),
        ({"value": 99}, "outside 1 to 64"),
        ({"cost": '"2[9]"'}, "less than or equal to 8"),
    ],
)
def test_values_outside_the_rulebook_are_refused_at_their_line(
    fields: dict[str, object], said: str
) -> None:
    errors = validate_pack_text(_character(_card(), _card("k.b", **fields)), "mine.yaml")
    assert len(errors) == 1 and errors[0].startswith("mine.yaml:11:"), errors
    assert said in errors[0]


def test_a_duplicate_id_is_reported_at_the_duplicate() -> None:
    text = _character(_card(), _card("k.b"), _card("k.a"))
    errors = validate_pack_text(text, "mine.yaml")
    assert errors == [
        "mine.yaml:12:14: card id 'k.a' is used twice (first at characters.0.cards.0.id)"
    ]


def test_an_id_of_an_installed_pack_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "storm-front-again.yaml"
    copy.write_text((PACK_DIR / "storm-front.yaml").read_text().replace("dfccg-storm-front", "x"))
    errors = validate_pack_text(copy.read_text(), str(copy), {("book key", "storm-front"): "a"})
    assert errors and "book key 'storm-front' is already used by the pack a" in errors[0]
    errors = validate_pack_file(copy)
    assert len(errors) == 14  # the book key, the Showdown and the 12 cards
    assert all("already used by the pack storm-front.yaml" in e for e in errors)
    assert errors[0].startswith(f"{copy}:11:")  # the book key line
    directory = tmp_path / "two"
    directory.mkdir()
    for name in ("a.yaml", "b.yaml"):
        (directory / name).write_text(copy.read_text().replace("key: x", f"key: {name[0]}"))
    with pytest.raises(ValueError, match="already used by the pack b.yaml"):
        load_library(str(directory))
    alone = tmp_path / "alone"
    alone.mkdir()
    packs = [load_pack(directory / "a.yaml", alone), load_pack(directory / "a.yaml", alone)]
    packs[1].pack.key = "other"
    with pytest.raises(ValueError, match="is in both packs"):
        Library(packs)


def test_every_link_letter_needs_a_partner() -> None:
    text = (PACK_DIR / "storm-front.yaml").read_text()
    broken = text.replace("        links_out: [A]\n", "        links_out: [C]\n", 1)
    errors = validate_pack_text(broken, "sf.yaml")
    assert len(errors) == 2
    assert "link A has no partner: no card has it in links_out" in errors[0]
    assert errors[0].startswith("sf.yaml:30:")  # Kalshazzak's line
    assert "link C has no partner: no card has it in links_in" in errors[1]


def test_provenance_is_per_field_and_checked() -> None:
    text = _character(_card(authored_fields="[value, colour]"))
    errors = validate_pack_text(text, "mine.yaml")
    assert errors and "authored_fields names no field ['colour']" in errors[0]
    fuego = next(c for c in load_library().characters["harry"].cards if c.id == "harry.fuego")
    assert fuego.authored_fields == ["value", "discard"] and "authored" not in fuego.text


def test_harrys_deck_leans_to_investigate() -> None:
    types = [c.type for c in load_library().characters["harry"].cards]
    assert types.count("investigate") > types.count("attack") >= 2
