"""Campaigns, character sheets and mantles through the fake Discord."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from bot.fate.sheet import AspectKind, new_character
from bot.fate.sheet_io import export_character
from bot.testing.harness import Reply, Table
from tests.e2e.test_rolls import character, make_character

SKILLS: dict[str, str | list[str]] = {
    "great": "Lore",
    "good": "Will, Investigate",
    "fair": "Notice, Rapport, Academics",
    "average": "Physique, Contacts, Empathy, Stealth",
}


def modal_within_limits(reply: Reply) -> Reply:
    """Discord refuses a modal whose title or labels pass 45 characters, or with over 5 inputs."""
    modal = reply.modal
    assert modal is not None
    assert len(modal["title"]) <= 45 and len(modal["components"]) <= 5
    for row in modal["components"]:
        inner = row["components"][0] if row.get("type") == 1 else row.get("component", row)
        label = row.get("label") or inner.get("label") or ""
        assert 1 <= len(label) <= 45, label
        assert len(inner.get("placeholder") or "") <= 100
        assert len(inner.get("value") or "") <= inner.get("max_length", 4000)
    return reply


async def guided_character(
    table: Table, user: int, name: str = "Harriet Blackwood", *, finish: bool = True
) -> Reply:
    """Walk the whole guided flow as `user`, choosing the Clued-In Mortal mantle."""
    start = await table.slash("character create", user=user)
    assert start.ephemeral and "Mantle" in start.text
    picked = await table.select(start, "Mantle", ["clued_in_mortal"], user=user)
    assert "Aspects" in picked.text and "Clued-In Mortal" in picked.text
    opened = modal_within_limits(await table.click(picked, "Write aspects", user=user))
    aspects = await table.submit(
        opened,
        {"high_concept": "Occult Librarian Who Knows Too Much", "trouble": "Owes the Wrong Fae"},
        user=user,
    )
    assert "Skills to choose from" in aspects.text and "Athletics, Burglary" in aspects.text
    opened = modal_within_limits(await table.click(aspects, "Rate skills", user=user))
    skills = await table.submit(opened, SKILLS, user=user)
    assert "4. Name" in skills.text, skills.text
    opened = modal_within_limits(await table.click(skills, "Name the character", user=user))
    named = await table.submit(opened, {"name": name}, user=user)
    # Refresh 3 asks nothing: the stunts step comes at once and says so.
    assert "5. Stunts" in named.text and "refresh 3" in named.text, named.text
    opened = modal_within_limits(await table.click(named, "Write stunts", user=user))
    stunted = await table.submit(
        opened,
        {"stunt1": "Card Catalogue Mind: +2 to Lore when I research in a library."},
        user=user,
    )
    assert "6. Extra stunts" in stunted.text, stunted.text
    # The stress boxes ask nothing either: they are shown with the relationship step.
    extra = await table.click(stunted, "No extra stunts", user=user)
    assert "7. Relationship" in extra.text, extra.text
    assert "Stress" in extra.text and "[1]" in extra.text
    if not finish:
        return extra
    return await table.click(extra, "Finish (relationship later)", user=user)


async def test_guided_dfc_character(table: Table) -> None:
    done = await guided_character(table, table.player)
    assert "is ready" in done.text
    sheet = await table.slash("character sheet", user=table.player, full=True)
    assert sheet.ephemeral
    text = sheet.text
    assert "Harriet Blackwood — Clued-In Mortal" in text
    assert "Great (+4):** Lore" in text
    assert "Chasing Rumors" in text and "Card Catalogue Mind" in text
    assert "Mental stress** [1][1][1][1][1][1]" in text
    assert "3 / 3" in text


async def test_guided_flow_offers_the_mantles_additional_stunts(table: Table) -> None:
    user = table.player
    start = await table.slash("character create", user=user)
    picked = await table.select(start, "Mantle", ["criminal"], user=user)
    opened = await table.click(picked, "Write aspects", user=user)
    aspects = await table.submit(
        opened, {"high_concept": "Fence for the Outfit", "trouble": "Marcone Owns Me"}, user=user
    )
    skills = await table.submit(
        await table.click(aspects, "Rate skills", user=user), SKILLS, user=user
    )
    named = await table.submit(
        await table.click(skills, "Name the character", user=user),
        {"name": "Vic Sallow"},
        user=user,
    )
    assert "Or pick a mantle stunt" in str(named.message), "no mantle stunt select"
    await table.restart()  # the select carries the draft id, like the buttons
    free = await table.select(named, "Or pick a mantle stunt", ["Lay Low"], user=user)
    assert "6. Extra stunts" in free.text and "Lay Low" in free.text, free.text
    options = str(free.message)
    assert "Always Armed" in options and "Lay Low" not in options.split("Or buy")[1]
    stranger = await table.select(
        free, "Or buy the mantle's stunts", ["Always Armed"], user=table.player2
    )
    assert stranger.ephemeral and "someone else's" in stranger.text
    bought = await table.select(
        free, "Or buy the mantle's stunts", ["Always Armed", "Job Creator"], user=user
    )
    assert "7. Relationship" in bought.text and "Stress and conditions" in bought.text
    done = await table.click(bought, "Finish (relationship later)", user=user)
    assert "is ready" in done.text
    sheet = await table.slash("character sheet", user=user, full=True)
    assert "Lay Low" in sheet.text and "Always Armed" in sheet.text and "Rep" in sheet.text
    assert "1 / 1" in sheet.text or "Refresh** 1" in sheet.text, sheet.text


# --------------------------------------------------------------------------- helpers
FIXTURES = Path(__file__).resolve().parents[1] / "unit" / "sheets" / "fixtures"


def plain_sheet(name: str) -> bytes:
    """A finished plain Fate Condensed character in our own file format."""
    sheet = new_character(
        name,
        skills={
            "Fight": 4,
            "Athletics": 3,
            "Physique": 3,
            "Will": 2,
            "Notice": 2,
            "Shoot": 2,
            "Stealth": 1,
            "Provoke": 1,
            "Rapport": 1,
            "Crafts": 1,
        },
    )
    sheet = sheet.set_aspect(AspectKind.HIGH_CONCEPT, "Ex-Marine Bodyguard")
    sheet = sheet.set_aspect(AspectKind.TROUBLE, "Never Backs Down")
    sheet = sheet.set_aspect(AspectKind.RELATIONSHIP, "Dana Pulled Me Out of the River")
    sheet = sheet.set_aspect(AspectKind.FREE, "Scar Across the Knuckles")
    sheet = sheet.set_aspect(AspectKind.FREE, "Knows Every Bouncer in Town")
    return export_character(sheet).encode()


async def imported(table: Table, user: int, name: str) -> Reply:
    upload = table.fake.add_attachment(f"{name}.json", plain_sheet(name))
    reply = await table.slash("character import", user=user, file=upload)
    assert reply.ephemeral and f"Imported **{name}**" in reply.text, reply.text
    return reply


def attachment_bytes(table: Table, reply: Reply) -> bytes:
    message = reply.message or reply.followups[-1]
    (attachment,) = message["attachments"]
    return table.fake.attachments[int(attachment["id"])][1]


async def exported(table: Table, user: int, **options: Any) -> bytes:
    reply = await table.slash("character export", user=user, **options)
    assert reply.ephemeral
    return attachment_bytes(table, reply)


# --------------------------------------------------------------------------- tests
async def test_a_mantle_leaves_one_free_stunt_beside_its_core_stunts(table: Table) -> None:
    """DFC creation: "Mark down your mantle's Core Stunts, then choose one stunt for free ...
    additional stunts ... at the cost of one Refresh per stunt": Harry, refresh 3, takes the
    Magical Practitioner mantle; his first own stunt is free, the next two cost 1 refresh each."""
    harry = await make_character(table, table.player, "Harry", {"Lore": 4, "Will": 3})
    applied = await table.slash("mantle apply", user=table.player, name="Magical Practitioner")
    assert "Free stunts left beside its core stunts: 1 (DFC gives one)" in applied.text
    text = "Because I read a lot, I get +2 when I use Lore to overcome in a library."
    for n in range(3):
        await table.slash("character edit stunt", user=table.player, name=f"Stunt {n}", text=text)
    sheet = (await character(table, harry)).sheet
    assert [s.cost for s in sheet.stunts if not s.core] == [0, 1, 1]
    assert sheet.refresh == 1


async def test_apply_mantle_halves_stress_and_reports_incomplete(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    shown = await table.slash("mantle show", user=table.player, name="Monster Hunter")
    assert shown.ephemeral and "Wounded" in shown.text and "absorbs 2" in shown.text
    applied = await table.slash("mantle apply", user=table.player, name="Monster Hunter")
    assert applied.ephemeral
    assert "now carries the **Monster Hunter** mantle" in applied.text
    assert "In Pursuit" in applied.text  # only named by the seed: the GM completes it
    sheet = await table.slash("character sheet", user=table.player, full=True)
    assert "Ruth Kane — Monster Hunter" in sheet.text
    assert "**Wounded** [2][2] *lasting*, absorbs 2" in sheet.text
    wounded = await table.slash(
        "character edit condition",
        user=table.player,
        condition="monster_hunter:wounded",
        note="Clawed by a ghoul",
    )
    assert wounded.ephemeral and "condition updated" in wounded.text
    twice = await table.slash("character edit condition", user=table.player, condition="Wounded")
    assert twice.ephemeral and "only be taken when all its boxes are empty" in twice.text
    await table.slash(
        "character edit condition", user=table.player, condition="Wounded", recover=True
    )
    hurt = await table.slash(
        "character edit consequence", user=table.player, slot="moderate", aspect="Cracked Ribs"
    )
    assert "consequence updated" in hurt.text
    await table.slash("character edit notes", user=table.player, text="Hunts ghouls for cash.")
    sheet = await table.slash("character sheet", user=table.player, full=True)
    assert "**Wounded** [x][2] *lasting*, absorbs 2: Clawed by a ghoul *(recovering)*" in sheet.text
    assert "**Moderate consequence** (4): Cracked Ribs" in sheet.text
    assert "Hunts ghouls for cash." in sheet.text
    again = await table.slash("mantle apply", user=table.player, name="Medic")
    assert again.ephemeral and "already carries" in again.text

    # The GM completes the missing condition for the campaign; the next hunter gets it.
    refused = await table.slash(
        "mantle condition",
        user=table.player,
        mantle="Monster Hunter",
        name="In Pursuit",
        kind="sticky",
    )
    assert refused.ephemeral and "Only the GM" in refused.text
    saved = await table.slash(
        "mantle condition",
        user=table.gm,
        mantle="Monster Hunter",
        name="In Pursuit",
        kind="sticky",
        stress=2,
    )
    assert saved.ephemeral and "In Pursuit" in saved.text
    await imported(table, table.player2, "Sam Okafor")
    second = await table.slash("mantle apply", user=table.player2, name="monster hunter")
    assert "In Pursuit" not in second.text.split("mantle.")[1].split("\n")[0]
    sheet = await table.slash("character sheet", user=table.player2, full=True)
    assert "**In Pursuit** [1] *sticky*" in sheet.text
    listed = await table.slash("mantle show", user=table.player, name="Monster Hunter")
    assert "This campaign's entries" in listed.text


async def test_export_and_reimport_unchanged(table: Table) -> None:
    await guided_character(table, table.player)
    first = await exported(table, table.player)
    document = json.loads(first)
    assert document["format"] == "fate-table/character"
    assert document["character"]["mantle"] == "Clued-In Mortal"

    made = await table.slash("campaign create", user=table.gm, name="Second Table", bind=False)
    assert made.ephemeral and "Second Table" in made.text
    bound = await table.slash(
        "campaign bind", user=table.gm, channel=table.other_channel, name="Second Table"
    )
    assert "Second Table" in bound.text
    upload = table.fake.add_attachment("harriet.json", first)
    back = await table.slash(
        "character import", user=table.player, channel=table.other_channel, file=upload
    )
    assert "Imported **Harriet Blackwood** from a Fate Table file" in back.text
    second = await exported(table, table.player, channel=table.other_channel)
    assert json.loads(second) == document


async def test_player_cannot_edit_or_export_someone_elses_sheet(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    before = await exported(table, table.player)
    tries: list[tuple[str, dict[str, Any]]] = [
        ("character edit aspect", {"kind": "trouble", "text": "Hates Bob"}),
        ("character edit skill", {"skill": "Fight", "rating": "1"}),
        ("character edit refresh", {"value": 5}),
        ("character edit box", {"track": "physical", "box": 1}),
        ("character export", {}),
        ("character delete", {}),
        ("mantle apply", {"name": "Medic"}),
    ]
    for command, options in tries:
        reply = await table.slash(command, user=table.player2, character="Ruth Kane", **options)
        assert reply.ephemeral, command
        assert "not your character" in reply.text, (command, reply.text)
    switched = await table.slash("character switch", user=table.player2, character="Ruth Kane")
    assert switched.ephemeral and "not your character" in switched.text
    assert await exported(table, table.player) == before

    # The GM may change any character of the campaign.
    done = await table.slash(
        "character edit box", user=table.gm, character="Ruth Kane", track="physical", box=2
    )
    assert done.ephemeral and "[1][x][1]" in done.text
    assert table.channel_messages() == []


async def test_bad_input_changes_nothing(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    before = await exported(table, table.player)
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("character edit skill", {"skill": "Swordplay", "rating": "+2"}, "no skill called"),
        ("character edit skill", {"skill": "Fight", "rating": "awesome"}, "not a rating"),
        ("character edit skill", {"skill": "Lore", "rating": "+6"}, "no rank may hold more"),
        ("character edit aspect", {"kind": "free", "text": "A Sixth Aspect"}, "already has 2 free"),
        ("character edit refresh", {"value": 0}, "never drop below 1"),
        ("character edit aspect", {"kind": "trouble", "text": "x" * 150}, "keep it to 100"),
        ("character edit stunt", {"name": "Big", "text": "y" * 450}, "keep it to 400"),
        ("character edit box", {"track": "physical", "box": 9}, "there is no box 9"),
        ("character edit consequence", {"slot": "mild", "aspect": ""}, "cannot be empty"),
        ("character sheet", {"character": "Nobody"}, "No character called"),
        ("character edit aspect", {"kind": "trouble", "text": "Grudges", "slot": 1}, "`slot` is"),
        (
            "character edit consequence",
            {"slot": "mild", "recovering": True, "clear": True},
            "not both",
        ),
        (
            "character edit condition",
            {"condition": "x", "recover": True, "clear": True},
            "not both",
        ),
        ("character milestone major", {"recover_slot": "moderate"}, "Give `recover_as`"),
    ]
    for command, options, expected in cases:
        reply = await table.slash(command, user=table.player, **options)
        assert reply.ephemeral, command
        assert expected in reply.text, (command, reply.text)
    assert await exported(table, table.player) == before
    assert table.channel_messages() == []


async def test_bad_import_files(table: Table) -> None:
    cases = [
        (b"{not json", "not valid JSON"),
        (json.dumps({"hello": "world"}).encode(), "neither a Fate Table character"),
        (json.dumps({"format": "fate-table/character", "version": 9}).encode(), "newer"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b" " * (300 * 1024), "limited to 256 KiB"),
    ]
    for data, expected in cases:
        upload = table.fake.add_attachment("bad.json", data)
        reply = await table.slash("character import", user=table.player, file=upload)
        assert reply.ephemeral and expected in reply.text, (expected, reply.text)
    listed = await table.slash("character list", user=table.player)
    assert "No characters yet" in listed.text


async def test_fari_import_reports_unmapped(table: Table) -> None:
    data = (FIXTURES / "fari_current.json").read_bytes()
    upload = table.fake.add_attachment("rourke.json", data)
    reply = await table.slash("character import", user=table.player, file=upload)
    assert reply.ephemeral and "from a Fari file" in reply.text
    assert "Could not be mapped" in reply.text
    sheet = await table.slash("character sheet", user=table.player)
    assert "Michael Rourke" in sheet.text


async def test_guided_flow_resumes_after_restart(table: Table) -> None:
    user = table.player
    start = await table.slash("character create", user=user)
    nomantle = await table.select(start, "Mantle", ["none"], user=user)
    opened = modal_within_limits(await table.click(nomantle, "Write aspects", user=user))
    aspects = await table.submit(
        opened, {"high_concept": "Streetwise Medium", "trouble": "Ghosts Never Leave"}, user=user
    )
    assert "3. Skills" in aspects.text

    # A pyramid violation is refused (on the flow's own message) and the draft stays put.
    opened = modal_within_limits(await table.click(aspects, "Rate skills", user=user))
    wrong = await table.submit(opened, {**SKILLS, "good": "Will"}, user=user)
    assert wrong.private and "two Good (+3) skills; you have 1" in wrong.text
    assert "3. Skills" in wrong.text

    await table.restart()
    resumed = await table.slash("character create", user=user)
    assert "Picking up your saved draft" in resumed.text and "3. Skills" in resumed.text
    assert "Streetwise Medium" in resumed.text
    # The buttons of the message from before the restart still work (nothing moved since).
    opened = modal_within_limits(await table.click(wrong, "Fix what I typed", user=user))
    rated = await table.submit(opened, SKILLS, user=user)
    assert "4. Name" in rated.text

    # Start over clears the draft.
    restarted = await table.click(rated, "Start over", user=user)
    assert "1. Mantle" in restarted.text and "Streetwise Medium" not in restarted.text
    # Someone else's draft buttons refuse.
    other = await table.click(rated, "Start over", user=table.player2)
    assert other.ephemeral and "someone else's" in other.text


async def test_step_form_opened_before_restart_is_still_read(table: Table) -> None:
    user = table.player
    start = await table.slash("character create", user=user)
    nomantle = await table.select(start, "Mantle", ["none"], user=user)
    opened = modal_within_limits(await table.click(nomantle, "Write aspects", user=user))
    await table.restart()
    answered = await table.submit(
        opened, {"high_concept": "Streetwise Medium", "trouble": "Ghosts Never Leave"}, user=user
    )
    assert answered.private and "3. Skills" in answered.text, answered.text
    assert "Streetwise Medium" in answered.text and "open it again" not in answered.text
    # The draft really advanced: a fresh /character create resumes at the skills step.
    resumed = await table.slash("character create", user=user)
    assert "3. Skills" in resumed.text and "Ghosts Never Leave" in resumed.text

    # A rebuilt form still checks its input and its owner, and changes nothing when refused.
    opened = modal_within_limits(await table.click(answered, "Rate skills", user=user))
    await table.restart()
    wrong = await table.submit(opened, {**SKILLS, "good": "Will"}, user=user)
    assert wrong.private and "two Good (+3) skills; you have 1" in wrong.text
    stranger = await table.submit(opened, SKILLS, user=table.player2)
    assert stranger.ephemeral and "someone else's" in stranger.text
    rated = await table.submit(opened, SKILLS, user=user)
    assert "4. Name" in rated.text

    # A form for a draft that was started over since says where the draft is now.
    opened = modal_within_limits(await table.click(rated, "Name the character", user=user))
    await table.restart()
    await table.click(rated, "Start over", user=user)
    late = await table.submit(opened, {"name": "Mara Quill"}, user=user)
    assert late.ephemeral and "Finish the mantle step first" in late.text


async def test_guided_flow_refuses_too_many_stunts_and_sixth_aspect(table: Table) -> None:
    user = table.player
    start = await table.slash("character create", user=user)
    nomantle = await table.select(start, "Mantle", ["none"], user=user)
    opened = modal_within_limits(await table.click(nomantle, "Write aspects", user=user))
    too_long = await table.submit(
        opened, {"high_concept": "Same Words", "trouble": "same words"}, user=user
    )
    assert too_long.private and "Two of the aspects are the same" in too_long.text


async def test_switch_list_and_delete(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    await imported(table, table.player, "Dana Voss")
    listed = await table.slash("character list", user=table.player)
    assert "Dana Voss *(active, yours)*" in listed.text and "Ruth Kane *(yours)*" in listed.text
    switched = await table.slash("character switch", user=table.player, character="Ruth Kane")
    assert "in this channel" in switched.text
    sheet = await table.slash("character sheet", user=table.player)
    assert "Ruth Kane" in sheet.text
    elsewhere = await table.slash("character sheet", user=table.player, channel=table.other_channel)
    assert "Dana Voss" in elsewhere.text
    shared = await table.slash("character sheet", user=table.player, share=True)
    assert not shared.ephemeral and "Ruth Kane" in shared.text
    assert len(table.channel_messages()) == 1
    gone = await table.slash("character delete", user=table.player, character="Ruth Kane")
    assert "Deleted **Ruth Kane**" in gone.text
    sheet = await table.slash("character sheet", user=table.player)
    assert "Dana Voss" in sheet.text


async def test_a_new_character_never_shows_the_sheet_of_one_deleted_before_it(
    table: Table,
) -> None:
    """SQLite gives a deleted newest row's id to the next one, at version 1 again: the sheet
    parsed from the deleted character must not be served for the new one."""
    await imported(table, table.player, "Ruth Kane")
    first = await table.slash("character sheet", user=table.player)  # parsed and kept
    assert "Ruth Kane" in first.text
    gone = await table.slash("character delete", user=table.player, character="Ruth Kane")
    assert "Deleted **Ruth Kane**" in gone.text
    bob = table.fake.add_member(table.guild_id, "bob")
    await imported(table, bob, "Dana Voss")
    sheet = await table.slash("character sheet", user=bob)
    assert "Dana Voss" in sheet.text and "Ruth Kane" not in sheet.text


async def test_autocomplete_characters_skills_aspects_stunts_mantles(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    names = await table.autocomplete("character sheet", "character", user=table.player)
    assert [c["value"] for c in names] == ["Ruth Kane"]
    skills = await table.autocomplete(
        "character edit skill", "skill", user=table.player, skill="ath"
    )
    assert [c["value"] for c in skills][0] == "Athletics"
    aspects = await table.autocomplete(
        "character edit aspect", "text", user=table.player, kind="free", text="scar"
    )
    assert [c["value"] for c in aspects] == ["Scar Across the Knuckles"]
    await table.slash(
        "character edit stunt", user=table.player, name="Brawler", text="+2 to Fight."
    )
    stunts = await table.autocomplete("character edit stunt", "name", user=table.player)
    assert [c["value"] for c in stunts] == ["Brawler"]
    boxes = await table.autocomplete("character edit box", "track", user=table.player)
    assert {c["value"] for c in boxes} == {"physical", "mental"}
    mantles = await table.autocomplete("mantle show", "name", user=table.player, name="red")
    assert "Red Court Vampire" in [c["value"] for c in mantles]


async def test_npcs_are_gm_only_and_private(table: Table) -> None:
    refused = await table.slash(
        "character npc",
        user=table.player,
        kind="minor",
        name="Thug",
        aspects="Hired Muscle",
        skills="Fight +2",
    )
    assert refused.ephemeral and "Only the GM" in refused.text
    made = await table.slash(
        "character npc",
        user=table.gm,
        kind="minor",
        name="Thug",
        aspects="Hired Muscle",
        skills="Fight +2",
        stress=2,
    )
    assert made.ephemeral and "NPC **Thug**" in made.text and "Stress** [1][1]" in made.text
    too_big = await table.slash(
        "character npc",
        user=table.gm,
        kind="minor",
        name="Boss",
        aspects="A | B | C",
        skills="Fight +2",
    )
    assert too_big.ephemeral and "one or two aspects" in too_big.text
    private = await table.slash("character sheet", user=table.gm, character="Thug", share=True)
    assert private.ephemeral and "NPC sheets stay private" in private.text
    peek = await table.slash("character sheet", user=table.player, character="Thug")
    assert peek.ephemeral and "No character called 'Thug'" in peek.text
    for command, options in (
        ("character edit notes", {"text": "mine now"}),
        ("character export", {}),
        ("character switch", {}),
        ("character delete", {}),
        ("character milestone log", {}),
    ):
        hidden = await table.slash(command, user=table.player, character="Thug", **options)
        assert hidden.ephemeral and "No character called 'Thug'" in hidden.text, command
    names = await table.autocomplete("character sheet", "character", user=table.player)
    assert names == []
    # Naming the NPC by hand does not reveal its aspects or tracks through suggestions.
    leaked = await table.autocomplete(
        "character edit aspect", "text", user=table.player, character="Thug", kind="free"
    )
    assert leaked == []
    leaked = await table.autocomplete(
        "character edit box", "track", user=table.player, character="Thug"
    )
    assert leaked == []
    seen = await table.autocomplete(
        "character edit aspect", "text", user=table.gm, character="Thug", kind="free"
    )
    assert [c["value"] for c in seen] == ["Hired Muscle"]
    boss = await table.slash(
        "character npc",
        user=table.gm,
        kind="major",
        name="Marcone",
        aspects="Gentleman Crime Lord | Protects Children",
        skills="Resources +5, Will +4",
    )
    assert "major NPC" in boss.text and "Superb (+5)" in boss.text


async def test_milestones(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    swap = {"change": "swap_skills", "old": "Fight", "new": "Shoot"}
    unearned = await table.slash("character milestone minor", user=table.player, **swap)
    assert unearned.ephemeral and "Ruth Kane has no minor milestone to spend" in unearned.text
    assert "`/session end`" in unearned.text and "`/session award`" in unearned.text
    await table.slash("session start", user=table.gm)
    ended = await table.slash("session end", user=table.gm)
    assert "Ruth Kane (minor)" in ended.text and "/character milestone minor" in ended.text
    minor = await table.slash("character milestone minor", user=table.player, **swap)
    assert not minor.ephemeral and "Swapped Fight" in minor.text  # the table sees it
    spent = await table.slash("character milestone minor", user=table.player, **swap)
    assert spent.ephemeral and "no minor milestone to spend" in spent.text
    not_gm = await table.slash("session award", user=table.player, character="Ruth Kane")
    assert not_gm.ephemeral and "Only the GM" in not_gm.text
    for kind in ("minor", "major", "major"):
        awarded = await table.slash(
            "session award", user=table.gm, character="Ruth Kane", kind=kind
        )
        assert not awarded.ephemeral and f"earns a {kind} milestone" in awarded.text
    hc = await table.slash(
        "character milestone minor",
        user=table.player,
        change="rewrite_aspect",
        old="Ex-Marine Bodyguard",
        new="Retired Bodyguard",
    )
    assert hc.ephemeral and "except the high concept" in hc.text
    extras = await table.slash(
        "character milestone major", user=table.player, raise_skill="Stealth", refresh=True
    )
    assert extras.ephemeral and "Only the GM grants" in extras.text
    nothing = await table.slash("character milestone major", user=table.player)
    assert nothing.ephemeral and "changes nothing" in nothing.text
    stray = await table.slash(
        "character milestone major", user=table.player, raise_skill="Stealth", old="Fight"
    )
    assert stray.ephemeral and "Pick the minor `change`" in stray.text
    half = await table.slash(
        "character milestone major", user=table.player, recover_as="Healing Ribs"
    )
    assert half.ephemeral and "Give `recover_slot`" in half.text
    column = await table.slash("character milestone major", user=table.player, raise_skill="Fight")
    assert column.ephemeral and "no rank may hold more" in column.text
    major = await table.slash(
        "character milestone major",
        user=table.gm,
        character="Ruth Kane",
        raise_skill="Lore",
        refresh=True,
    )
    assert "Raised Lore to Average (+1)" in major.text and "Refresh rises to 4" in major.text

    # The log shows both milestones, newest first; refused attempts left no entry.
    log = await table.slash("character milestone log", user=table.player)
    assert log.ephemeral and "Milestones — Ruth Kane" in log.text
    assert log.text.index("**Major**") < log.text.index("**Minor**")
    assert "Raised Lore to Average (+1)" in log.text and "Swapped Fight" in log.text
    assert log.text.count("**Minor**") == 1
    others = await table.slash("character milestone log", user=table.player2, character="Ruth Kane")
    assert others.ephemeral and "Raised Lore" in others.text
    await imported(table, table.player2, "Sam Okafor")
    empty = await table.slash("character milestone log", user=table.player2)
    assert "No milestones yet" in empty.text


async def test_stunt_writer(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    opened = modal_within_limits(
        await table.slash("stunt write", user=table.player, template="bonus")
    )
    assert opened.modal is not None
    bad = await table.submit(
        opened,
        {
            "name": "Eagle Eye",
            "because": "never miss a detail",
            "skill": "Perception",
            "action": "overcome",
            "circumstance": "searching a room",
        },
        user=table.player,
    )
    assert bad.ephemeral and "no skill called 'Perception'" in bad.text
    good = await table.submit(
        opened,
        {
            "name": "Eagle Eye",
            "because": "never miss a detail",
            "skill": "Notice",
            "action": "overcome",
            "circumstance": "searching a room",
        },
        user=table.player,
    )
    assert good.ephemeral
    assert "Because I never miss a detail, I get +2 when I use Notice to overcome" in good.text
    rule = modal_within_limits(await table.slash("stunt write", user=table.player, template="rule"))
    done = await table.submit(
        rule,
        {
            "name": "First In",
            "because": "am always ready",
            "feat": "act first in a fight",
            "limitation": "when I am unhurt",
        },
        user=table.player,
    )
    assert "I can act first in a fight, but only when I am unhurt." in done.text
    sheet = await table.slash("character sheet", user=table.player, full=True)
    assert "Eagle Eye" in sheet.text and "First In" in sheet.text


async def test_campaign_settings_are_gm_only(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("campaign create", {"name": "Mine"}),
        ("campaign bind", {"name": "Main campaign"}),
    ]
    for command, options in attempts:
        refused = await table.slash(command, user=table.player, **options)
        assert refused.ephemeral and "Only the GM" in refused.text
    shown = await table.slash("campaign settings", user=table.player)
    assert shown.ephemeral and "condensed" in shown.text and "Athletics" in shown.text
    refused = await table.slash("campaign settings", user=table.player, stress="escalating")
    assert refused.ephemeral and "Only the GM" in refused.text
    changed = await table.slash(
        "campaign settings",
        user=table.gm,
        stress="escalating",
        skills="Fists, Guns, Talk, Run",
        gm_channel=table.other_channel,
    )
    assert "Settings saved" in changed.text and "escalating" in changed.text
    assert "1 sheet now uses the new stress boxes" in changed.text
    sheet = await table.slash("character sheet", user=table.player)
    assert "**Physical stress** [1][2][3][4]" in sheet.text
    assert "Fists, Guns, Talk, Run" in changed.text
    listed = await table.slash("campaign list", user=table.player)
    assert "Main campaign" in listed.text and "escalating stress" in listed.text
    dupes = await table.slash("campaign settings", user=table.gm, skills="Run, run")
    assert dupes.ephemeral and "listed twice" in dupes.text
    both = await table.slash(
        "campaign settings", user=table.gm, gm_channel=table.other_channel, no_gm_channel=True
    )
    assert both.ephemeral and "not both" in both.text
    start = await table.slash("character create", user=table.player)
    assert start.ephemeral
    # Our own files are checked against the campaign's skill list, like Fari files.
    upload = table.fake.add_attachment("dana.json", plain_sheet("Dana Voss"))
    moved = await table.slash("character import", user=table.player2, file=upload)
    assert moved.ephemeral and "Imported **Dana Voss**" in moved.text
    assert "Skill Fight (Great (+4)) is not on the campaign's skill list" in moved.text
    dana = await table.slash("character sheet", user=table.player2, full=True)
    assert "Fight" not in dana.text


async def test_finish_twice_makes_one_character(table: Table) -> None:
    ready = await guided_character(table, table.player, finish=False)
    assert ready.message is not None
    before = json.loads(json.dumps(ready.message))  # the message as a second click sees it
    done = await table.click(ready, "Finish", user=table.player)
    assert "is ready" in done.text
    again = await table.click(before, "Finish", user=table.player)
    assert again.ephemeral and "finished" in again.text
    names = await table.autocomplete("character sheet", "character", user=table.player)
    assert [c["value"] for c in names] == ["Harriet Blackwood"]
    fresh = await table.slash("character create", user=table.player)
    assert "1. Mantle" in fresh.text and "Picking up" not in fresh.text


async def test_two_creates_at_once_share_one_draft(table: Table) -> None:
    first, second = await asyncio.gather(
        table.slash("character create", user=table.player),
        table.slash("character create", user=table.player),
    )
    assert first.ephemeral and second.ephemeral
    assert "1. Mantle" in first.text and "1. Mantle" in second.text
    ids = {c["custom_id"].split(":")[1] for r in (first, second) for c in components(r)}
    assert len(ids) == 1, ids


def components(reply: Reply) -> list[dict[str, Any]]:
    rows = (reply.message or {}).get("components") or []
    return [c for row in rows for c in row.get("components", [])]


async def test_finish_with_a_taken_name_offers_a_new_one(table: Table) -> None:
    await imported(table, table.player2, "Harriet Blackwood")
    ready = await guided_character(table, table.player, finish=False)
    taken = await table.click(ready, "Finish", user=table.player)
    # Refused on the flow's message, which now waits on its last step.
    assert taken.private and "already a character called 'Harriet Blackwood'" in taken.text
    assert "Ready" in taken.text
    assert "Change name" in taken.text and "Change name" in ready.labels()
    opened = modal_within_limits(await table.click(ready, "Change name", user=table.player))
    renamed = await table.submit(opened, {"name": "Harriet Ashdown"}, user=table.player)
    assert "Harriet Ashdown" in renamed.text and "Finish" in renamed.labels()
    done = await table.click(renamed, "Finish", user=table.player)
    assert "**Harriet Ashdown** is ready" in done.text


async def test_every_option_is_described(table: Table) -> None:
    def walk(options: list[dict[str, Any]], path: str) -> list[str]:
        missing = []
        for option in options:
            where = f"{path} {option['name']}"
            if option["type"] in (1, 2):
                missing += walk(option.get("options") or [], where)
            elif option.get("description", "…") in ("…", "", "..."):
                missing.append(where)
        return missing

    ours = {"campaign", "character", "mantle", "stunt"}
    commands = [c for c in table.fake.global_commands if c["name"] in ours]
    assert {c["name"] for c in commands} == ours
    missing = [m for c in commands for m in walk(c.get("options") or [], c["name"])]
    assert missing == []


def test_persistent_modal_custom_ids_are_checked() -> None:
    import pytest

    from cogs.character_creation import DraftModal
    from cogs.common.modals import PersistentModal, register_modals

    assert DraftModal.__template__ is not None
    assert DraftModal.__template__.fullmatch("cdraftm:12:skills")
    assert not DraftModal.__template__.fullmatch("cdraftm:x:skills")

    class Untemplated(PersistentModal):
        """A modal class that forgot its template."""

    class Holder:
        """Stands in for the bot (the registry only keys on it)."""

    with pytest.raises(ValueError, match="does not match"):
        Untemplated(title="t", custom_id="anything")
    with pytest.raises(ValueError, match="no template"):
        register_modals(Holder(), Untemplated)  # type: ignore[arg-type]


async def test_setting_fate_points_is_the_gms_and_goes_through_the_ledger(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    refused = await table.slash("character edit fate-points", user=table.player, value=9)
    assert refused.ephemeral and "Only the GM" in refused.text

    done = await table.slash(
        "character edit fate-points", user=table.gm, value=5, character="Ruth Kane"
    )
    assert done.ephemeral and "5 fate points" in done.text
    log = await table.slash("fp log", user=table.gm, character="Ruth Kane")
    assert "set with /character edit fate-points" in log.text
    preview = await table.slash("fp undo", user=table.gm)
    assert preview.ephemeral and "3 → 5" not in preview.text and "5 → 3" in preview.text
    undone = await table.click(preview, "Confirm undo", user=table.gm)
    assert "Undone" in undone.text and "now has 3" in undone.text


async def test_mantle_entry_autocomplete_follows_adds_and_removes(table: Table) -> None:
    async def suggested() -> list[str]:
        choices = await table.autocomplete(
            "mantle remove", "entry", user=table.gm, mantle="Monster Hunter", entry=""
        )
        return [c["value"] if isinstance(c, dict) else c.value for c in choices]

    assert await suggested() == []
    await table.slash(
        "mantle condition", user=table.gm, mantle="Monster Hunter", name="In Pursuit", kind="sticky"
    )
    assert await suggested() == ["In Pursuit"]  # the remembered empty list was dropped
    removed = await table.slash(
        "mantle remove", user=table.gm, mantle="Monster Hunter", entry="In Pursuit"
    )
    assert removed.ephemeral and "Removed" in removed.text
    assert await suggested() == []
    unknown = await table.autocomplete(
        "mantle remove", "entry", user=table.gm, mantle="Not A Mantle", entry=""
    )
    assert unknown == []


async def test_campaign_and_character_autocomplete_follow_create_and_bind(table: Table) -> None:
    def values(choices: list[Any]) -> list[str]:
        return [c["value"] if isinstance(c, dict) else c.value for c in choices]

    await imported(table, table.player, "Ruth Kane")
    before = await table.autocomplete("campaign bind", "name", user=table.gm, name="")
    assert "Second Table" not in values(before)
    here = await table.autocomplete("character sheet", "character", user=table.player)
    assert values(here) == ["Ruth Kane"]
    await table.slash("campaign create", user=table.gm, name="Second Table")  # binds here
    after = await table.autocomplete("campaign bind", "name", user=table.gm, name="")
    assert "Second Table" in values(after)  # the remembered list was dropped
    # This channel now plays the new, empty campaign: no stale suggestion from the old one.
    assert await table.autocomplete("character sheet", "character", user=table.player) == []


async def test_sheet_view_and_fate_points_are_one_raw_unit_each(table: Table) -> None:
    """`/character sheet` is one raw read statement and `/character edit fate-points` one raw
    transaction of three (the target, the versioned sheet save, the ledger entry); neither
    goes through the ORM, and a sheet is parsed once per version for the process."""
    from sqlalchemy import event

    await imported(table, table.player, "Ruth Kane")
    first = await table.slash("character sheet", user=table.player)
    assert "Ruth Kane" in first.text
    assert table.bot is not None
    db: Any = table.bot.db  # type: ignore[attr-defined]
    orm: list[str] = []
    raw: list[str] = []

    def seen(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        orm.append(sql.split()[0].upper())

    engines = {db.engine.sync_engine, db._read_engine.sync_engine}
    for engine in engines:
        event.listen(engine, "before_cursor_execute", seen)
    db.raw_trace = lambda sql: raw.append(sql.split()[0].upper())
    try:
        hits = db.parsed.hits
        viewed = await table.slash("character sheet", user=table.player)
        assert "Ruth Kane" in viewed.text and "Fate points" in viewed.text
        assert raw == ["SELECT", "COMMIT"] and db.parsed.hits >= hits + 2, raw
        raw.clear()
        done = await table.slash(
            "character edit fate-points", user=table.gm, value=7, character="ruth kane"
        )
        assert "**Ruth Kane**: 7 fate points" in done.text
        assert raw == ["SELECT", "UPDATE", "INSERT", "COMMIT"], raw
        misses = db.parsed.misses
        after = await table.slash("character sheet", user=table.player)
        assert "Ruth Kane" in after.text
        assert db.parsed.misses == misses  # the written sheet was kept: no parse again
        assert orm == [], orm
    finally:
        db.raw_trace = None
        for engine in engines:
            event.remove(engine, "before_cursor_execute", seen)
    log = await table.slash("fp log", user=table.gm, character="Ruth Kane")
    assert "set with /character edit fate-points" in log.text and "7" in log.text
    undone = await table.click(
        await table.slash("fp undo", user=table.gm), "Confirm undo", user=table.gm
    )
    assert "Undone" in undone.text
    again = await table.slash("character sheet", user=table.player)
    assert "Ruth Kane" in again.text
    wrong = await table.slash("character sheet", user=table.player, character="Nobody Here")
    assert "No character called 'Nobody Here'" in wrong.text
