"""A custom id is user input: forged clicks from another server (or channel) change nothing here.

Server A (the harness's table) plays a roll, a hidden roll, a conflict, a contest, a challenge,
a game, a compel, a scene, a draft and a ledger. From a rival server, whose admin is a GM there,
a modified client sends every kind of custom id the bot declares (bot/ui/custom_ids.FORMATS)
with A's real row ids. Each one is refused with the very sentence a row that does not exist
gets, and nothing in A's database or channels changes. A custom id format with no case here
fails the test, so a new kind of button cannot skip the check.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import text
from sqlmodel import SQLModel, col, select

from bot.db.models.campaigns import Campaign, CharacterRow
from bot.db.models.conflicts import EncounterRow
from bot.db.models.drafts import CharacterDraftRow
from bot.db.models.forms import FormAnswerRow
from bot.db.models.games import GameRow
from bot.db.models.rolls import RollRow
from bot.db.models.scenes import CompelOfferRow
from bot.fate.rolls import InvokeMode
from bot.testing.fake_discord import FakeDiscord
from bot.testing.harness import Reply, Table
from bot.ui import custom_ids as ids
from bot.ui.conflicts import TrackerAction
from tests.conftest import make_settings
from tests.e2e.test_conflicts import make_characters

MISSING = 987_654_321  # a row id (and channel id) that exists nowhere


@dataclass
class Rows:
    """Server A's rows that buttons name."""

    roll: int
    roll_version: int
    hidden_roll: int
    encounters: dict[str, tuple[int, int]]  # kind -> (id, version)
    game: int
    game_version: int
    compel: int
    campaign: int
    draft: int
    draft_version: int
    character: int
    scene_channel: int
    form_answer: int


@pytest.fixture
async def world(database_url: str) -> AsyncIterator[tuple[Table, Rows]]:
    from bot.client import create_bot

    settings = make_settings(database_url)

    async def factory():  # type: ignore[no-untyped-def]
        return await create_bot(settings, guild_ready_timeout=0.05)

    fake = FakeDiscord()
    await fake.start()
    fake.redirect_discord_py()
    table = Table(fake, factory)
    table.add_rival()
    channels = {kind: fake.add_channel(table.guild_id, kind) for kind in ("contest", "challenge")}
    channels["game"] = fake.add_channel(table.guild_id, "games")
    await table.start_bot()
    try:
        yield table, await play_in_server_a(table, channels)
    finally:
        await table.close()


async def play_in_server_a(table: Table, channels: dict[str, int]) -> Rows:
    gm = table.gm
    await make_characters(table)
    started = await table.slash("scene start", user=gm, aspects="Pouring Rain", zones="Street")
    assert not started.ephemeral, started.text
    await table.slash("aspect add", user=gm, text="Secret Cult", hidden=True)
    assert not (await table.slash("roll", user=table.player, skill="Athletics")).ephemeral
    assert (await table.slash("roll", user=table.player2, skill="Lore", hidden=True)).ephemeral
    fight = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Ghoul"
    )
    assert not fight.ephemeral, fight.text
    race = await table.slash(
        "contest start",
        user=gm,
        channel=channels["contest"],
        side_a="Charles",
        side_b="Ghoul",
        intent_a="Reach the car",
        intent_b="Catch him",
    )
    assert not race.ephemeral, race.text
    tasks = await table.slash(
        "challenge start", user=gm, channel=channels["challenge"], tasks="Lore:Fair, Shoot:Good"
    )
    assert not tasks.ephemeral, tasks.text
    lobby = await table.slash("game new", user=table.player, channel=channels["game"], game="dfccg")
    assert not lobby.ephemeral, lobby.text
    compel = await table.slash(
        "compel offer",
        user=gm,
        target="Molly",
        aspect="Wizard's apprentice",
        complication="The wards need you now",
    )
    assert not compel.ephemeral, compel.text
    assert (await table.slash("character create", user=table.player3)).ephemeral
    writer = await table.slash("stunt write", user=table.player, template="rule")
    refused = await table.submit(
        writer,
        {"name": "A Secret Stunt Name", "because": "x", "feat": "", "limitation": "z"},
        user=table.player,
    )
    assert "Fix what I typed" in refused.labels(), refused.text  # its answers are kept
    return await rows_of(table)


async def rows_of(table: Table) -> Rows:
    assert table.bot is not None
    db: Any = table.bot.db  # type: ignore[attr-defined]
    async with db.read() as s:
        rolls = (await s.exec(select(RollRow).order_by(col(RollRow.id)))).all()
        roll = next(r for r in rolls if not r.hidden)
        hidden = next(r for r in rolls if r.hidden)
        encounters = {e.kind: (e.id, e.version) for e in (await s.exec(select(EncounterRow))).all()}
        game = (await s.exec(select(GameRow))).one()
        compel = (await s.exec(select(CompelOfferRow))).one()
        campaign = (await s.exec(select(Campaign))).one()
        draft = (await s.exec(select(CharacterDraftRow))).one()
        answer = (await s.exec(select(FormAnswerRow))).one()
        charles = (await s.exec(select(CharacterRow).where(CharacterRow.name == "Charles"))).one()
    assert set(encounters) == {"conflict", "contest", "challenge"}
    return Rows(
        roll.id,
        roll.version,
        hidden.id,
        encounters,
        game.id,
        game.version,
        compel.id,
        campaign.id,
        draft.id,
        draft.version,
        charles.id,
        table.channel,
        answer.id or 0,
    )


# ------------------------------------------------------------------ the forged ids, per format
@dataclass(frozen=True)
class Forgery:
    """A custom id built for a row id (`row` is A's real one or MISSING) and what is sent."""

    build: Callable[[Rows, int | None], str]
    values: list[str] | None = None  # a select's picked values
    form: dict[str, str] | None = None  # a form's answers
    scoped: bool = True  # False: the custom id names no row (help pages, rules topics)


def _tracker_buttons(kind: str) -> list[Forgery]:
    prefix = ids.TRACKER_KINDS[kind]
    return [
        Forgery(
            lambda r, m, a=action: ids.tracker_button_id(
                prefix, m or r.encounters[kind][0], r.encounters[kind][1], a.value
            )
        )
        for action in TrackerAction
    ]


def _tracker_selects(kind: str) -> list[Forgery]:
    prefix = ids.TRACKER_KINDS[kind]
    return [
        Forgery(
            lambda r, m, a=action: ids.tracker_select_id(
                prefix, m or r.encounters[kind][0], r.encounters[kind][1], a.value, "Charles"
            ),
            values=["0"],
        )
        for action in TrackerAction
    ]


FORGERIES: dict[str, list[Forgery]] = {
    ids.ROLL_BUTTON_TEMPLATE: [
        Forgery(lambda r, m, a=act: ids.roll_button_id(m or r.roll, a)) for act in ids.ROLL_ACTS
    ]
    + [Forgery(lambda r, m: ids.roll_button_id(m or r.hidden_roll, "close"))],
    ids.STUNT_SELECT_TEMPLATE: [
        Forgery(lambda r, m: ids.stunt_select_id(m or r.roll), values=["0"])
    ],
    ids.ASPECT_SELECT_TEMPLATE: [
        Forgery(
            lambda r, m: ids.aspect_select_id(m or r.roll, r.roll_version, InvokeMode.BONUS, True),
            values=["s:Pouring Rain"],
        )
    ],
    ids.PAYMENT_SELECT_TEMPLATE: [
        Forgery(
            lambda r, m: ids.payment_select_id(
                m or r.hidden_roll, 1, InvokeMode.BONUS, False, "s:1"
            ),
            values=["fp"],
        )
    ],
    ids.DEFEND_SELECT_TEMPLATE: [
        Forgery(lambda r, m: ids.defend_select_id(m or r.roll), values=["Athletics"])
    ],
    ids.SCALE_SELECT_TEMPLATE: [
        Forgery(lambda r, m: ids.scale_select_id(m or r.roll, r.roll_version, 1), values=["2"])
    ],
    ids.RULES_SHARE_TEMPLATE: [Forgery(lambda r, m: ids.rules_share_id("ladder"), scoped=False)],
    ids.TRACKER_BUTTON_TEMPLATE: [f for kind in ids.TRACKER_KINDS for f in _tracker_buttons(kind)],
    ids.TRACKER_SELECT_TEMPLATE: [f for kind in ids.TRACKER_KINDS for f in _tracker_selects(kind)],
    ids.DRAFT_MODAL_TEMPLATE: [
        Forgery(
            lambda r, m: ids.draft_modal_id(m or r.draft, "aspects"),
            form={"high_concept": "Stolen", "trouble": "Forged", "free1": "", "free2": ""},
        )
    ],
    ids.DRAFT_BUTTON_TEMPLATE: [
        Forgery(lambda r, m, a=action: ids.draft_button_id(m or r.draft, a))
        for action in ("finish", "restart", "aspects", "nomantle")
    ]
    + [
        Forgery(lambda r, m, a=action: ids.draft_button_id(m or r.draft, a, r.draft_version))
        for action in ("finish", "restart", "aspects", "nomantle")
    ],
    ids.DRAFT_SELECT_TEMPLATE: [
        Forgery(lambda r, m: ids.draft_select_id(m or r.draft, "group"), values=["none"]),
        Forgery(
            lambda r, m: ids.draft_select_id(m or r.draft, "group", r.draft_version),
            values=["true_fae"],
        ),
    ],
    ids.MANTLE_STUNT_SELECT_TEMPLATE: [
        Forgery(lambda r, m: ids.mantle_stunt_select_id(m or r.draft, "free"), values=["x"]),
        Forgery(
            lambda r, m: ids.mantle_stunt_select_id(m or r.draft, "free", r.draft_version),
            values=["x"],
        ),
    ],
    ids.FORM_FIX_TEMPLATE: [Forgery(lambda r, m: ids.form_fix_id(m or r.form_answer))],
    ids.STUNT_WRITER_TEMPLATE: [
        Forgery(
            lambda r, m: ids.stunt_writer_id("rule", m or r.character, 1),
            form={"name": "Stolen", "because": "x", "feat": "y", "limitation": "z"},
        )
    ],
    ids.LOBBY_BUTTON_TEMPLATE: [
        Forgery(lambda r, m, op=op: ids.lobby_button_id(m or r.game, op))
        for op in ("join", "leave", "ai", "unai", "start")
    ],
    ids.LOBBY_OPTION_TEMPLATE: [
        Forgery(lambda r, m: ids.lobby_option_id(m or r.game, "difficulty"), values=["merlin"])
    ],
    ids.MORE_OPTIONS_TEMPLATE: [
        Forgery(lambda r, m: ids.more_options_id(m or r.game), values=["difficulty"])
    ],
    ids.HAND_BUTTON_TEMPLATE: [
        Forgery(lambda r, m: ids.hand_button_id(m or r.game)),
        Forgery(lambda r, m: ids.hand_button_id(m or r.game, 0, "r")),
    ],
    ids.TEXTS_BUTTON_TEMPLATE: [
        Forgery(lambda r, m: ids.texts_button_id(m or r.game)),
        Forgery(lambda r, m: ids.texts_button_id(m or r.game, 1, "n")),
    ],
    ids.LOG_BUTTON_TEMPLATE: [
        Forgery(lambda r, m: ids.log_button_id(m or r.game)),
        Forgery(lambda r, m: ids.log_button_id(m or r.game, 1, "n")),
    ],
    ids.GAME_ACTION_TEMPLATE: [
        Forgery(lambda r, m: ids.game_action_id(m or r.game, r.game_version, "start"))
    ],
    ids.SCENE_BOARD_TEMPLATE: [Forgery(lambda r, m: ids.scene_board_id(m or r.scene_channel))],
    ids.XCARD_TEMPLATE: [Forgery(lambda r, m: ids.xcard_id(m or r.scene_channel))],
    ids.LEDGER_PAGE_TEMPLATE: [
        Forgery(lambda r, m, w=who: ids.ledger_page_id(m or r.campaign, 0, w, "n"))
        for who in ("a", "g")
    ],
    ids.UNDO_CONFIRM_TEMPLATE: [Forgery(lambda r, m: ids.undo_confirm_id(m or r.campaign, 1))],
    ids.COMPEL_BUTTON_TEMPLATE: [
        Forgery(lambda r, m, a=act: ids.compel_button_id(m or r.compel, a)) for act in "arw"
    ],
    ids.HELP_PAGE_TEMPLATE: [Forgery(lambda r, m: ids.help_page_id(1, "n"), scoped=False)],
}


async def send(table: Table, forgery: Forgery, custom_id: str, user: int, channel: int) -> Reply:
    if forgery.form is not None:
        return await table.forge_form(custom_id, forgery.form, user=user, channel=channel)
    return await table.forge(custom_id, user=user, channel=channel, values=forgery.values)


async def database_dump(table: Table) -> dict[str, list[str]]:
    assert table.bot is not None
    db: Any = table.bot.db  # type: ignore[attr-defined]
    dump: dict[str, list[str]] = {}
    async with db.read() as s:
        for model in SQLModel.metadata.sorted_tables:
            rows = (await s.exec(text(f'SELECT * FROM "{model.name}"'))).all()  # type: ignore[call-overload]
            dump[model.name] = sorted(repr(tuple(row)) for row in rows)
    return dump


def messages_of(table: Table, guild_id: int) -> str:
    """Every message in the server's channels, as Discord holds it (edits included)."""
    channels = {str(c) for c, p in table.fake.channels.items() if p["guild_id"] == str(guild_id)}
    found = {
        key: (m.get("content"), m.get("embeds"), m.get("components"), m.get("flags"))
        for key, m in table.fake.messages.items()
        if m["channel_id"] in channels
    }
    return json.dumps(found, sort_keys=True, default=str)


# ------------------------------------------------------------------ the tests
def test_every_custom_id_format_has_a_forgery() -> None:
    """A new kind of button must get a case here (and so the check) before it ships."""
    assert {f.template for f in ids.FORMATS} == set(FORGERIES)


async def test_forged_clicks_from_another_server_change_nothing_and_tell_nothing(
    world: tuple[Table, Rows],
) -> None:
    table, rows = world
    before_db, before_messages = await database_dump(table), messages_of(table, table.guild_id)
    problems: list[str] = []
    for forgeries in FORGERIES.values():
        for forgery in forgeries:
            custom_id = forgery.build(rows, None)
            reply = await send(table, forgery, custom_id, table.rival_gm, table.rival_channel)
            problems += await _refusal_problems(table, rows, forgery, custom_id, reply)
            if await database_dump(table) != before_db:
                problems.append(f"{custom_id}: changed server A's rows")
                before_db = await database_dump(table)
            if messages_of(table, table.guild_id) != before_messages:
                problems.append(f"{custom_id}: changed a message in server A")
                before_messages = messages_of(table, table.guild_id)
    assert not problems, "\n".join(problems)


async def _refusal_problems(
    table: Table, rows: Rows, forgery: Forgery, custom_id: str, reply: Reply
) -> list[str]:
    if not reply.answered or "incident" in reply.text:
        return [f"{custom_id}: {'no answer' if not reply.answered else reply.text}"]
    if not forgery.scoped:
        return []
    missing = await send(
        table, forgery, forgery.build(rows, MISSING), table.rival_gm, table.rival_channel
    )
    if not reply.ephemeral or reply.text != missing.text:
        return [f"{custom_id}: {reply.text[:80]!r} (a missing row: {missing.text[:80]!r})"]
    return []


async def test_a_roll_of_one_channel_is_not_played_from_another_channel(
    world: tuple[Table, Rows],
) -> None:
    table, rows = world
    before = await database_dump(table)
    closed = await table.forge(
        ids.roll_button_id(rows.roll, "close"), user=table.gm, channel=table.other_channel
    )
    assert closed.ephemeral and "no longer exists" in closed.text, closed.text
    board = await table.forge(
        ids.scene_board_id(rows.scene_channel), user=table.gm, channel=table.other_channel
    )
    assert board.ephemeral and "Secret Cult" not in board.text and "ended" in board.text
    assert await database_dump(table) == before
    # the same click where the roll lives works
    done = await table.forge(
        ids.roll_button_id(rows.roll, "close"), user=table.gm, channel=table.channel
    )
    assert "no longer exists" not in done.text and await database_dump(table) != before


async def test_ids_past_a_bigint_are_refused_with_a_sentence(world: tuple[Table, Rows]) -> None:
    table, rows = world
    for custom_id in (
        ids.roll_button_id(2**63, "close"),
        ids.tracker_button_id("cf", 2**64, 1, "atk"),
        ids.game_action_id(rows.game, 2**31, "start"),
        ids.compel_button_id(10**19, "a"),
    ):
        reply = await table.forge(custom_id, user=table.gm, channel=table.channel)
        assert reply.ephemeral and "incident" not in reply.text, (custom_id, reply.text)
        assert "expired" in reply.text, (custom_id, reply.text)
    too_big = await table.forge_form(
        ids.stunt_writer_id("rule", 2**63, 1), {"name": "x"}, user=table.gm, channel=table.channel
    )
    assert too_big.ephemeral and "incident" not in too_big.text, too_big.text


# ------------------------------------------------------------------ hidden rolls (defect 2)
async def _hidden_roll(table: Table) -> tuple[int, str]:
    await make_characters(table)
    secret = await table.slash(
        "roll", user=table.player, skill="Athletics", hidden=True, description="Sneak past"
    )
    assert secret.ephemeral
    rows = (await rows_of_rolls(table))[-1]
    return rows.id, rows.roll_json


async def rows_of_rolls(table: Table) -> list[RollRow]:
    assert table.bot is not None
    db: Any = table.bot.db  # type: ignore[attr-defined]
    async with db.read() as s:
        return list((await s.exec(select(RollRow).order_by(col(RollRow.id)))).all())


async def test_another_player_cannot_act_on_a_hidden_roll(table: Table) -> None:
    roll_id, stored = await _hidden_roll(table)
    for act, values in (("tw", None), ("inv", None), ("close", None), ("def", None)):
        reply = await table.forge(
            ids.roll_button_id(roll_id, act),
            user=table.player2,
            channel=table.channel,
            values=values,
        )
        assert reply.ephemeral and "only its roller and the GM" in reply.text, (act, reply.text)
    defend = await table.forge(
        ids.defend_select_id(roll_id), user=table.player2, channel=table.channel, values=["Shoot"]
    )
    assert defend.ephemeral and "only its roller and the GM" in defend.text, defend.text
    assert [r.roll_json for r in await rows_of_rolls(table)] == [stored]
    public = "\n".join(str(m) for m in table.channel_messages())
    assert "Sneak past" not in public and "Athletics" not in public


async def test_a_hidden_roll_is_never_drawn_on_a_public_message(table: Table) -> None:
    roll_id, _ = await _hidden_roll(table)
    # the roller's own click, sent from a public message (a modified client can)
    reply = await table.forge(
        ids.roll_button_id(roll_id, "close"), user=table.player, channel=table.channel
    )
    assert reply.ephemeral and "Sneak past" in reply.text
    public = "\n".join(str(m) for m in table.channel_messages())
    assert "Sneak past" not in public and "Athletics" not in public


# ------------------------------------------------------------------ NPCs in the ledger (defect 3)
async def test_npc_lines_of_the_ledger_are_for_the_gm_only(table: Table) -> None:
    await make_characters(table)
    given = await table.slash(
        "fp give", user=table.gm, character="Ghoul", amount=2, note="the cult pays it off"
    )
    assert "Ghoul" in given.text, given.text
    await table.slash("fp give", user=table.gm, character="Charles", note="a good idea")
    player = await table.slash("fp log", user=table.player)
    assert "Charles" in player.text
    assert "Ghoul" not in player.text and "cult" not in player.text, player.text
    gm = await table.slash("fp log", user=table.gm)
    assert "Ghoul" in gm.text and "cult" in gm.text
    npc = await table.slash("fp log", user=table.player, character="Ghoul")
    nobody = await table.slash("fp log", user=table.player, character="Ghost")
    assert npc.ephemeral and npc.text.replace("Ghoul", "Ghost") == nobody.text, npc.text
    gm_npc = await table.slash("fp log", user=table.gm, character="Ghoul")
    assert "cult" in gm_npc.text


# ------------------------------------------------------------------ hostile files (defect 9)
async def test_an_import_with_a_five_thousand_digit_number_gets_a_sentence(table: Table) -> None:
    huge = "9" * 5000
    upload = table.fake.add_attachment(
        "huge.json",
        (
            '{"format": "fate-table/character", "version": 1, "character": {"name": "X", '
            f'"fate_points": {huge}}}}}'
        ).encode(),
    )
    reply = await table.slash("character import", user=table.player, file=upload)
    assert reply.ephemeral and "incident" not in reply.text, reply.text
    assert "5000 digits" in reply.text


# ------------------------------------------------------------------ skills named like dice (10)
async def test_a_skill_named_like_dice_is_rolled_as_the_skill(table: Table) -> None:
    from bot.fate.sheet import new_character
    from bot.fate.skills import SkillList
    from bot.services.campaigns import insert_character_in, resolve_campaign_in, set_active_in

    names = ["Wildfire", "D8", "Athletics", "Lore"]
    changed = await table.slash("campaign settings", user=table.admin, skills=", ".join(names))
    assert "Wildfire" in changed.text, changed.text
    assert table.bot is not None
    sheet = new_character(
        "Ember", skills={"Wildfire": 3, "D8": 1}, skill_list=SkillList.from_names(names)
    )
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        record = await insert_character_in(s, campaign, table.player, sheet)
        await set_active_in(s, table.guild_id, table.player, record.id, None)
    fire = await table.slash("roll", user=table.player, skill="Wildfire")
    assert "Wildfire (+3)" in fire.text, fire.text
    d8 = await table.slash("roll", user=table.player, skill="D8")
    assert "D8 (+1)" in d8.text, d8.text
    dice = await table.slash("roll", user=table.player, skill="2d6+1")
    assert "2d6" in dice.text and "Ember rolls" not in dice.text, dice.text


# ------------------------------------------------------------------ a failed answer (defect 5)
@pytest.mark.parametrize(
    ("status", "code"), [(404, 10062), (500, 0), (400, 50035)], ids=["10062", "500", "50035"]
)
async def test_an_invoke_whose_answer_fails_still_shows_on_the_roll(
    table: Table, status: int, code: int
) -> None:
    from tests.e2e.test_rolls import harry, option_value, roll_message

    await harry(table)
    roll = await table.slash("roll", user=table.player, skill="Lore")
    picker = await table.click(roll, "Invoke +2", user=table.player)
    value = option_value(picker.message or {}, "Wizard Private Eye")
    table.fake.fail_next(
        "POST", r"/interactions/\d+/[^/]+/callback$", status=status, code=code, message="x"
    )
    # only a fate point can pay: picking the aspect invokes at once (no payment menu)
    await table.select(picker, "Pick an aspect", [value], user=table.player)
    shown = "\n".join(str(v) for v in (roll_message(table, roll).get("embeds") or [{}])[0].values())
    assert "Wizard Private Eye" in shown and "(fate point)" in shown, shown


# ------------------------------------------------------------------ a held lock (defect 6)
@pytest.fixture
async def short_deadline_table(database_url: str) -> AsyncIterator[Table]:
    """The bot with its production-like short unit deadline (the suite's default is long)."""
    from bot.client import create_bot

    settings = make_settings(database_url, db_unit_timeout_seconds=0.5)

    async def factory():  # type: ignore[no-untyped-def]
        return await create_bot(settings, guild_ready_timeout=0.05)

    t = await Table.open(factory)
    try:
        yield t
    finally:
        await t.close()


async def test_a_held_write_lock_gives_a_sentence_in_time_and_reads_go_on(
    short_deadline_table: Table,
) -> None:
    import asyncio
    import time

    table = short_deadline_table
    from tests.e2e.test_rolls import harry

    await harry(table)
    assert not (await table.slash("roll", user=table.player, skill="Lore")).ephemeral
    assert table.bot is not None
    db: Any = table.bot.db  # type: ignore[attr-defined]
    holding, release = asyncio.Event(), asyncio.Event()

    async def hold_the_writer() -> None:  # e.g. a long import, or a stuck unit
        async with db.session(timeout=None):
            holding.set()
            await release.wait()

    holder = asyncio.create_task(hold_the_writer())
    await holding.wait()
    try:
        log = await table.slash("roll-log", user=table.player, channel=table.channel)
        assert "Lore" in log.text and "busy" not in log.text, log.text
        started = time.monotonic()
        busy = await table.slash("roll", user=table.player2, skill="4", channel=table.other_channel)
        assert time.monotonic() - started < 3.0
        assert busy.ephemeral and "busy" in busy.text and "incident" not in busy.text, busy.text
    finally:
        release.set()
        await holder
    again = await table.slash("roll", user=table.player, skill="Lore")
    assert not again.ephemeral, again.text
