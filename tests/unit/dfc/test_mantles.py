import copy
from pathlib import Path

import pytest
import yaml

from bot.dfc.mantles import (
    DATA_FILE,
    MantleDataError,
    MantleNotFoundError,
    condition_tracks,
    core_stunts,
    get_mantle,
    halved_stress,
    incomplete_conditions,
    list_mantles,
    load_mantle_file,
    mantle_data,
    mantles_by_group,
    parse_mantle_data,
    search_mantles,
    stress_for_style,
)
from bot.fate.tracks import Recovery, TrackKind

# Every mantle the seed's "Converting DFA Mantles" section names, by group, in its order.
SEED_MANTLES = {
    "Pure Mortals": [
        "Clued-In Mortal",
        "Criminal",
        "Law Enforcement",
        "Leader of the People",
        "Medic",
        "Monster Hunter",
        "One-Percenter",
        "Reporter",
    ],
    "Spellcasters": ["Focused Practitioner", "Magical Practitioner"],
    "Scions and Emissaries": [
        "Changeling",
        "Erlking's Huntmaster",
        "Knight of a Faerie Court",
        "Knight of the Cross",
        "Kringle's Seneschal",
        "Red Court Infected",
        "Valkyrie",
        "Werecreature",
        "White Court Virgin",
    ],
    "True Fae": ["All Fae"],
    "Vampires": ["Red Court Vampire", "White Court Vampire"],
}

# (mantle, core stunts, additional stunts, conditions) as the seed names them.
SEED_ENTRIES = {
    "Clued-In Mortal": (["Chasing Rumors"], [], []),
    "Criminal": (["Rep"], ["Lay Low", "Always Armed", "The Usual Suspects", "Job Creator"], []),
    "Law Enforcement": (
        ["Firearms Training"],
        ["Hot Pursuit", "Detective", "Tactical Training", "Sniper Training"],
        [],
    ),
    "Medic": (["Medical Care"], ["Field Triage", "Forensic Pathology", "Ambulance"], []),
    "Monster Hunter": ([], ["...And Its Brood", "The Prey Game"], ["In Pursuit", "Wounded"]),
    "One-Percenter": ([], ["Blue Blood"], ["Wealthy"]),
    "Reporter": (["Word on the Street"], ["Yellow Rag", "Smile for the Camera"], []),
    "Magical Practitioner": (
        ["Evocation", "Thaumaturgy", "Soulgaze"],
        ["Silver Sword", "Evocation Specialist"],
        ["The Third Eye"],
    ),
    "Erlking's Huntmaster": (["Crazy Ninja Powers"], [], ["Wyld Power"]),
    "Knight of the Cross": (
        [],
        ["The Voice of God"],
        ["On a Mission from God", "Crisis of Faith"],
    ),
    "Kringle's Seneschal": (["Naughty and Nice"], ["Mythmaker"], []),
    "Valkyrie": (["Rune Magic"], ["More Runes", "Einherjar Reinforcements"], []),
    "Werecreature": (["The Human Touch"], ["Beast Form Adept"], ["Physical Transformation"]),
    "All Fae": (["Glamour"], ["Superior Speed", "Brownie Housekeeper"], []),
    "Red Court Vampire": (["Flesh Mask", "Vampiric Physique"], [], ["Hungry"]),
    "White Court Vampire": ([], ["Emotional Vampire"], []),
}
AS_IS = {
    "Leader of the People",
    "Changeling",
    "Knight of a Faerie Court",
    "Red Court Infected",
    "White Court Virgin",
}


def test_every_seed_mantle_is_present_in_its_group_and_order() -> None:
    grouped = {group: [m.name for m in ms] for group, ms in mantles_by_group().items()}
    assert grouped == SEED_MANTLES
    assert len(list_mantles()) == 22


@pytest.mark.parametrize("name", sorted(SEED_ENTRIES))
def test_stunts_and_conditions_the_seed_names(name: str) -> None:
    mantle = get_mantle(name)
    core, additional, conditions = SEED_ENTRIES[name]
    assert [s.name for s in mantle.core_stunts] == core
    assert [s.name for s in mantle.additional_stunts] == additional
    assert [c.name for c in mantle.conditions] == conditions


def test_as_is_mantles() -> None:
    assert {m.name for m in list_mantles() if m.as_is} == AS_IS
    for name in AS_IS:
        mantle = get_mantle(name)
        assert not mantle.core_stunts and not mantle.additional_stunts and mantle.notes
    assert get_mantle("Focused Practitioner").custom


def test_conversion_facts() -> None:
    law = get_mantle("Law Enforcement")
    firearms = law.core_stunts[0]
    assert firearms.display_name == "Defensive Firearm Training"
    assert firearms.skills == ("Shoot",) and firearms.actions == ("defend",)
    assert firearms.costs_fate_point
    evocation = get_mantle("Magical Practitioner").core_stunts[0]
    assert evocation.skills == ("Lore",) and len(evocation.actions) == 4
    cross = get_mantle("Knight of the Cross")
    assert cross.conditions[0].bonus == 4 and cross.additional_stunts[0].bonus == 2
    assert get_mantle("Monster Hunter").conditions[0].bonus == 2
    swap = get_mantle("Werecreature").conditions[0].skill_swap
    assert swap is not None and swap.swaps == 2
    assert len(swap.column_a) == 7 and len(swap.column_b) == 9
    assert get_mantle("Red Court Vampire").core_stunts[0].bonus == 1


def test_every_entry_has_a_short_conversion_note() -> None:
    for mantle in list_mantles():
        notes = [s.conversion for s in (*mantle.core_stunts, *mantle.additional_stunts)]
        notes += [c.conversion for c in mantle.conditions]
        assert all(0 < len(note) <= 400 for note in notes)


def test_lookup_ignores_case_and_punctuation() -> None:
    assert get_mantle("monster hunter").name == "Monster Hunter"
    assert get_mantle("ERLKINGS HUNTMASTER").name == "Erlking's Huntmaster"
    assert get_mantle("red_court_vampire").name == "Red Court Vampire"
    assert get_mantle("  one-percenter ").name == "One-Percenter"


def test_unknown_mantle_suggests() -> None:
    with pytest.raises(MantleNotFoundError, match="Did you mean Werecreature"):
        get_mantle("Werecreatur")
    with pytest.raises(MantleNotFoundError, match="/mantle list"):
        get_mantle("zzzz")


def test_search_for_autocomplete() -> None:
    assert [m.name for m in search_mantles("red")] == ["Red Court Infected", "Red Court Vampire"]
    assert "White Court Vampire" in [m.name for m in search_mantles("vamp")]
    assert len(search_mantles("")) == 22


def test_halving_follows_the_seed_example() -> None:
    # The seed: under one-point boxes the Monster Hunter's Wounded absorbs only two shifts.
    assert halved_stress(4) == 2
    assert halved_stress(2) == 1
    assert halved_stress(3) == 2  # rounds up
    assert halved_stress(1) == 1  # never to zero
    assert stress_for_style(4, one_point_boxes=False) == 4
    with pytest.raises(ValueError):
        halved_stress(-1)


def test_condition_tracks_for_apply() -> None:
    hunter = get_mantle("Monster Hunter")
    [wounded] = condition_tracks(hunter, one_point_boxes=True)
    assert wounded.kind is TrackKind.CONDITION and wounded.recovery is Recovery.LASTING
    assert len(wounded.boxes) == 2 and wounded.absorb == 2
    [escalating] = condition_tracks(hunter, one_point_boxes=False)
    assert escalating.absorb == 4
    assert [c.name for c in incomplete_conditions(hunter)] == ["In Pursuit"]


def test_core_stunts_become_sheet_stunts() -> None:
    stunts = core_stunts(get_mantle("Red Court Vampire"))
    assert [s.name for s in stunts] == ["Flesh Mask", "Vampiric Physique"]
    assert all(s.core for s in stunts)
    [evocation, *_] = core_stunts(get_mantle("Magical Practitioner"))
    assert evocation.text and not evocation.grants_bonus


def test_data_is_cached() -> None:
    assert mantle_data() is mantle_data()


def _raw() -> dict:
    return yaml.safe_load(DATA_FILE.read_text(encoding="utf-8"))


def test_bad_skill_error_names_the_yaml_path() -> None:
    raw = _raw()
    raw["mantles"][1]["core_stunts"][0]["skills"] = ["Intimidate"]
    with pytest.raises(MantleDataError) as info:
        parse_mantle_data(raw)
    assert "mantles[1].core_stunts[0].skills" in str(info.value)
    assert "Intimidate" in str(info.value)


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda r: r["mantles"][0].update(group="nope"), "unknown group"),
        (lambda r: r["mantles"].append(copy.deepcopy(r["mantles"][0])), "listed twice"),
        (lambda r: r["mantles"][0].update(extra_field=1), "mantles[0].extra_field"),
        (lambda r: r["mantles"][5]["conditions"][1].update(boxes=3), "two boxes"),
        (lambda r: r["mantles"][0].pop("core_stunts"), "needs conditions or stunts"),
        (lambda r: r["mantles"][3].update(notes=""), "needs notes"),
    ],
)
def test_schema_errors(change, fragment: str) -> None:  # type: ignore[no-untyped-def]
    raw = _raw()
    change(raw)
    with pytest.raises(MantleDataError, match="mantles") as info:
        parse_mantle_data(raw)
    assert fragment in str(info.value)


def test_broken_yaml_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("mantles: [unclosed", encoding="utf-8")
    with pytest.raises(MantleDataError, match="broken.yaml"):
        load_mantle_file(path)
