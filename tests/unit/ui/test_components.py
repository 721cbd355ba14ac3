"""`Components` sends exactly what a discord.ui.View of the cogs' DynamicItems sent.

Each reference below is the way a renderer built its view before it used Components (the cogs'
DynamicItem classes added to a discord.ui.View): the JSON must be the same, row for row, for
every shape the renderers make, and Discord's limits must be refused the same way.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import discord
import pytest

from bot.fate.rolls import AdvantageTarget, Roller, make_roll
from bot.games.base import Action
from bot.services.encounters import Choice
from bot.services.game_info import GameInfo, HandInfo, Seat
from bot.services.roll_base import RollView, StuntOption
from bot.ui.components import Components
from bot.ui.conflicts import ButtonSpec, Controls, TrackerAction
from bot.ui.games import action_page, option_text
from bot.ui.rolls import (
    components_of,
    defend_picker,
    gm_buttons,
    roll_buttons,
    roll_components,
    stunt_select,
)
from cogs.common.trackers import (
    TrackerButton,
    TrackerSelect,
    build_view,
    choice_view,
    select_options,
)
from cogs.common.xcard import XCardButton
from cogs.games import (
    LOBBY_SELECTS,
    ActionButton,
    HandButton,
    LobbyButton,
    LogButton,
    MoreOptionsSelect,
    TextsButton,
    board_view,
    hand_view,
    has_texts,
    lobby_view,
    option_select,
    pager_view,
)
from cogs.rolls import DefendSelect, RollButton, StuntSelect
from cogs.scenes import SceneBoardButton
from cogs.scenes import board_view as scene_board_view

BIG = 2**63 - 1


def _json(view: discord.ui.View | None) -> Any:
    return None if view is None else view.to_components()


# rolls ------------------------------------------------------------------------------------
def _roll_view(*, closed: bool = False, advantage: bool = False, stunts: int = 0) -> RollView:
    roll, _ = make_roll(
        random.Random(1),
        Roller(character_id=3, user_id=2, name="Harry"),
        skill="Lore",
        skill_rating=4,
        difficulty=6,  # a failure: the GM's enemy-invoke button shows on a new advantage
    )
    if advantage:
        roll = roll.model_copy(update={"advantage": AdvantageTarget(text="On Fire")})
    return RollView(
        id=BIG,
        channel_id=1,
        user_id=2,
        character_id=3,
        message_id=4,
        gm_channel_id=None,
        gm_message_id=None,
        opposes_id=None,
        hidden=False,
        closed=closed,
        version=7,
        roll=roll,
        stunts=tuple(StuntOption(i, f"Stunt {i}", 2) for i in range(stunts)),
    )


def _old_roll_items(view: RollView) -> discord.ui.View | None:
    buttons, stunts = roll_buttons(view), stunt_select(view)
    if not buttons and stunts is None:
        return None
    items = discord.ui.View(timeout=None)
    for spec in buttons:
        roll_id, act = spec.custom_id.split(":")[1:]
        items.add_item(
            RollButton(int(roll_id), act, label=spec.label, style=spec.style, row=spec.row)
        )
    if stunts is not None:
        items.add_item(
            StuntSelect(
                stunts.custom_id, placeholder=stunts.placeholder, options=stunts.options, row=2
            )
        )
    return items


@pytest.mark.parametrize(
    "shape",
    [
        {},
        {"stunts": 3},
        {"stunts": 40, "advantage": True},
        {"advantage": True},
        {"closed": True},
        {"closed": True, "advantage": True},
    ],
)
def test_roll_message_components_are_the_views(shape: dict[str, Any]) -> None:
    view = _roll_view(**shape)
    assert _json(roll_components(view)) == _json(_old_roll_items(view))


def test_a_new_roll_answer_has_seven_buttons_in_two_rows() -> None:
    sent = _json(roll_components(_roll_view()))
    assert [[c["label"] for c in row["components"]] for row in sent] == [
        ["Invoke +2", "Invoke reroll", "Teamwork +1", "Defend", "Close"],
        ["Void roll", "GM"],
    ]
    assert all(c["type"] == 2 and c["custom_id"].startswith(f"roll:{BIG}:") for c in _flat(sent))


def test_gm_tools_and_pickers_are_the_views() -> None:
    view = _roll_view(advantage=True)
    old = discord.ui.View(timeout=None)
    for spec in gm_buttons(view):
        roll_id, act = spec.custom_id.split(":")[1:]
        old.add_item(RollButton(int(roll_id), act, label=spec.label, style=spec.style))
    assert _json(components_of(gm_buttons(view))) == _json(old)
    _, spec = defend_picker(view, ["Athletics", "Fight"])
    picker = discord.ui.View(timeout=None)
    picker.add_item(
        DefendSelect(spec.custom_id, placeholder=spec.placeholder, options=spec.options)
    )
    assert _json(components_of([], spec)) == _json(picker)


# trackers ---------------------------------------------------------------------------------
def _old_tracker_view(prefix: str, ident: int, version: int, controls: Controls) -> Any:
    view = discord.ui.View(timeout=None)
    for spec in controls.buttons:
        view.add_item(TrackerButton(prefix, ident, version, spec.action, spec.label, spec.style))
    if controls.select_action and controls.options:
        options = select_options(controls.options)
        view.add_item(
            TrackerSelect(
                prefix, ident, version, controls.select_action, controls.select_placeholder, options
            )
        )
    return view


@pytest.mark.parametrize("buttons", [0, 1, 5, 7])
@pytest.mark.parametrize("options", [0, 2, 30])
def test_tracker_controls_are_the_views(buttons: int, options: int) -> None:
    controls = Controls(
        tuple(
            ButtonSpec(TrackerAction.ATTACK, f"Act {n}", discord.ButtonStyle(1 + n % 4))
            for n in range(buttons)
        ),
        TrackerAction.INVOKE,
        "P" * 200,  # clipped to Discord's 150
        tuple(Choice(f"v{n}", f"Choice {n}", "d" if n % 2 else "") for n in range(options)),
    )
    assert _json(build_view("cf", BIG, 2**31 - 1, controls)) == _json(
        _old_tracker_view("cf", BIG, 2**31 - 1, controls)
    )


def test_tracker_menus_are_the_views() -> None:
    choices = [Choice("a", "Absorb with stress"), Choice("b", "Mild consequence", "-2")]
    old = discord.ui.View(timeout=None)
    old.add_item(TrackerSelect("ct", 5, 9, "absorb", "How?", select_options(choices)))
    assert _json(choice_view("ct", 5, 9, "absorb", "How?", choices)) == _json(old)


# boards and hands -------------------------------------------------------------------------
def test_scene_board_buttons_are_the_views() -> None:
    old = discord.ui.View(timeout=None)
    old.add_item(SceneBoardButton(BIG))
    old.add_item(XCardButton(BIG))
    assert _json(scene_board_view(BIG)) == _json(old)


def _game(status: str = "running", engine: str = "dfccg") -> GameInfo:
    now = datetime.now(UTC)
    return GameInfo(
        id=BIG,
        engine=engine,
        engine_name=engine,
        guild_id=1,
        channel_id=2,
        host_id=3,
        seats=[Seat("a", 3, "Ana")],
        options={},
        status=status,
        version=41,
        board_message_id=None,
        public_log=[],
        result=None,
        created_at=now,
        last_activity=now,
        view={},
    )


@pytest.mark.parametrize("status", ["running", "paused", "finished"])
@pytest.mark.parametrize("engine", ["dfccg", "dreamwars", "vampire-empire"])
def test_game_board_buttons_are_the_views(status: str, engine: str) -> None:
    info = _game(status, engine)
    old = discord.ui.View(timeout=None)
    if status in ("running", "paused"):
        old.add_item(HandButton(info.id))
        if has_texts(info):
            old.add_item(TextsButton(info.id))
    old.add_item(LogButton(info.id))
    assert _json(board_view(info)) == _json(old)


@pytest.mark.parametrize("button", [TextsButton, LogButton])
@pytest.mark.parametrize(("page", "pages"), [(0, 1), (0, 2), (1, 3), (2, 3)])
def test_pager_buttons_are_the_views(button: Any, page: int, pages: int) -> None:
    old = None
    if pages > 1:
        old = discord.ui.View(timeout=None)
        for label, target, tag in (("◀ Previous", page - 1, "p"), ("Next ▶", page + 1, "n")):
            item = button(BIG, min(max(target, 0), pages - 1), label, tag)
            item.item.disabled = not 0 <= target < pages
            old.add_item(item)
    assert _json(pager_view(button, BIG, page, pages)) == _json(old)


def _old_lobby_view(info: GameInfo, fields: Any, labels: Any, titles: Any) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    names = list(fields)
    direct = names if len(names) <= LOBBY_SELECTS else names[: LOBBY_SELECTS - 1]
    for row, name in enumerate(direct):
        view.add_item(option_select(info, name, row=row))
    rest = names[len(direct) :]
    if rest:
        entries = [
            (n, f"{titles[n]}: {option_text(info.options.get(n), labels.get(n, {}))}") for n in rest
        ]
        view.add_item(MoreOptionsSelect(info.id, entries))
    for op in ("join", "leave", "ai", "unai", "start"):
        button = LobbyButton(info.id, op)
        button.item.row = LOBBY_SELECTS
        view.add_item(button)
    return view


@pytest.mark.parametrize("engine", ["dfccg", "dreamwars", "vampire-empire"])
@pytest.mark.parametrize("chosen", [False, True])
def test_lobby_menus_and_buttons_are_the_views(engine: str, chosen: bool) -> None:
    from bot.games.base import get_engine
    from bot.services.game_info import option_fields, option_labels, option_titles

    game = get_engine(engine)
    info = _game("lobby", engine)
    fields, labels, titles = option_fields(game), option_labels(game), option_titles(game)
    if chosen:  # every option set to its last value (a list option: two of them)
        info.options = {n: v[-2:] if len(v) > 2 else v[-1] for n, v in fields.items()}
    assert _json(lobby_view(info, fields, labels, titles)) == _json(
        _old_lobby_view(info, fields, labels, titles)
    )


def _old_hand_view(hand: HandInfo, page: int) -> discord.ui.View:
    from bot.games.base import get_display

    view = discord.ui.View(timeout=None)
    specs, page, pages = action_page(
        hand.actions, page, get_display(hand.game.engine).primary_kinds
    )
    for spec in specs:
        view.add_item(
            ActionButton(
                hand.game.id, hand.game.version, spec.action_id, spec.label, spec.row, spec.primary
            )
        )
    nav: list[discord.ui.DynamicItem[Any]] = []
    if pages > 1:
        prev_button = HandButton(hand.game.id, max(page - 1, 0), "◀ Previous", "p")
        prev_button.item.disabled = page == 0
        nav.append(prev_button)
    nav.append(HandButton(hand.game.id, page, "Refresh", "r"))
    if has_texts(hand.game):
        nav.append(TextsButton(hand.game.id))
    if pages > 1:
        next_button = HandButton(hand.game.id, min(page + 1, pages - 1), "Next ▶", "n")
        next_button.item.disabled = page >= pages - 1
        nav.append(next_button)
    for item in nav:
        item.item.row = 4
        view.add_item(item)
    return view


@pytest.mark.parametrize(("actions", "page"), [(0, 0), (3, 0), (20, 0), (21, 0), (45, 1), (45, 9)])
@pytest.mark.parametrize("engine", ["dfccg", "dreamwars"])
def test_hand_buttons_are_the_views(actions: int, page: int, engine: str) -> None:
    kinds = ["play", "attack", "pass"]
    hand = HandInfo(
        game=_game(engine=engine),
        seat=Seat("a", 3, "Ana"),
        private_view={},
        actions=[Action(id=f"a{n}", label=f"Card {n}", kind=kinds[n % 3]) for n in range(actions)],
    )
    new, shown, pages = hand_view(hand, page)
    assert _json(new) == _json(_old_hand_view(hand, page))
    assert len(_flat(new.to_components())) <= 25


# the helper itself ------------------------------------------------------------------------
def test_rows_fill_and_overflow_as_discord_ui_does() -> None:
    items = Components()
    old = discord.ui.View(timeout=None)
    for n in range(7):
        items.button(f"b{n}", f"x:{n}")
        old.add_item(discord.ui.Button(label=f"b{n}", custom_id=f"x:{n}"))
    items.select("s:1", [], placeholder="Pick")
    old.add_item(
        discord.ui.Select(
            custom_id="s:1", placeholder="Pick", options=[discord.SelectOption(label="-")]
        )
    )
    items.button("late", "x:late", row=1, emoji="🟥", disabled=True)
    old.add_item(
        discord.ui.Button(label="late", custom_id="x:late", row=1, emoji="🟥", disabled=True)
    )
    assert items.to_components() == old.to_components()
    with pytest.raises(ValueError, match="would not fit at row 2"):
        items.button("no room", "x:full", row=2)
    full = Components()
    for n in range(25):
        full.button(str(n), f"z:{n}")
    with pytest.raises(ValueError, match="maximum number of children"):
        full.button("26th", "z:26")
    with pytest.raises(TypeError):
        full.add_item(discord.ui.Button(label="x", custom_id="q"))


def test_discord_py_never_stores_it() -> None:
    items = Components().button("A", "roll:1:inv")
    assert items.is_finished() and items.is_dispatchable() and not items.has_components_v2()
    items.timeout = 900.0  # what discord.py does to an ephemeral message's view
    assert items.timeout == 900.0 and list(items.walk_children()) == [] and items.children == []
    assert not Components().is_dispatchable()


def _flat(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for row in rows for c in row["components"]]
