import pytest

from bot.dfc.creation import CreationDraft, CreationStep
from bot.errors import RuleError
from bot.fate.sheet import (
    AspectKind,
    Character,
    NpcKind,
    SheetError,
    apply_mantle,
    check_npc,
    condition_track,
    make_npc,
    new_character,
    new_minor_npc,
)
from bot.fate.skills import UnknownSkillError
from bot.fate.stunts import Stunt
from bot.fate.tracks import Recovery

PYRAMID = {
    "Fight": 4,
    "Athletics": 3,
    "Physique": 3,
    "Academics": 2,
    "Notice": 2,
    "Will": 2,
    "Lore": 1,
    "Investigate": 1,
    "Rapport": 1,
    "Stealth": 1,
}


def full_pc() -> Character:
    pc = new_character("Ruth", skills=PYRAMID)
    pc = pc.set_aspect(AspectKind.HIGH_CONCEPT, "Occult Librarian With a Mean Right Hook")
    pc = pc.set_aspect(AspectKind.TROUBLE, "Curiosity Killed the Cat")
    pc = pc.set_aspect(AspectKind.RELATIONSHIP, "Charles Owes Me Twenty Bucks")
    pc = pc.set_aspect(AspectKind.FREE, "Never Without a Notebook")
    return pc.set_aspect(AspectKind.FREE, "Speaks Fluent Latin")


def test_operations_return_new_sheets():
    pc = new_character("Ruth")
    renamed = pc.rename("  Ruth   Ashby ")
    assert renamed.name == "Ruth Ashby" and pc.name == "Ruth"


def test_sixth_aspect_is_refused():
    pc = full_pc()
    with pytest.raises(SheetError, match="already has 2 free aspects"):
        pc.set_aspect(AspectKind.FREE, "One Too Many")
    rewritten = pc.set_aspect(AspectKind.FREE, "Reads Dead Languages", slot=2)
    assert [a.text for a in rewritten.aspects][-1] == "Reads Dead Languages"


def test_high_concept_is_replaced_not_duplicated():
    pc = full_pc().set_aspect(AspectKind.HIGH_CONCEPT, "Retired Monster Hunter")
    assert pc.aspect(AspectKind.HIGH_CONCEPT).text == "Retired Monster Hunter"
    assert len(pc.aspects) == 5


def test_over_long_aspect_is_refused():
    with pytest.raises(SheetError, match="keep it to 100"):
        new_character("X").set_aspect(AspectKind.TROUBLE, "A" * 101)


def test_free_invokes_and_unknown_aspect():
    pc = full_pc().set_free_invokes("speaks fluent latin", 2)
    assert pc.find_aspect("Speaks Fluent Latin").free_invokes == 2
    with pytest.raises(SheetError, match="no aspect"):
        pc.set_free_invokes("Nope", 1)


def test_unknown_skill_is_refused_with_suggestion():
    with pytest.raises(UnknownSkillError, match="Did you mean Physique"):
        new_character("X").set_skill("Physiqe", 2)


def test_skill_columns_highest_first():
    columns = full_pc().skill_columns()
    assert columns[0] == (4, ["Fight"])
    assert columns[1] == (3, ["Athletics", "Physique"])
    assert [r for r, _ in columns] == [4, 3, 2, 1]
    assert "Burglary" in full_pc().mediocre_skills()


def test_three_free_stunts_then_one_refresh_each_never_below_one():
    pc = full_pc()
    for n in range(3):
        pc = pc.add_stunt(Stunt(name=f"Free {n}"))
    assert pc.refresh == 3 and pc.free_stunt_slots_left() == 0
    pc = pc.add_stunt(Stunt(name="Bought 1")).add_stunt(Stunt(name="Bought 2"))
    assert pc.refresh == 1
    with pytest.raises(SheetError, match="never drop below 1"):
        pc.add_stunt(Stunt(name="Bought 3"))
    refunded = pc.remove_stunt("bought 2")
    assert refunded.refresh == 2


def test_refresh_below_one_is_refused():
    with pytest.raises(SheetError, match="never drop below 1"):
        full_pc().set_refresh(0)


def test_duplicate_stunt_name_refused():
    pc = full_pc().add_stunt(Stunt(name="Sniper"))
    with pytest.raises(SheetError, match="already has a stunt"):
        pc.add_stunt(Stunt(name="sniper"))


def test_save_stunt_adds_a_new_name_and_rewrites_an_existing_one_in_place():
    pc = full_pc().save_stunt(Stunt(name="Sniper", text="+2 to Shoot at range."))
    rewritten = pc.save_stunt(Stunt(name="sniper", text="+2 to Shoot from cover."))
    assert [(s.name, s.text) for s in rewritten.stunts] == [("sniper", "+2 to Shoot from cover.")]
    assert rewritten.refresh == pc.refresh


def test_charles_five_shift_hit_moderate_plus_last_stress_box():
    # Charles has three physical boxes; two are marked from the first claw.
    charles = new_character("Charles", skills={"Athletics": 3})
    charles = charles.mark_box("physical", 1).mark_box("physical", 2)
    charles = charles.take_consequence("moderate", "Gaping Chest Wound").mark_box("physical", 3)
    moderate = charles.track("moderate")
    assert moderate.absorb == 4 and moderate.aspect == "Gaping Chest Wound"
    assert charles.track("physical").marked_count == 3
    assert "Gaping Chest Wound" in charles.aspect_texts()
    with pytest.raises(SheetError, match="already marked"):
        charles.mark_box("physical", 3)
    with pytest.raises(SheetError, match="already holds"):
        charles.take_consequence("moderate", "Another Wound")


def test_consequence_recovery_and_clear():
    pc = full_pc().take_consequence("mild", "Nasty Bite")
    healing = pc.rename_consequence("mild", "Bandaged Bite")
    assert healing.track("mild").healing and healing.track("mild").aspect == "Bandaged Bite"
    assert healing.clear_consequence("mild").track("mild").is_free


def test_end_of_scene_clears_stress_only():
    pc = full_pc().mark_box("mental", 2).take_consequence("mild", "Rattled")
    after = pc.clear_stress()
    assert after.track("mental").is_free and not after.track("mild").is_free


def test_lasting_condition_two_boxes_rules():
    wounded = condition_track("wounded", "Wounded", Recovery.LASTING, value=4)
    pc = full_pc().add_track(wounded).take_condition("wounded")
    assert pc.track("wounded").marked_count == 2
    recovering = pc.begin_condition_recovery("wounded")
    assert recovering.track("wounded").marked_count == 1 and recovering.track("wounded").healing
    with pytest.raises(SheetError, match="only be taken when all its boxes are empty"):
        recovering.take_condition("wounded")
    healed = recovering.clear_condition("wounded")
    assert healed.take_condition("wounded").track("wounded").marked_count == 2


def test_fleeting_condition_marks_one_box_and_clears_at_scene_end():
    angry = condition_track("angry", "Angry", Recovery.FLEETING)
    pc = full_pc().add_track(angry).take_condition("angry")
    assert pc.track("angry").marked_count == 1
    with pytest.raises(SheetError, match="already marked"):
        pc.take_condition("angry")
    assert pc.clear_stress().track("angry").is_free


def test_apply_mantle_adds_core_stunts_and_conditions():
    core = [Stunt(name="Evocation", text="Use Lore for the four actions with magic.")]
    third_eye = condition_track("the_third_eye", "The Third Eye", Recovery.STICKY, value=1)
    pc = apply_mantle(full_pc(), core, [third_eye], mantle_name="Magical Practitioner")
    assert pc.mantle == "Magical Practitioner"
    assert (
        pc.stunt("evocation").core and pc.free_stunt_slots_left() == 1
    )  # DFC: one beside the core
    assert pc.track("The Third Eye").kind == "condition"


def test_minor_npc_limits():
    dog = new_minor_npc("Guard Dog", ["Guard Dog"], {"Great at Biting People": 4}, 2)
    assert dog.npc_kind is NpcKind.MINOR and dog.rating("great at biting people") == 4
    assert not [t for t in dog.tracks if t.kind == "consequence"]
    with pytest.raises(SheetError, match="zero to three"):
        new_minor_npc("Ogre", ["Ogre"], {"Fight": 3}, 4)
    with pytest.raises(SheetError, match="one or two skills"):
        new_minor_npc("Cultist", ["Enraged Cultist"], {"Fight": 2, "Will": 1, "Lore": 1})
    with pytest.raises(SheetError, match="one or two aspects"):
        new_minor_npc("Nobody", [], {"Fight": 1})


def test_major_npc_and_monster_have_no_starting_limits():
    boss = make_npc(new_character("Alice Westforth", skills={"Lore": 6, "Will": 5}), NpcKind.MAJOR)
    check_npc(boss)
    assert any(t.key == "mild_mental" for t in boss.tracks)
    monster = make_npc(new_character("Storm"), NpcKind.MONSTER)
    for n in range(7):
        monster = monster.set_aspect(AspectKind.FREE, f"Howling Wind {n}")
    assert len(monster.aspects) == 7


def test_every_rule_error_is_a_value_error_with_a_sentence():
    with pytest.raises(RuleError) as info:
        full_pc().mark_box("physical", 9)
    assert isinstance(info.value, ValueError) and str(info.value).endswith(".")


# ----- DFC creation order -----


def finished_draft() -> CreationDraft:
    core = [Stunt(name="Evocation"), Stunt(name="Thaumaturgy"), Stunt(name="Soulgaze")]
    eye = condition_track("third_eye", "The Third Eye", Recovery.STICKY)
    draft = CreationDraft().choose_mantle("Magical Practitioner", core, [eye])
    draft = draft.set_aspects("Wizard for Hire", "Broke and Late on Rent", ["Cat Person"])
    draft = draft.set_skills({k.lower(): v for k, v in PYRAMID.items()})
    draft = draft.set_name("Harriet", "A tall wizard in a duster.")
    draft = draft.confirm_refresh()
    draft = draft.choose_stunts([Stunt(name="Silver Sword")])
    draft = draft.buy_stunts([Stunt(name="Evocation Specialist")])
    draft = draft.confirm_stress()
    return draft.set_relationship("Owes Ruth a Favour")


def test_creation_follows_the_dfc_order_and_finishes():
    draft = finished_draft()
    assert draft.step is CreationStep.DONE
    pc = draft.finish()
    assert pc.refresh == 2 and pc.fate_points == 2
    assert [s.name for s in pc.stunts if s.core] == ["Evocation", "Thaumaturgy", "Soulgaze"]
    assert pc.stunt("Silver Sword").cost == 0 and pc.stunt("Evocation Specialist").cost == 1
    assert len(pc.track("physical").boxes) == 6 and len(pc.track("mental").boxes) == 4
    assert pc.track("third_eye").recovery is Recovery.STICKY
    assert pc.aspect(AspectKind.RELATIONSHIP).text == "Owes Ruth a Favour"


def test_creation_draft_resumes_from_json():
    draft = CreationDraft().choose_mantle(None).set_aspects("Cop", "Owes the Mob")
    restored = CreationDraft.model_validate_json(draft.model_dump_json())
    assert restored == draft and restored.step is CreationStep.SKILLS
    assert restored.free_stunt_count == 3


def test_creation_refuses_skipping_and_bad_pyramid():
    with pytest.raises(SheetError, match="Finish the mantle step first"):
        CreationDraft().set_name("Too Early")
    draft = CreationDraft().choose_mantle(None).set_aspects("Cop", "Owes the Mob")
    with pytest.raises(RuleError, match="Great"):
        draft.set_skills({"Fight": 4, "Shoot": 4})
    with pytest.raises(SheetError, match="not finished"):
        draft.finish()


def test_creation_refuses_too_many_bought_stunts():
    draft = finished_draft()
    with pytest.raises(SheetError, match="at most 2"):
        draft.buy_stunts([Stunt(name="A"), Stunt(name="B"), Stunt(name="C")])


def test_validate_step_reports_problems():
    draft = CreationDraft(step=CreationStep.NAME, skills={"Fight": 4})
    problems = draft.validate_step()
    assert "Write a high concept and a trouble." in problems
    assert any("Good" in p for p in problems)


def test_rating_finds_a_skill_however_its_name_is_spaced():
    npc = new_minor_npc("Ghoul", ["Hungry"], {"Biting   People": 3})
    assert npc.rating("biting people") == 3 and npc.rating(" Biting  People ") == 3
    assert npc.rating("Biting") == 0


def test_a_fate_point_change_gives_the_same_sheet_as_a_full_rebuild_and_leaves_the_old_one() -> (
    None
):
    """set_fate_points copies only what changes; the result must equal a sheet validated from
    scratch, dump the same JSON, and leave the sheet it came from as it was."""
    from bot.fate.sheet import Character

    pc = full_pc()
    before = pc.model_dump_json()
    for points in (0, 1, pc.fate_points + 2, 50):
        changed = pc.set_fate_points(points)
        rebuilt = Character.model_validate({**pc.model_dump(), "fate_points": points})
        assert changed == rebuilt
        assert changed.model_dump_json() == rebuilt.model_dump_json()
        assert pc.model_dump_json() == before
    spent = pc.adjust_fate_points(-1).rename("Renamed")  # a later full change copies its parts
    assert spent.fate_points == pc.fate_points - 1
    assert pc.model_dump_json() == before
    with pytest.raises(SheetError):
        pc.set_fate_points(-1)
