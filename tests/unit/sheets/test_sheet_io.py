import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import RuleError
from bot.fate.sheet import AspectKind, condition_track, new_character
from bot.fate.sheet_io import (
    FORMAT,
    MAX_IMPORT_BYTES,
    UPGRADERS,
    ImportFormatError,
    convert_bytes,
    convert_file,
    export_character,
    import_character,
    upgrade_document,
)
from bot.fate.skills import SkillList, default_skills
from bot.fate.stress import StressStyle
from bot.fate.stunts import write_bonus_stunt
from bot.fate.tracks import Recovery
from tests.unit.sheets.test_sheet import full_pc

FIXTURES = Path(__file__).parent / "fixtures"


def busy_pc():
    pc = full_pc().set_free_invokes("Speaks Fluent Latin", 1)
    pc = pc.add_stunt(
        write_bonus_stunt("Bookworm", "read everything", "Academics", "overcome", "in a library")
    )
    pc = pc.take_consequence("mild", "Paper Cuts").mark_box("mental", 2)
    pc = pc.add_track(condition_track("wounded", "Wounded", Recovery.LASTING, 4))
    return pc.take_condition("wounded").set_notes("Line one\nLine two")


def test_export_has_format_and_version():
    document = json.loads(export_character(busy_pc()))
    assert document["format"] == FORMAT and document["version"] == 1


def test_round_trip_is_exact():
    pc = busy_pc().model_copy(update={"id": 42})
    text = export_character(pc)
    again = import_character(text)
    assert again == pc
    assert export_character(again) == text


@settings(max_examples=40, deadline=None)
@given(
    name=st.text(min_size=1, max_size=80).filter(lambda s: " ".join(s.split()) == s and s),
    physique=st.integers(-2, 8),
    will=st.integers(-2, 8),
    fate_points=st.integers(0, 99),
    escalating=st.booleans(),
)
def test_round_trip_property(name, physique, will, fate_points, escalating):
    style = StressStyle.ESCALATING if escalating else StressStyle.CONDENSED
    pc = new_character(name, skills={"Physique": physique, "Will": will}, stress_style=style)
    pc = pc.set_fate_points(fate_points)
    assert import_character(export_character(pc).encode()) == pc


def test_made_up_v0_is_upgraded():
    assert 0 in UPGRADERS
    v0 = {
        "format": FORMAT,
        "version": 0,
        "character": {
            "name": "Old Timer",
            "aspects": ["Grizzled Veteran", "Bad Knees", "Mentor to Ruth", "Knows Everyone"],
            "skill_ratings": {"Physique": 3, "Fight": 2},
            "refresh": 3,
        },
    }
    pc = import_character(json.dumps(v0))
    assert pc.aspect(AspectKind.HIGH_CONCEPT).text == "Grizzled Veteran"
    assert pc.aspect(AspectKind.RELATIONSHIP).text == "Mentor to Ruth"
    assert pc.rating("Physique") == 3 and len(pc.track("physical").boxes) == 6
    assert upgrade_document(dict(v0))["version"] == 1


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"a":' * 5000, "nests too deeply"),
        (json.dumps({"format": FORMAT, "version": 0, "character": "x"}).encode(), "laid out"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (b'{"hello": "world"}', "not a Fate Table character file"),
        (b"[1, 2, 3]", "not a Fate Table character file"),
        (json.dumps({"format": FORMAT, "version": 9, "character": {}}).encode(), "newer"),
        (json.dumps({"format": FORMAT, "character": {}}).encode(), "no version"),
        (json.dumps({"format": FORMAT, "version": 1}).encode(), "no 'character'"),
        (
            json.dumps({"format": FORMAT, "version": 1, "character": {"name": ""}}).encode(),
            "invalid at name",
        ),
        (json.dumps({"pages": []}).encode(), "Fari character file"),
    ],
)
def test_bad_imports_get_clear_errors(payload, message):
    with pytest.raises(ImportFormatError, match=message):
        import_character(payload)


def test_oversized_import_refused():
    big = b" " * (MAX_IMPORT_BYTES + 1)
    with pytest.raises(ImportFormatError, match="limited to 256 KiB"):
        import_character(big)
    with pytest.raises(ImportFormatError, match="limited to 256 KiB"):
        convert_bytes(big, "big.json")


def test_invalid_sheet_rules_in_file_are_refused():
    document = json.loads(export_character(full_pc()))
    document["character"]["refresh"] = 0
    with pytest.raises(ImportFormatError, match="below 1"):
        import_character(json.dumps(document))


def test_convert_bytes_detects_both_formats():
    ours = convert_bytes(export_character(busy_pc()).encode(), "ruth.json")
    assert ours.source == "fate-table" and ours.unmapped == [] and ours.character == busy_pc()
    fari = convert_bytes((FIXTURES / "fari_current.json").read_bytes(), "fari.json")
    assert fari.source == "fari" and fari.unmapped
    with pytest.raises(ImportFormatError, match="notes.txt is neither"):
        convert_bytes(b'{"x": 1}', "/tmp/notes.txt")


def test_own_format_is_checked_against_the_campaign_skill_list():
    data = export_character(busy_pc()).encode()
    same = convert_bytes(data, "ruth.json", default_skills())
    assert same.unmapped == [] and same.character == busy_pc()
    names = [n for n in default_skills().names if n not in ("Academics", "Fight")]
    custom = SkillList.from_names([n.upper() if n == "Will" else n for n in names])
    result = convert_bytes(data, "ruth.json", custom)
    skills = result.character.skills
    assert "Academics" not in skills and "Fight" not in skills and "WILL" in skills
    assert any(
        "Skill Academics" in u and "not on the campaign's skill list" in u for u in result.unmapped
    )
    assert any("Stunt Bookworm uses Academics" in u for u in result.unmapped)
    again = convert_bytes(export_character(result.character).encode(), "again.json", custom)
    assert [u for u in again.unmapped if u.startswith("Skill")] == []


def test_convert_file(tmp_path):
    text, unmapped = convert_file(FIXTURES / "fari_older.json")
    assert json.loads(text)["format"] == FORMAT and unmapped
    with pytest.raises(ImportFormatError, match="Cannot read"):
        convert_file(tmp_path / "missing.json")


KEYS = [
    "format",
    "version",
    "character",
    "name",
    "aspects",
    "skills",
    "stunts",
    "tracks",
    "fariType",
    "pages",
    "rows",
    "columns",
    "sections",
    "blocks",
    "value",
    "label",
    "type",
]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    body=JSON_VALUES,
    shape=st.sampled_from(["fate-table-v0", "fate-table-v1", "fari"]),
)
def test_any_uploaded_json_is_read_or_refused_in_a_sentence(body: object, shape: str) -> None:
    if shape == "fari":
        document: dict[str, object] = {"fariType": "character", "pages": body}
    else:
        document = {"format": FORMAT, "version": int(shape[-1]), "character": body}
    try:
        convert_bytes(json.dumps(document).encode(), "upload.json")
    except RuleError:
        pass  # a sentence for the user; anything else would surface as an incident


def test_a_fari_file_of_the_wrong_shape_is_refused_in_a_sentence():
    broken = json.dumps({"fariType": "character", "pages": [{"sections": [{"blocks": 1}]}]})
    with pytest.raises(ImportFormatError, match="laid out"):
        convert_bytes(broken.encode(), "broken.json")
