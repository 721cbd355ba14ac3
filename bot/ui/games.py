"""Rendering of the game table: lobby, public board, private hand, history. Pure functions.

The board is built ONLY from the engine's public view and the public event log kept on the
game row; the hand embed is for an ephemeral reply to its owner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from bot.games.base import Action
from bot.services.games import GameInfo, HandInfo
from bot.ui.common import (
    BUTTON_LABEL_LIMIT,
    COLOUR,
    FIELD_VALUE_LIMIT,
    clip,
    safe_embed,
)

ACTIONS_PER_PAGE = 20  # four rows of five buttons; the fifth row holds the page buttons
ACTION_ROWS = 4
BUTTONS_PER_ROW = 5
LOG_LINES = 8


@dataclass(frozen=True)
class ActionButtonSpec:
    action_id: str
    label: str
    row: int
    primary: bool


def board_filename(game_id: int) -> str:
    return f"board-{game_id}.png"


def page_count(actions: list[Action]) -> int:
    return max(1, -(-len(actions) // ACTIONS_PER_PAGE))


def action_page(actions: list[Action], page: int) -> tuple[list[ActionButtonSpec], int, int]:
    """The buttons of one page of actions: (specs, page actually shown, page count)."""
    pages = page_count(actions)
    page = min(max(page, 0), pages - 1)
    chunk = actions[page * ACTIONS_PER_PAGE : (page + 1) * ACTIONS_PER_PAGE]
    specs = [
        ActionButtonSpec(
            action_id=a.id,
            label=clip(a.label, BUTTON_LABEL_LIMIT),
            row=i // BUTTONS_PER_ROW,
            primary=a.kind in ("play", "first_player", "showdown", "choose", "talent"),
        )
        for i, a in enumerate(chunk)
    ]
    return specs, page, pages


def _seat_line(info: GameInfo) -> str:
    lines = []
    for index, seat in enumerate(info.seats, start=1):
        tag = " (host)" if seat.user_id == info.host_id else ""
        tag += " (AI)" if seat.ai else ""
        lines.append(f"{index}. {seat.name}{tag}")
    return "\n".join(lines) or "nobody yet"


def _option_text(value: Any, labels: dict[str, str]) -> str:
    if value is None or value == []:
        return "default"
    items = value if isinstance(value, list) else [value]
    return ", ".join(labels.get(str(v), str(v)) for v in items)


def lobby_embed(
    info: GameInfo,
    fields: dict[str, list[str]],
    labels: dict[str, dict[str, str]] | None = None,
) -> discord.Embed:
    """The lobby: seats and options. ``labels`` gives readable names of option values."""
    labels = labels or {}
    embed = discord.Embed(
        title=clip(f"{info.engine_name}: lobby (game #{info.id})", 256),
        description=(
            "Press **Join** to take a seat, **Leave** to give it up. The host can add AI seats "
            "and presses **Start** when everyone is in."
        ),
        colour=COLOUR,
    )
    embed.add_field(
        name=f"Seats ({len(info.seats)}/{info.max_players}, at least {info.min_players})",
        value=clip(_seat_line(info), FIELD_VALUE_LIMIT),
        inline=False,
    )
    shown = {name: _option_text(info.options.get(name), labels.get(name, {})) for name in fields}
    if shown:
        embed.add_field(
            name="Options",
            value=clip("\n".join(f"{k}: **{v}**" for k, v in shown.items()), FIELD_VALUE_LIMIT),
            inline=False,
        )
    return safe_embed(embed)


def _talents(player: dict[str, Any]) -> str:
    bits = []
    for talent in player.get("talents") or []:
        bits.append(f"{talent['name']} ({'ready' if talent.get('ready') else 'not ready'})")
    for stunt in player.get("stunts") or []:
        bits.append(f"{stunt['name']} ({'used' if stunt.get('used') else 'unused'})")
    return "; ".join(bits)


def _row_text(row: list[dict[str, Any]]) -> str:
    parts = []
    for card in row:
        tokens = ""
        if card.get("value"):
            noun = "Hits" if card.get("type") == "foe" else "Clues"
            tokens = f" {card.get('tokens', 0)}/{card['value']} {noun}"
            if card.get("can_receive") is False:
                tokens += " (blocked)"
        parts.append(f"`{card.get('range')}` {card.get('name')} [{card.get('type')}]{tokens}")
    return "\n".join(parts) or "empty"


def board_embed(info: GameInfo, *, with_image: bool = True) -> discord.Embed:
    """The public table. Uses only ``info.view`` (the public view) and the public log."""
    view = info.view or {}
    title = f"{info.engine_name}: game #{info.id}"
    if view.get("book"):
        title += f" ({view['book']})"
    lines: list[str] = []
    if info.status == "running":
        waiting = ", ".join(info.current_names) or "nobody"
        lines.append(
            f"**Turn {view.get('turn', 0)}**, phase {view.get('phase', '?')}: {waiting} to act."
        )
        decision = view.get("decision")
        if decision:
            lines.append(f"Waiting on: {decision.get('prompt', '')}")
        lines.append("Press **My hand** to see your cards and what you can do.")
    elif info.status == "finished" and info.result:
        lines.append(f"**Game over.** {info.result.get('summary', '')}")
        scores = info.result.get("scores") or {}
        if scores:
            lines.append("Score: " + ", ".join(f"{k} {v}" for k, v in scores.items()))
    elif info.status == "abandoned":
        lines.append("**This game was abandoned.**")
    log = info.public_log[-LOG_LINES:]
    if log:
        lines.append("\n**Latest**\n" + "\n".join(f"• {clip(t, 200)}" for t in log))
    embed = discord.Embed(title=clip(title, 256), description="\n".join(lines), colour=COLOUR)
    fate = view.get("fate")
    if fate:
        embed.add_field(
            name="Fate", value=f"Available {fate.get('available')} · Spent {fate.get('spent')}"
        )
    for index, row in enumerate((view.get("rows") or [])[:2], start=1):
        embed.add_field(
            name=f"Row {index}", value=clip(_row_text(row), FIELD_VALUE_LIMIT), inline=False
        )
    players = view.get("players") or []
    by_seat = {s.seat: s.name for s in info.seats}
    if players:
        text = "\n".join(
            f"**{by_seat.get(p.get('seat'), '?')}**: {' & '.join(p.get('characters') or [])}, "
            f"{p.get('hand_count', 0)} in hand, {p.get('deck_count', 0)} in deck. {_talents(p)}"
            for p in players
        )
        embed.add_field(name="Players", value=clip(text, FIELD_VALUE_LIMIT), inline=False)
    if view.get("solved"):
        embed.add_field(
            name="Solved", value=clip(", ".join(view["solved"]), FIELD_VALUE_LIMIT), inline=False
        )
    if with_image and view:
        embed.set_image(url=f"attachment://{board_filename(info.id)}")
    embed.set_footer(text=f"game #{info.id} · {info.status}")
    return safe_embed(embed)


def hand_embed(
    hand: HandInfo, page: int, pages: int, notes: list[str] | None = None
) -> discord.Embed:
    view = hand.private_view
    info = hand.game
    lines = [clip(n, 300) for n in (notes or [])]
    if info.status != "running":
        lines.append(f"This game is {info.status}.")
    elif hand.actions:
        lines.append("**Your move.** Choose one of the buttons below.")
    else:
        lines.append(f"Not your turn: waiting for {', '.join(info.current_names) or 'nobody'}.")
    embed = discord.Embed(
        title=clip(f"Your hand, game #{info.id}", 256),
        description=clip("\n".join(lines), 4000),
        colour=COLOUR,
    )
    for hand_part in (view.get("hands") or [])[:5]:
        cards = hand_part.get("hand") or []
        text = "\n".join(
            f"**{c['name']}** ({c['type']}): cost {c['cost']}, discard {c['discard']}, "
            f"range {c['range']}" + (f", value {c['value']}" if c.get("value") else "")
            for c in cards
        )
        name = " & ".join(hand_part.get("characters") or []) or "hand"
        embed.add_field(
            name=clip(name, 256), value=clip(text or "no cards", FIELD_VALUE_LIMIT), inline=False
        )
    fate = view.get("fate") or {}
    if fate:
        embed.add_field(
            name="Fate", value=f"Available {fate.get('available')} · Spent {fate.get('spent')}"
        )
    if pages > 1:
        embed.set_footer(text=f"actions page {page + 1} of {pages}")
    return safe_embed(embed)


def status_embed(info: GameInfo) -> discord.Embed:
    if info.status == "lobby":
        embed = discord.Embed(
            title=clip(f"{info.engine_name}: lobby (game #{info.id})", 256),
            description="Waiting for the host to press Start.",
            colour=COLOUR,
        )
        embed.add_field(name="Seats", value=clip(_seat_line(info), FIELD_VALUE_LIMIT))
        return safe_embed(embed)
    return board_embed(info, with_image=False)


def history_embed(games: list[GameInfo], total: int) -> discord.Embed:
    lines = []
    for game in games:
        result = ""
        if game.result:
            book = (game.result.get("details") or {}).get("book")
            result = f": {game.result.get('summary', '')}" + (f" ({book})" if book else "")
        players = ", ".join(s.name for s in game.seats)
        when = game.created_at.strftime("%Y-%m-%d")
        lines.append(
            clip(f"#{game.id} {when} {game.engine_name} ({game.status}) [{players}]{result}", 300)
        )
    embed = discord.Embed(
        title="Games on this server",
        description="\n".join(lines) or "No games yet: start one with `/game new`.",
        colour=COLOUR,
    )
    if total > len(games):
        embed.set_footer(text=f"the latest {len(games)} of {total}")
    return safe_embed(embed)
