"""Rendering of the game table: lobby, public board, private hand, history, rules. Pure
functions that know no game: each game's display (bot/games/display.py) fills them in.

The board is built ONLY from the engine's public view and the public event log kept on the
game row; the hand embed is for an ephemeral reply to its owner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from bot.fate.words import plural
from bot.games.base import Action, GameEngine, get_display
from bot.games.display import GameDisplay, PanelField
from bot.services.game_info import GameInfo, HandInfo, OptionHelp, option_token
from bot.ui.common import (
    BUTTON_LABEL_LIMIT,
    COLOUR,
    FIELD_VALUE_LIMIT,
    clip,
    greedy_pages,
    safe_embed,
)

# A burst of moves within this window edits the board once. Read at every edit from here, not
# from the cog (discord.py loads an extension as a fresh module, so tests patch this one).
BOARD_COALESCE_SECONDS = 0.3
# A running game's board picture is drawn again at most this often (the board's text follows
# every edit; the picture catches up within this many seconds, and at the end of the game).
PICTURE_EVERY_SECONDS = 3.0
ACTIONS_PER_PAGE = 20  # four rows of five buttons; the fifth row holds the page buttons
ACTION_ROWS = 4
BUTTONS_PER_ROW = 5
LOG_LINES = 8
EMBED_FIELDS = 25  # Discord's limit of fields in one embed


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


def action_page(
    actions: list[Action], page: int, primary: frozenset[str] = frozenset()
) -> tuple[list[ActionButtonSpec], int, int]:
    """The buttons of one page of actions: (specs, page actually shown, page count); actions
    whose kind is in ``primary`` (the game's main moves) are highlighted."""
    pages = page_count(actions)
    page = min(max(page, 0), pages - 1)
    chunk = actions[page * ACTIONS_PER_PAGE : (page + 1) * ACTIONS_PER_PAGE]
    specs = [
        ActionButtonSpec(
            action_id=a.id,
            label=clip(a.label, BUTTON_LABEL_LIMIT),
            row=i // BUTTONS_PER_ROW,
            primary=a.kind in primary,
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


def option_text(value: Any, labels: dict[str, str]) -> str:
    """An option's current value in words (``labels``: value -> readable name)."""
    if value is None or value == []:
        return "default"
    items = value if isinstance(value, list) else [value]
    return ", ".join(labels.get(option_token(v), option_token(v)) for v in items)


def lobby_embed(
    info: GameInfo,
    fields: dict[str, list[str]],
    labels: dict[str, dict[str, str]] | None = None,
    titles: dict[str, str] | None = None,
) -> discord.Embed:
    """The lobby: seats and options. ``labels`` gives readable names of option values,
    ``titles`` of the options themselves."""
    labels = labels or {}
    titles = titles or {}
    embed = discord.Embed(
        title=clip(f"{info.engine_name}: lobby (game #{info.id})", 256),
        description=(
            "Press **Join** to take a seat, **Leave** to give it up. The host can add AI seats, "
            "set the options below and presses **Start** when everyone is in. "
            f"`/game rules game:{info.engine}` explains every option."
        ),
        colour=COLOUR,
    )
    embed.add_field(
        name=f"Seats ({len(info.seats)}/{info.max_players}, at least {info.min_players})",
        value=clip(_seat_line(info), FIELD_VALUE_LIMIT),
        inline=False,
    )
    shown = {
        titles.get(name, name): option_text(info.options.get(name), labels.get(name, {}))
        for name in fields
    }
    if shown:
        embed.add_field(
            name="Options",
            value=clip("\n".join(f"{k}: **{v}**" for k, v in shown.items()), FIELD_VALUE_LIMIT),
            inline=False,
        )
    return safe_embed(embed)


def _add_fields(embed: discord.Embed, fields: list[PanelField]) -> None:
    for item in fields[:EMBED_FIELDS]:
        embed.add_field(
            name=clip(item.name, 256) or "·",
            value=clip(item.value, FIELD_VALUE_LIMIT) or "·",
            inline=item.inline,
        )


def board_embed(info: GameInfo, *, with_image: bool = True) -> discord.Embed:
    """The public table. Uses only ``info.view`` (the public view) and the public log; the
    game's display (bot/games/<game>/display.py) gives its own lines, fields and picture."""
    display = get_display(info.engine)
    view = info.view or {}
    title = f"{info.engine_name}: game #{info.id}" + display.title_suffix(view)
    lines: list[str] = []
    if info.status == "running":
        lines += display.turn_lines(view, ", ".join(info.current_names) or "nobody")
        lines.append("Press **My hand** to see your cards and what you can do.")
    elif info.status == "finished" and info.result:
        lines.append(f"**Game over.** {info.result.get('summary', '')}")
        lines += display.result_lines(info.result)
    elif info.status == "paused":
        lines.append(
            "**Paused.** Nothing moves until one of the players types `/game resume`; the game "
            "keeps for as long as it takes."
        )
    elif info.status == "abandoned":
        lines.append("**This game was abandoned.**")
    log = info.public_log[-LOG_LINES:]
    if log:
        lines.append("\n**Latest**\n" + "\n".join(f"• {clip(t, 200)}" for t in log))
    embed = discord.Embed(
        title=clip(title, 256), description=clip("\n".join(lines), 4000), colour=COLOUR
    )
    if view:
        _add_fields(embed, display.board_fields(view, {s.seat: s.name for s in info.seats}))
    if with_image and view and has_picture(info):
        embed.set_image(url=f"attachment://{board_filename(info.id)}")
    embed.set_footer(text=f"game #{info.id} · {info.status}")
    return safe_embed(embed)


def has_picture(info: GameInfo) -> bool:
    """Whether the game draws a board picture (the default display has none)."""
    return type(get_display(info.engine)).picture is not GameDisplay.picture


def picture_key(info: GameInfo) -> str | None:
    """What the board picture shows, in a few characters (None: draw it on every edit)."""
    if not info.view or not has_picture(info):
        return None
    return get_display(info.engine).picture_key(info.view)


def hand_embed(
    hand: HandInfo, page: int, pages: int, notes: list[str] | None = None
) -> discord.Embed:
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
    _add_fields(embed, get_display(info.engine).hand_fields(hand.private_view))
    if pages > 1:
        embed.set_footer(text=f"actions page {page + 1} of {pages}")
    return safe_embed(embed)


TEXTS_PAGE_CHARS = 5000  # a page of Card texts stays well inside an embed's 6000 characters


def texts_pages(fields: list[PanelField]) -> list[list[PanelField]]:
    """Fields split into pages that each fit one embed (whole fields, in order)."""
    return greedy_pages(
        fields, lambda f: len(f.name) + len(f.value), TEXTS_PAGE_CHARS, most=EMBED_FIELDS
    )


def has_texts(info: GameInfo) -> bool:
    """Whether the game shows a **Card texts** button (its display gives reference texts)."""
    return type(get_display(info.engine)).reference_fields is not GameDisplay.reference_fields


def texts_embed(info: GameInfo, view: dict[str, Any], page: int) -> tuple[discord.Embed, int, int]:
    """One page of every text a player may read whole: (embed, page shown, page count)."""
    pages = texts_pages(get_display(info.engine).reference_fields(view))
    page = min(max(page, 0), len(pages) - 1)
    hand = " (yours included)" if view.get("hands") else ""
    embed = discord.Embed(
        title=clip(f"Card texts, game #{info.id}", 256),
        description=f"Every card on the table{hand}, with its whole text.",
        colour=COLOUR,
    )
    _add_fields(embed, pages[page])
    if len(pages) > 1:
        embed.set_footer(text=f"page {page + 1} of {len(pages)}")
    return safe_embed(embed), page, len(pages)


LOG_PAGE_CHARS = 3800  # one page of a game's history, in the description (4096 at most)


def log_pages(lines: list[str]) -> list[list[str]]:
    """Numbered history lines split into pages of whole lines that fit one description."""
    entries = [f"{number}. {line}" for number, line in enumerate(lines, start=1)]
    return greedy_pages(entries, lambda entry: len(entry) + 1, LOG_PAGE_CHARS)


def log_embed(info: GameInfo, lines: list[str], page: int) -> tuple[discord.Embed, int, int]:
    """One page of a game's whole public history: (embed, page shown, page count)."""
    pages = log_pages(lines)
    page = min(max(page, 0), len(pages) - 1)
    embed = discord.Embed(
        title=clip(f"{info.engine_name}: game #{info.id}, the whole log", 256),
        description="\n".join(pages[page]) or "Nothing has happened yet.",
        colour=COLOUR,
    )
    embed.set_footer(text=f"page {page + 1} of {len(pages)} · {len(lines)} events · {info.status}")
    return safe_embed(embed), page, len(pages)


def rules_embed(engine: GameEngine[Any, Any], options: list[OptionHelp]) -> discord.Embed:
    """How to play one game at the table and every lobby option with its default."""
    display = get_display(engine.key)
    players = (
        plural(engine.min_players, "player")
        if engine.min_players == engine.max_players
        else f"{engine.min_players} to {engine.max_players} players"
    )
    lines = [f"{players}. Open a table with `/game new game:{engine.key}`."]
    lines += display.rules_lines()
    embed = discord.Embed(
        title=clip(f"{engine.name}: how to play", 256),
        description=clip("\n".join(lines), 4000),
        colour=COLOUR,
    )
    for option in options[: EMBED_FIELDS - 1]:
        text = f"Default: **{option.default}**. {option.meaning}".strip()
        if option.choices:
            text += f"\nChoices: {', '.join(option.choices)}"
        embed.add_field(name=clip(option.title, 256), value=clip(text, FIELD_VALUE_LIMIT))
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
            note = get_display(game.engine).history_note(game.result)
            result = f": {game.result.get('summary', '')}" + (f" {note}" if note else "")
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
    footer = "/game history game:<number> shows one game's whole log"
    if total > len(games):
        footer = f"the latest {len(games)} of {total} · {footer}"
    embed.set_footer(text=footer)
    return safe_embed(embed)
