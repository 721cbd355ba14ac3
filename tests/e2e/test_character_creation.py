"""Guided creation as one private message, step by step (issue 13: fewer clicks and messages).

- Every step edits the flow's one message; a step's buttons stop once the draft moved on.
- Steps that ask nothing (refresh 3, the stress boxes) are passed; a group of one mantle is
  taken at once.
- A form refused for a rule (the skill pyramid, two equal aspects, a stunt on a skill the
  campaign lacks) reopens with exactly what was typed, for its writer only.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from bot.db.models.drafts import CharacterDraftRow
from bot.db.models.forms import FormAnswerRow
from bot.testing.harness import Reply, Table
from bot.ui import custom_ids as ids
from tests.e2e.test_characters import SKILLS, guided_character, imported, modal_within_limits

ASPECTS = {"high_concept": "Streetwise Medium", "trouble": "Ghosts Never Leave"}


def modal_values(reply: Reply) -> dict[str, str]:
    """What a form opens with: each input's prefilled text, by its custom id."""
    assert reply.modal is not None, "no form opened"
    values = {}
    for row in reply.modal["components"]:
        inner = row["components"][0] if row.get("type") == 1 else row.get("component", row)
        values[inner["custom_id"]] = inner.get("value") or ""
    return values


async def rows(table: Table, model: Any) -> list[Any]:
    assert table.bot is not None
    db: Any = table.bot.db  # type: ignore[attr-defined]
    async with db.read() as session:
        return list((await session.exec(select(model))).all())


async def at_skills(table: Table, user: int) -> Reply:
    start = await table.slash("character create", user=user)
    plain = await table.select(start, "Mantle", ["none"], user=user)
    aspects = await table.submit(
        await table.click(plain, "Write aspects", user=user), ASPECTS, user=user
    )
    assert "3. Skills" in aspects.text
    return aspects


async def test_guided_creation_is_one_message_edited_step_by_step(table: Table) -> None:
    before = table.tally()
    done = await guided_character(table, table.player, "Harriet")
    cost = table.tally() - before
    assert "is ready" in done.text
    assert cost.ephemeral == 1 and cost.public == 0, cost  # /character create's one message
    # 16 before: "Keep refresh 3", "Looks right", the mantle group and "Later" then "Finish"
    # are gone (one mantle menu, one button that finishes leaving the relationship for later).
    assert cost.interactions == 12, cost
    (message,) = [m for m in table.fake.sent if m["id"] == done.message["id"]]  # type: ignore[index]
    assert "Harriet" in str(message["embeds"])


async def test_an_earlier_steps_buttons_stop(table: Table) -> None:
    user = table.player
    aspects = await at_skills(table, user)
    assert aspects.message is not None
    earlier = dict(aspects.message)  # the step as a second copy of the message shows it
    rated = await table.submit(
        await table.click(aspects, "Rate skills", user=user), SKILLS, user=user
    )
    assert "4. Name" in rated.text
    stale = await table.click(earlier, "Rate skills", user=user)
    assert stale.ephemeral and stale.modal is None
    assert "earlier step" in stale.text and "/character create" in stale.text, stale.text
    over = await table.click(earlier, "Start over", user=user)
    assert over.ephemeral and "earlier step" in over.text
    (draft,) = await rows(table, CharacterDraftRow)
    assert '"step":"name"' in draft.draft_json  # neither click changed the draft

    # A second /character create shows the same step; moving on there stops the first one.
    second = await table.slash("character create", user=user)
    assert "Picking up" in second.text and "4. Name" in second.text
    named = await table.submit(
        await table.click(second, "Name the character", user=user), {"name": "Mara"}, user=user
    )
    assert "5. Stunts" in named.text
    first = await table.click(rated, "Name the character", user=user)
    assert first.ephemeral and "earlier step" in first.text

    # A button posted before buttons carried the draft's version is still read.
    legacy = await table.forge(
        ids.draft_button_id(draft.id, "skipstunts"),
        user=user,
        channel=table.channel,
        ephemeral=True,
    )
    assert "6. Extra stunts" in legacy.text, legacy.text
    gone = await table.forge(
        ids.draft_button_id(draft.id, "refresh"), user=user, channel=table.channel, ephemeral=True
    )
    assert gone.ephemeral and "older version" in gone.text


async def test_steps_that_ask_nothing_are_passed(table: Table) -> None:
    user = table.player
    aspects = await at_skills(table, user)
    rated = await table.submit(
        await table.click(aspects, "Rate skills", user=user), SKILLS, user=user
    )
    named = await table.submit(
        await table.click(rated, "Name the character", user=user), {"name": "Mara"}, user=user
    )
    # Refresh 3 is said on the stunts step and in the summary; there is no button to keep it.
    assert "5. Stunts" in named.text and "You start with refresh 3" in named.text
    assert "**Refresh:** 3" in named.text and "Keep refresh 3" not in named.labels()
    extra = await table.click(named, "No stunt for now", user=user)
    relationship = await table.click(extra, "No extra stunts", user=user)
    # The stress boxes are shown with the relationship step (Will +3: four mental boxes).
    assert "7. Relationship" in relationship.text and "Looks right" not in relationship.labels()
    assert "**Mental stress** [1][1][1][1]" in relationship.text, relationship.text
    assert "Finish (relationship later)" in relationship.labels()
    ready = await table.submit(
        await table.click(relationship, "Write relationship", user=user),
        {"relationship": "Owes Dana a Favour"},
        user=user,
    )
    assert "Ready" in ready.text and "**Mental stress** [1][1][1][1]" in ready.text
    assert ready.labels()[0] == "Finish"


async def test_one_menu_of_mantles_and_a_group_of_one_is_taken_at_once(table: Table) -> None:
    user = table.player
    start = await table.slash("character create", user=user)
    (menu,) = [c for c in start.components() if c.get("placeholder") == "Mantle"]
    options = {o["value"]: o for o in menu["options"]}
    assert len(options) <= 25 and "none" in options and "all_fae" in options
    assert options["all_fae"]["description"] == "True Fae"  # the group it belongs to
    assert "Mantle group" not in str(start.message)

    # A server with more mantles than one menu holds picks a group first (the menu of a
    # group, here an older message's); a group of one mantle is taken at once.
    (draft,) = await rows(table, CharacterDraftRow)
    group = ids.draft_select_id(draft.id, "group", draft.version)
    fae = await table.forge(
        group, user=user, channel=table.channel, values=["true_fae"], ephemeral=True
    )
    assert "2. Aspects" in fae.text and "All Fae" in fae.text, fae.text
    (draft,) = await rows(table, CharacterDraftRow)
    old = await table.click(start, "Start over", user=user)  # the older message: refused
    assert old.ephemeral and "earlier step" in old.text
    again = await table.slash("character create", user=user)
    restarted = await table.click(again, "Start over", user=user)
    assert "1. Mantle" in restarted.text
    (draft,) = await rows(table, CharacterDraftRow)
    group = ids.draft_select_id(draft.id, "group", draft.version)
    mortals = await table.forge(
        group, user=user, channel=table.channel, values=["pure_mortals"], ephemeral=True
    )
    (menu,) = [c for c in mortals.components() if c.get("placeholder") == "Mantle"]
    assert len(menu["options"]) == 8 and "1. Mantle" in mortals.text


async def test_a_refused_pyramid_reopens_with_what_was_typed(table: Table) -> None:
    user = table.player
    aspects = await at_skills(table, user)
    typed = {**SKILLS, "good": "Will", "average": "Physique, Contacts, Empathy, Stealth"}
    before = table.tally()
    wrong = await table.submit(
        await table.click(aspects, "Rate skills", user=user), typed, user=user
    )
    # Refused on the flow's own message: no new message, the step stays, the form's button
    # became "Fix what I typed".
    assert (table.tally() - before).ephemeral == 0
    assert wrong.private and "Not saved" in wrong.text and "3. Skills" in wrong.text
    assert "two Good (+3) skills; you have 1" in wrong.text
    assert "Fix what I typed" in wrong.labels() and "Rate skills" not in wrong.labels()

    fix = await table.click(wrong, "Fix what I typed", user=user)
    assert modal_values(modal_within_limits(fix)) == typed
    # Someone else clicking the same id (a forged click) sees nothing of what was typed.
    (kept,) = await rows(table, FormAnswerRow)
    nosy = await table.forge(ids.form_fix_id(kept.id), user=table.player2, channel=table.channel)
    assert nosy.ephemeral and nosy.modal is None and "someone else's" in nosy.text
    assert "Physique" not in nosy.text

    rated = await table.submit(fix, {"good": "Will, Investigate"}, user=user)
    assert "4. Name" in rated.text and "Not saved" not in rated.text
    assert "Fix what I typed" not in rated.labels()
    assert await rows(table, FormAnswerRow) == []  # accepted: the kept answers are gone
    again = await table.click(wrong, "Name the character", user=user)  # the same message
    assert again.modal is not None


async def test_refused_aspects_and_stunts_reopen_filled_in(table: Table) -> None:
    user = table.player
    start = await table.slash("character create", user=user)
    plain = await table.select(start, "Mantle", ["none"], user=user)
    same = {"high_concept": "Same Words", "trouble": "same words", "free1": "Tall"}
    refused = await table.submit(
        await table.click(plain, "Write aspects", user=user), same, user=user
    )
    assert refused.private and "Two of the aspects are the same" in refused.text
    fix = await table.click(refused, "Fix what I typed", user=user)
    assert modal_values(fix) == {**same, "free2": ""}
    fixed = await table.submit(fix, {"trouble": "Owes the Mob"}, user=user)
    assert "3. Skills" in fixed.text and "Owes the Mob" in fixed.text

    # /stunt write is opened by a command: its refusal is a private message with the button.
    await imported(table, table.player2, "Ruth Kane")
    opened = await table.slash("stunt write", user=table.player2, template="bonus")
    stunt = {
        "name": "Eagle Eye",
        "because": "never miss a detail",
        "skill": "Perception",
        "action": "overcome",
        "circumstance": "searching a room",
    }
    bad = await table.submit(opened, stunt, user=table.player2)
    assert bad.ephemeral and "no skill called 'Perception'" in bad.text
    assert "Fix what I typed" in bad.labels()
    again = await table.click(bad, "Fix what I typed", user=table.player2)
    assert modal_values(again) == stunt
    await table.restart()  # the kept answers are in the database, the form rebuilds
    added = await table.submit(again, {"skill": "Notice"}, user=table.player2)
    assert added.ephemeral and "Added to **Ruth Kane**: **Eagle Eye**" in added.text
