"""A mantle's additional stunts offered in the guided flow."""

from __future__ import annotations

import pytest

from bot.dfc.creation import CreationDraft, CreationStep
from bot.dfc.mantles import additional_stunts, get_mantle, pick_additional_stunts
from bot.errors import RuleError
from bot.fate.sheet import SheetError


def test_additional_stunts_are_not_core() -> None:
    criminal = get_mantle("Criminal")
    stunts = additional_stunts(criminal)
    assert [s.name for s in stunts] == [s.display_name for s in criminal.additional_stunts]
    assert stunts and all(not s.core and s.text for s in stunts)


def test_pick_by_name_in_order_and_refuse_unknown_or_twice() -> None:
    criminal = get_mantle("Criminal")
    picked = pick_additional_stunts(criminal, ["always armed", "Lay Low"])
    assert [s.name for s in picked] == ["Always Armed", "Lay Low"]
    with pytest.raises(RuleError, match="no additional stunt called 'Rep'"):
        pick_additional_stunts(criminal, ["Rep"])  # a core stunt, not an additional one
    with pytest.raises(RuleError, match="picked twice"):
        pick_additional_stunts(criminal, ["Lay Low", "lay low"])


def test_picked_stunts_fit_the_draft_rules() -> None:
    criminal = get_mantle("Criminal")
    draft = CreationDraft(step=CreationStep.STUNTS, mantle=criminal.name)
    one = pick_additional_stunts(criminal, ["Lay Low"])
    chosen = draft.choose_stunts(one)
    assert chosen.step is CreationStep.EXTRA_STUNTS and chosen.free_stunts[0].cost == 0
    with pytest.raises(SheetError, match="1 free stunt"):
        draft.choose_stunts(pick_additional_stunts(criminal, ["Lay Low", "Always Armed"]))
    bought = chosen.buy_stunts(pick_additional_stunts(criminal, ["Always Armed", "Job Creator"]))
    assert bought.refresh == 1 and [s.cost for s in bought.extra_stunts] == [1, 1]
    with pytest.raises(SheetError, match="share a name"):
        chosen.buy_stunts(one)


def test_open_additional_stunts_leave_out_the_taken_ones() -> None:
    from bot.dfc.mantles import open_additional_stunts, take_additional_stunts

    criminal = get_mantle("Criminal")
    assert open_additional_stunts(CreationDraft(step=CreationStep.STUNTS)) == []
    renamed = CreationDraft(step=CreationStep.STUNTS, mantle="A Mantle Since Renamed")
    assert open_additional_stunts(renamed) == []
    draft = CreationDraft(step=CreationStep.STUNTS, mantle=criminal.name)
    every = [s.name for s in open_additional_stunts(draft)]
    assert every == [s.display_name for s in criminal.additional_stunts]
    chosen = take_additional_stunts(draft, ["Lay Low"], buy=False)
    assert [s.name for s in open_additional_stunts(chosen)] == [n for n in every if n != "Lay Low"]
    bought = take_additional_stunts(chosen, ["Always Armed"], buy=True)
    assert [s.name for s in bought.extra_stunts] == ["Always Armed"] and bought.refresh == 2
    with pytest.raises(RuleError, match="no mantle"):
        take_additional_stunts(CreationDraft(step=CreationStep.STUNTS), ["Lay Low"], buy=False)


def test_superior_speed_applies_only_to_the_two_actions_it_names() -> None:
    """The seed, All Fae: "Superior Speed: Gain +2 to use Athletics to defend or create an
    advantage" - not to attack or overcome with Athletics."""
    from bot.fate.rolls import Action as RollAction

    (speed,) = pick_additional_stunts(get_mantle("All Fae"), ["Superior Speed"])
    assert speed.skill == "Athletics" and speed.bonus == 2
    assert speed.applies_to("Athletics", RollAction.DEFEND)
    assert speed.applies_to("athletics", RollAction.CREATE_ADVANTAGE)
    assert not speed.applies_to("Athletics", RollAction.ATTACK)
    assert not speed.applies_to("Athletics", RollAction.OVERCOME)
    assert not speed.applies_to("Fight", RollAction.DEFEND)


def test_a_stunt_saved_with_one_action_still_loads() -> None:
    from bot.fate.stunts import Action, Stunt

    old = Stunt.model_validate({"name": "Sniper", "skill": "Shoot", "action": "attack", "bonus": 2})
    assert old.actions == (Action.ATTACK,)
    assert Stunt.model_validate_json(old.model_dump_json()) == old
