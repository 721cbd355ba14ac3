"""Benchmark scenarios. Each feature adds its own here.

A scenario prepares one *lane* per concurrent worker (`setup`, not timed): a channel, a player,
a game of its own, so that 50 workers are 50 tables playing at once rather than 50 clicks racing
for one row. `request` says which interaction the lane sends next; every reply is checked
against `expect` (a wrong reply is a failure, reported with its text). When a reply shows the
lane's work is used up (`used_up`, e.g. a card game that ended), `renew` sets the lane up again
so the scenario does its real work for the whole run.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from random import Random
from typing import Any

from bot.testing.fake_discord import InteractionRecord
from bot.testing.harness import Reply, Table, iter_components
from bot.ui.custom_ids import GAME_ACTION_TEMPLATE

Lane = dict[str, Any]


@dataclass(frozen=True)
class Click:
    """A click on a button of a message the bot sent (a component interaction); `button` is
    its custom id or its label."""

    message: dict[str, Any]
    button: str
    user: int


Request = tuple[str, int, dict[str, Any]] | Click  # (command, user id, options), or a click


async def send(table: Table, request: Request) -> InteractionRecord:
    """Send a request without waiting for its answer."""
    if isinstance(request, Click):
        return await table.fire_click(request.message, request.button, user=request.user)
    command, user, options = request
    return await table.fire(command, user=user, **options)


def database(table: Table) -> Any:
    """The bot's database: its own object in this process, or one opened on the same URL when
    the bot runs in processes of its own (`table.db`, set by the runner)."""
    return table.bot.db if table.bot is not None else table.db  # type: ignore[attr-defined]


async def _one_lane_each(table: Table, lanes: int) -> list[Lane]:
    return [{} for _ in range(lanes)]


SETUP_BATCH = 10  # lanes set up at once (each in a channel of its own)


async def _each(lanes: list[Lane], prepare: Callable[[Lane], Awaitable[None]]) -> list[Lane]:
    """Run `prepare` on every lane, a batch of lanes at a time; the lanes in the same order."""
    for start in range(0, len(lanes), SETUP_BATCH):
        await asyncio.gather(*(prepare(lane) for lane in lanes[start : start + SETUP_BATCH]))
    return lanes


@dataclass(frozen=True)
class Scenario:
    name: str
    request: Callable[[Table, Lane, int], Request]
    expect: re.Pattern[str]
    setup: Callable[[Table, int], Awaitable[list[Lane]]] = field(default=_one_lane_each)
    used_up: re.Pattern[str] | None = None
    renew: Callable[[Table, Lane], Awaitable[None]] | None = None
    # what a lane keeps of each right answer (a click's next button is on the message it
    # updated)
    answered: Callable[[Lane, Reply], None] | None = None


def _about(table: Table, lane: Lane, i: int) -> Request:
    return ("about", table.player, {})


async def _players_with_characters(
    table: Table, lanes: int, prefix: str, **sheet: Any
) -> list[Lane]:
    """One member per lane, each with an active character of their own."""
    from bot.fate.sheet import AspectKind, new_character
    from bot.services.campaigns import insert_character_in, resolve_campaign_in, set_active_in

    players = [table.fake.add_member(table.guild_id, f"{prefix}-{n}") for n in range(lanes)]
    made = []
    async with database(table).session(timeout=None) as session:
        campaign = await resolve_campaign_in(session, table.guild_id, table.channel)
        for player in players:
            character = new_character(f"{prefix.title()} {player}", **sheet)
            character = character.set_aspect(AspectKind.HIGH_CONCEPT, "Ex-Marine Bodyguard")
            character = character.set_aspect(AspectKind.TROUBLE, "Never Backs Down")
            record = await insert_character_in(session, campaign, player, character)
            await set_active_in(session, table.guild_id, player, record.id, None)
            made.append(
                {
                    "player": player,
                    "name": f"{prefix.title()} {player}",
                    "character": record.id,
                    "campaign": campaign.id,
                }
            )
    return made


async def _roll_setup(table: Table, lanes: int) -> list[Lane]:
    """A player per lane, each at a table (a channel) of their own: a new roll closes the
    player's previous one by editing its message, and Discord (and discord.py) queue the edits
    of one channel one after another, so 50 players in one channel would leave most closing
    edits waiting past the measured window instead of doing them."""
    made = await _players_with_characters(table, lanes, "roller", skills={"Lore": 4, "Will": 3})
    for n, lane in enumerate(made):
        lane["channel"] = table.fake.add_channel(table.guild_id, f"roll-{n}")
    await _past_rolls(table, made)
    return made


PAST_ROLLS = 10_000  # a long campaign's closed rolls, spread over the lanes' characters


async def _past_rolls(table: Table, lanes: list[Lane]) -> None:
    """Each lane's character has rolled in its channel before: a new roll must not get slower
    as a campaign's history grows (it did: it read every past roll of its character)."""
    from sqlalchemy import insert

    from bot.db.models.columns import utcnow
    from bot.db.models.rolls import RollRow
    from bot.fate.rolls import Roller, make_roll

    rng = Random(15)
    now = utcnow()
    rows = []
    for k in range(PAST_ROLLS):
        lane = lanes[k % len(lanes)]
        roller = Roller(character_id=lane["character"], user_id=lane["player"], name=lane["name"])
        roll, _ = make_roll(rng, roller, skill="Lore", skill_rating=4, difficulty=2)
        rows.append(
            {
                "campaign_id": lane["campaign"],
                "guild_id": table.guild_id,
                "channel_id": lane["channel"],
                "user_id": lane["player"],
                "character_id": lane["character"],
                "closed": True,
                "roll_json": roll.model_dump_json(),
                "created_at": now,
                "updated_at": now,
            }
        )
    async with database(table).session(timeout=None) as session:
        await session.execute(insert(RollRow.__table__), rows)  # type: ignore[attr-defined]


def _roll(table: Table, lane: Lane, i: int) -> Request:
    return (
        "roll",
        lane["player"],
        {"skill": "Lore", "difficulty": "Fair", "channel": lane["channel"]},
    )


def _card_play(table: Table, lane: Lane, i: int) -> Request:
    return ("game move", table.player, {"action": "auto", "channel": lane["channel"]})


async def _conflict_setup(table: Table, lanes: int) -> list[Lane]:
    """A conflict (a PC against an NPC) per lane; the GM passes the turn around."""
    from bot.fate.sheet import new_character, new_minor_npc
    from bot.services.campaigns import insert_character_in, resolve_campaign_in

    async with database(table).session(timeout=None) as session:
        campaign = await resolve_campaign_in(session, table.guild_id, table.channel)
        for n in range(lanes):
            pc = new_character(f"Bench Knight {n}", skills={"Fight": 3, "Athletics": 2})
            npc = new_minor_npc(f"Bench Ghoul {n}", ["Ghoul"], {"Fight": 2}, stress_boxes=2)
            await insert_character_in(session, campaign, table.player, pc)
            await insert_character_in(session, campaign, table.gm, npc)

    async def start(lane: Lane) -> None:
        n = lane["n"]
        started = await table.slash(
            "conflict start",
            settle=False,
            user=table.gm,
            channel=lane["channel"],
            kind="physical",
            participants=f"Bench Knight {n}, Bench Ghoul {n}",
            first=f"Bench Ghoul {n}",
            zones="Street, Alley",
        )
        if "Bench Ghoul" not in started.text:
            raise RuntimeError(f"conflict-turn: the conflict did not start: {started.text}")

    made = [
        {"n": n, "channel": table.fake.add_channel(table.guild_id, f"conflict-{n}")}
        for n in range(lanes)
    ]
    return await _each(made, start)


def _conflict_turn(table: Table, lane: Lane, i: int) -> Request:
    return ("conflict next", table.gm, {"channel": lane["channel"]})


async def _sheet_setup(table: Table, lanes: int) -> list[Lane]:
    """A player per lane with a full sheet (as a table of regulars has)."""
    skills = {"Fight": 4, "Athletics": 3, "Physique": 3, "Will": 2, "Notice": 2, "Lore": 2}
    return await _players_with_characters(table, lanes, "sheet", skills=skills)


def _sheet_view(table: Table, lane: Lane, i: int) -> Request:
    return ("character sheet", lane["player"], {"full": i % 2 == 0})


def _sheet_update(table: Table, lane: Lane, i: int) -> Request:
    """The GM sets a player's fate points: a real write, logged in the fate point ledger. The
    value follows the lane's own count, so every request changes it (a value equal to the
    current one is answered without a write)."""
    lane["edits"] = lane.get("edits", 0) + 1
    return (
        "character edit fate-points",
        table.gm,
        {"value": lane["edits"] % 10, "character": lane["name"]},
    )


async def _scene_setup(table: Table, lanes: int) -> list[Lane]:
    """A scene per lane, with two zones and the lane's player's character in it."""
    made = await _players_with_characters(table, lanes, "scener", skills={"Notice": 2})

    async def start(lane: Lane) -> None:
        await table.slash(
            "scene start",
            settle=False,
            user=table.gm,
            channel=lane["channel"],
            aspects="Fog, Rain",
            zones="Street, Roof",
        )
        joined = await table.slash(
            "scene join", user=lane["player"], channel=lane["channel"], zone="Street", settle=False
        )
        if "Street" not in joined.text:
            raise RuntimeError(f"scene-move: could not join the scene: {joined.text}")

    for n, lane in enumerate(made):
        lane["channel"] = table.fake.add_channel(table.guild_id, f"scene-{n}")
        lane["moves"] = 0
    return await _each(made, start)


def _scene_move(table: Table, lane: Lane, i: int) -> Request:
    """Back and forth between the zones; the pinned board's edits are coalesced."""
    lane["moves"] += 1
    zone = "Roof" if lane["moves"] % 2 else "Street"
    return ("scene move", lane["player"], {"zone": zone, "channel": lane["channel"]})


SPARE_GAMES = 1  # per lane: started during set-up, taken up when the lane's game ends


async def _start_lanes(
    table: Table,
    made: list[Lane],
    new_game: Callable[[Table, Lane], Awaitable[None]],
    prefix: str,
) -> list[Lane]:
    """Start each lane's game, and SPARE_GAMES more for it, each in a channel of its own. A
    game that ends in the measured run is replaced by a spare (`_renew`), so the moves'
    figures are the moves' own: starting a game is measured by `game-start`."""

    async def prepare(lane: Lane) -> None:
        spares = []
        for _ in range(SPARE_GAMES):
            spare = {**lane, "channel": table.fake.add_channel(table.guild_id, prefix)}
            await new_game(table, spare)
            spares.append(spare)
        await new_game(table, lane)
        lane["spares"] = spares

    return await _each(made, prepare)


def _renew(new_game: Callable[[Table, Lane], Awaitable[None]]) -> Callable[[Table, Lane], Any]:
    """A lane whose game ended goes on in a spare game; once none is left, in a new game
    started there and then (its cost then lands in the moves' figures)."""

    async def renew(table: Table, lane: Lane) -> None:
        if lane["spares"]:
            lane.update(lane["spares"].pop())
        else:
            await new_game(table, lane)

    return renew


def _table_game(name: str, game: str, options: str = "", ai_seat: bool = False) -> Scenario:
    """A table game per lane, each in a channel of its own, the lane's player moving with
    `/game move action:auto` (AI seats' moves run inside the player's); a lane whose game ended
    goes on in another (`_renew`)."""

    async def new_game(table: Table, lane: Lane) -> None:
        lobby = await table.slash(
            "game new",
            user=table.player,
            channel=lane["channel"],
            game=game,
            options=options,
            settle=False,
        )
        if ai_seat:
            await table.click(lobby, "Add AI seat", user=table.player, settle=False)
        started = await table.click(lobby, "Start", user=table.player, settle=False)
        if "My hand" not in started.labels():
            raise RuntimeError(f"{name}: the game in lane {lane} did not start: {started.text}")

    async def setup(table: Table, lanes: int) -> list[Lane]:
        made = [
            {"channel": table.fake.add_channel(table.guild_id, f"{game}-{n}")} for n in range(lanes)
        ]
        return await _start_lanes(table, made, new_game, f"{game}-spare")

    return Scenario(
        name,
        _card_play,
        re.compile(r"Your hand, game #\d+"),
        setup,
        used_up=re.compile(r"This game is finished"),
        renew=_renew(new_game),
    )


async def _solo_card_game(table: Table, channel: int) -> Reply:
    """A solo card game (apprentice) started in the channel: its board."""
    lobby = await table.slash(
        "game new",
        user=table.player,
        channel=channel,
        game="dfccg",
        options="difficulty=apprentice",
        settle=False,
    )
    return await table.click(lobby, "Start", user=table.player, settle=False)


def _hand_click_scenario() -> Scenario:
    """A solo card game per lane, played by clicking the buttons of the lane's hand message,
    each click answered by the hand edited in place: a card played when one can be (one of them
    at random, from the lane's own RNG), another move otherwise (the Showdown proposed only
    when nothing else is left)."""

    async def new_game(table: Table, lane: Lane) -> None:
        board = await _solo_card_game(table, lane["channel"])
        hand = await table.click(board, "My hand", user=table.player, settle=False)
        if hand.message is None or not _move_buttons(hand.message):
            raise RuntimeError(f"hand-click: no hand to play from in lane {lane}: {hand.text}")
        lane["hand"] = hand.message

    async def setup(table: Table, lanes: int) -> list[Lane]:
        made = [
            {"channel": table.fake.add_channel(table.guild_id, f"hand-{n}"), "rng": Random(n)}
            for n in range(lanes)
        ]
        return await _start_lanes(table, made, new_game, "hand-spare")

    def request(table: Table, lane: Lane, i: int) -> Request:
        moves = _move_buttons(lane["hand"])  # custom id -> the move's verb
        plays = [m for m, verb in moves.items() if verb == "p"]
        # Proposing the Showdown ends the game at once: a person does it when ready, and a
        # random click on it would make the lane start a new game every few clicks.
        others = [m for m, verb in moves.items() if verb != "sd"]
        choice = lane["rng"].choice(plays or others or list(moves))
        return Click(lane["hand"], choice, table.player)

    def answered(lane: Lane, reply: Reply) -> None:
        if reply.message is not None and _move_buttons(reply.message):
            lane["hand"] = reply.message

    return Scenario(
        "hand-click",
        request,
        re.compile(r"Your hand, game #\d+"),
        setup,
        used_up=re.compile(r"This game is finished"),
        renew=_renew(new_game),
        answered=answered,
    )


def _game_start_scenario() -> Scenario:
    """Solo card games started one after another in each lane, two requests a game:
    `/game new` in a channel of its own (the lobby), then its Start button (the lobby becomes
    the board, its first picture in an edit just after)."""

    def request(table: Table, lane: Lane, i: int) -> Request:
        lobby = lane.pop("lobby", None)
        if lobby is not None:
            return Click(lobby, "Start", table.player)
        channel = table.fake.add_channel(table.guild_id, "start")
        options = {"channel": channel, "game": "dfccg", "options": "difficulty=apprentice"}
        return ("game new", table.player, options)

    def answered(lane: Lane, reply: Reply) -> None:
        if reply.message is not None and "Start" in reply.labels():
            lane["lobby"] = reply.message

    return Scenario(
        "game-start",
        request,
        re.compile(r"Card Game: (lobby \(game #\d+\)|game #\d+ \()"),  # the lobby, the board
        answered=answered,
    )


def _hand_open_scenario() -> Scenario:
    """A solo card game per lane, its player pressing the board's My hand again and again
    (as each player does to see their cards, and again when the hand has scrolled away)."""

    async def setup(table: Table, lanes: int) -> list[Lane]:
        async def start(lane: Lane) -> None:
            board = await _solo_card_game(table, lane["channel"])
            if board.message is None or "My hand" not in board.labels():
                raise RuntimeError(f"hand-open: no board in lane {lane}: {board.text}")
            lane["board"] = board.message

        made = [{"channel": table.fake.add_channel(table.guild_id, "open")} for _ in range(lanes)]
        return await _each(made, start)

    def request(table: Table, lane: Lane, i: int) -> Request:
        return Click(lane["board"], "My hand", table.player)

    return Scenario("hand-open", request, re.compile(r"Your hand, game #\d+"), setup)


_GAME_ACTION = re.compile(GAME_ACTION_TEMPLATE)


def _move_buttons(message: dict[str, Any]) -> dict[str, str]:
    """The game-move buttons on a hand message: custom id -> the move's verb ("p" plays a
    card, "sd" proposes the Showdown, ...)."""
    moves = {}
    for component in iter_components(message.get("components") or []):
        if component.get("type") != 2 or component.get("disabled"):
            continue
        found = _GAME_ACTION.fullmatch(component["custom_id"])
        if found is not None:
            moves[component["custom_id"]] = found["action"].partition(":")[0]
    return moves


SCENARIOS: dict[str, Scenario] = {
    "about": Scenario("about", _about, re.compile(r"Version")),
    "sheet-view": Scenario(
        "sheet-view", _sheet_view, re.compile(r"Sheet \d+\n.*Fate points", re.S), _sheet_setup
    ),
    "sheet-update": Scenario(
        "sheet-update", _sheet_update, re.compile(r"\d fate points \(in the fate"), _sheet_setup
    ),
    "roll": Scenario("roll", _roll, re.compile(r"rolls Lore.*Outcome", re.S), _roll_setup),
    "card-play": _table_game("card-play", "dfccg", "difficulty=apprentice"),
    "hand-click": _hand_click_scenario(),
    "game-start": _game_start_scenario(),
    "hand-open": _hand_open_scenario(),
    # a person as the humans, the AI as the vampires
    "vampire-action": _table_game("vampire-action", "vampire-empire", "host_side=humans", True),
    # the lane's player runs one hero, an AI seat the other; a map picture at each hero's phase
    "dreamwars-action": _table_game("dreamwars-action", "dreamwars", ai_seat=True),
    "conflict-turn": Scenario(
        "conflict-turn",
        _conflict_turn,
        re.compile(r"^(\*\*)?Bench \w+ \d+(\*\*)? acts next\.$"),
        _conflict_setup,
    ),
    "scene-move": Scenario(
        "scene-move",
        _scene_move,
        re.compile(r"^Scener \d+ moves to (Roof|Street)\.$"),
        _scene_setup,
    ),
}
