import pytest

from bot.errors import RuleError
from bot.fate.milestones import (
    BuyStunt,
    MajorMilestone,
    MilestoneError,
    MilestoneKind,
    RecoveryStart,
    ReplaceAverageSkill,
    RewriteAspect,
    RewriteStunt,
    SwapSkills,
    major_milestone,
    minor_milestone,
)
from bot.fate.sheet import AspectKind
from bot.fate.stunts import Action, Stunt, parse_action, write_bonus_stunt, write_rule_stunt
from tests.unit.sheets.test_sheet import full_pc


def test_minor_swap_two_skills():
    pc, record = minor_milestone(full_pc(), SwapSkills(first="fight", second="Stealth"))
    assert pc.rating("Fight") == 1 and pc.rating("Stealth") == 4
    assert record.kind is MilestoneKind.MINOR and "Swapped Fight" in record.changes[0]


def test_minor_replace_only_an_average_skill():
    pc, _ = minor_milestone(full_pc(), ReplaceAverageSkill(old="Lore", new="Crafts"))
    assert pc.rating("Lore") == 0 and pc.rating("Crafts") == 1
    with pytest.raises(MilestoneError, match="Only an Average"):
        minor_milestone(full_pc(), ReplaceAverageSkill(old="Fight", new="Crafts"))


def test_minor_rewrite_aspect_but_not_high_concept():
    pc, _ = minor_milestone(
        full_pc(), RewriteAspect(old="Curiosity Killed the Cat", new="Nosy to a Fault")
    )
    assert pc.aspect(AspectKind.TROUBLE).text == "Nosy to a Fault"
    with pytest.raises(MilestoneError, match="except the high concept"):
        minor_milestone(
            full_pc(), RewriteAspect(old="Occult Librarian With a Mean Right Hook", new="X")
        )


def test_minor_buy_and_rewrite_stunt():
    pc = full_pc()
    for n in range(3):
        pc = pc.add_stunt(Stunt(name=f"Free {n}"))
    bought, record = minor_milestone(pc, BuyStunt(stunt=Stunt(name="Extra")))
    assert bought.refresh == 2 and "1 refresh" in record.changes[0]
    rewritten, _ = minor_milestone(bought, RewriteStunt(name="Extra", stunt=Stunt(name="Better")))
    assert rewritten.stunt("Better").cost == 1


def test_major_raise_under_column_rule_and_saved_point():
    # Ruth: raising Lore alone breaks the columns; the message names Fair.
    with pytest.raises(MilestoneError, match=r"^Fair \(\+2\) holds 4"):
        major_milestone(full_pc(), MajorMilestone(raise_skills=["Lore"]))
    # Bank this milestone's step, then spend it with the next one: Lore and Empathy together.
    saved, record = major_milestone(full_pc(), MajorMilestone(bank_unused_skill_point=True))
    assert saved.skill_points == 1 and "Saved 1 skill step" in record.changes[-1]
    grown, record = major_milestone(saved, MajorMilestone(raise_skills=["Lore", "Empathy"]))
    assert grown.rating("Lore") == 2 and grown.rating("Empathy") == 1
    assert grown.skill_points == 0
    counts = sorted(grown.skills.values(), reverse=True)
    assert counts == [4, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1]


def test_major_too_many_steps_refused():
    with pytest.raises(MilestoneError, match="gives 1 skill step"):
        major_milestone(full_pc(), MajorMilestone(raise_skills=["Crafts", "Drive"]))
    pc, _ = major_milestone(
        full_pc(), MajorMilestone(raise_skills=["Crafts", "Drive"], gm_grants_second_skill=True)
    )
    assert pc.rating("Crafts") == 1 and pc.rating("Drive") == 1


def test_major_that_changes_nothing_is_refused():
    with pytest.raises(MilestoneError, match="changes nothing"):
        major_milestone(full_pc(), MajorMilestone())
    full = full_pc()._evolve(lambda c: setattr(c, "skill_points", 10))
    with pytest.raises(MilestoneError, match="changes nothing"):
        major_milestone(full, MajorMilestone(bank_unused_skill_point=True))


def test_major_high_concept_refresh_and_recovery():
    hurt = full_pc().take_consequence("severe", "Crippled Leg")
    pc, record = major_milestone(
        hurt,
        MajorMilestone(
            new_high_concept="Librarian Who Walks With a Cane",
            start_recovery=[RecoveryStart(slot="severe", new_aspect="Leg in a Brace")],
            gm_grants_refresh=True,
        ),
    )
    assert pc.aspect(AspectKind.HIGH_CONCEPT).text == "Librarian Who Walks With a Cane"
    assert pc.track("severe").healing and pc.refresh == 4
    assert record.kind is MilestoneKind.MAJOR and len(record.changes) == 3
    healed, _ = major_milestone(pc, MajorMilestone(finish_recovery=["severe"]))
    assert healed.track("severe").is_free
    with pytest.raises(MilestoneError, match="not recovering"):
        major_milestone(hurt, MajorMilestone(finish_recovery=["severe"]))


def test_bonus_stunt_template_seed_example():
    stunt = write_bonus_stunt(
        "Military Sniper",
        "am a military-trained sniper",
        "shoot",
        "Attack",
        "I have a target In My Sights",
    )
    assert stunt.text == (
        "Because I am a military-trained sniper, I get +2 when I use Shoot to attack "
        "when I have a target In My Sights."
    )
    assert stunt.skill == "Shoot" and stunt.actions == (Action.ATTACK,) and stunt.bonus == 2
    assert stunt.grants_bonus


def test_rule_stunt_template_seed_example():
    stunt = write_rule_stunt(
        "Skeptic",
        "Because I don't believe in magic",
        "ignore the effects of a supernatural ability",
        "once per game session.",
    )
    assert stunt.text == (
        "Because I don't believe in magic, I can ignore the effects of a supernatural "
        "ability, but only once per game session."
    )
    assert not stunt.grants_bonus


def test_stunt_writer_validates_skill_action_and_blanks():
    with pytest.raises(RuleError, match="Did you mean Stealth"):
        write_bonus_stunt("X", "am sneaky", "Stelth", "overcome", "in shadows")
    with pytest.raises(RuleError, match="not an action"):
        write_bonus_stunt("X", "am sneaky", "Stealth", "dance", "in shadows")
    with pytest.raises(RuleError, match="Fill in the circumstance"):
        write_bonus_stunt("X", "am sneaky", "Stealth", "overcome", "  ")
    assert parse_action("CaA") is Action.CREATE_ADVANTAGE


def test_major_milestone_options_become_the_rules_choice():
    from bot.services.character_base import build_major_milestone

    choice = build_major_milestone(
        raise_skills=["Stealth", None],
        recover_slot="moderate",
        recover_as="Healing Ribs",
        change="swap_skills",
        old="Fight",
        new="Notice",
        gm_refresh=True,
    )
    assert choice.raise_skills == ["Stealth"] and choice.gm_grants_refresh
    assert choice.start_recovery == [RecoveryStart(slot="moderate", new_aspect="Healing Ribs")]
    assert choice.minor == SwapSkills(first="Fight", second="Notice")
    assert build_major_milestone(raise_skills=[]) == MajorMilestone()
    with pytest.raises(RuleError, match="recover_as"):
        build_major_milestone(raise_skills=[], recover_slot="moderate")
    with pytest.raises(RuleError, match="recover_slot"):
        build_major_milestone(raise_skills=[], recover_as="Healing")
    with pytest.raises(RuleError, match="minor `change`"):
        build_major_milestone(raise_skills=[], old="Fight")
