import json
from pathlib import Path

import pytest

from bot.fate.fari import FariImportError, import_fari, iter_blocks
from bot.fate.sheet import AspectKind
from bot.fate.skills import SkillList

FIXTURES = Path(__file__).parent / "fixtures"


def load(name):
    return json.loads((FIXTURES / name).read_text())


@pytest.fixture(params=["fari_current.json", "fari_older.json"])
def imported(request):
    return import_fari(load(request.param))


def test_both_layouts_yield_the_same_blocks():
    current = [(b.section, b.type, b.label) for b in iter_blocks(load("fari_current.json"))]
    older = [(b.section, b.type, b.label) for b in iter_blocks(load("fari_older.json"))]
    assert current == older and len(current) == 32


def test_aspects_mapped(imported):
    pc, _ = imported
    assert pc.name == "Michael Rourke"
    assert pc.aspect(AspectKind.HIGH_CONCEPT).text == "Knight of the Cross With a Borrowed Sword"
    assert pc.aspect(AspectKind.TROUBLE).text == "Nobody Listens to the New Guy"
    assert pc.aspect(AspectKind.RELATIONSHIP).text == "Owes Ruth His Life"
    assert [a.text for a in pc.aspects if a.kind is AspectKind.FREE] == ["Night-Shift Paramedic"]


def test_skills_stunts_points_mapped(imported):
    pc, _ = imported
    assert pc.rating("Fight") == 4 and pc.rating("Academics") == 3 and pc.rating("Drive") == 1
    assert pc.rating("Stealth") == 0
    assert [s.name for s in pc.stunts][0] == "Steady Hands"
    assert len(pc.stunts) == 2
    assert pc.refresh == 2 and pc.fate_points == 2
    assert pc.notes.startswith("Notes: Carries a rosary")


def test_stress_and_consequences_mapped(imported):
    pc, _ = imported
    assert pc.track("physical").render_boxes() == "[x][1][1][1][1][1]"
    assert pc.track("mental").render_boxes() == "[1][x][1][1]"
    assert pc.track("mild").aspect == "Bruised Ribs"
    assert pc.track("moderate").is_free


def test_unmapped_items_are_reported(imported):
    _, unmapped = imported
    text = "\n".join(unmapped)
    assert "Image block" in text and "Link block 'Wiki'" in text
    assert "DicePool block 'Sword damage'" in text
    assert "SlotTracker block 'Ammo'" in text
    assert "Skill block 'Swordplay' - Fair (+2) is not on the campaign's skill list" in text
    assert "Separator" not in text
    assert len(unmapped) == 5


def test_custom_skill_list_maps_custom_skills():
    names = ["Fight", "Physique", "Will", "Swordplay"]
    pc, unmapped = import_fari(load("fari_current.json"), SkillList.from_names(names))
    assert pc.rating("Swordplay") == 2
    assert any("'Academics'" in line for line in unmapped)


def test_box_count_mismatch_is_reported():
    data = load("fari_current.json")
    stress = data["pages"][0]["rows"][0]["columns"][1]["sections"][0]
    stress["blocks"][1]["value"].append({"label": "5", "checked": False})
    _, unmapped = import_fari(data)
    assert any("mental stress had 5 boxes" in line for line in unmapped)


def test_foreign_document_refused():
    with pytest.raises(FariImportError, match="not a Fari character"):
        import_fari({"name": "x"})


def test_broken_blocks_are_skipped_not_fatal():
    data = {"name": "X", "pages": [{"label": "P", "sections": {"left": [None, {"blocks": [1]}]}}]}
    pc, unmapped = import_fari(data)
    assert pc.name == "X" and unmapped == []
