"""/game: the table that runs tabletop games in a channel (lobby, public board, private hands).

Every button is a DynamicItem whose custom_id carries the game id (and, for moves, the game
version), so clicks work after a restart and a double click applies once.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.bounded import Bounded
from bot.errors import RuleError
from bot.games.base import get_display, get_engine
from bot.services.game_info import (
    RESET,
    GameInfo,
    HandInfo,
    engine_choices,
    multi_option_fields,
    option_fields,
    option_labels,
    option_titles,
    option_token,
    options_help,
    parse_option_text,
)
from bot.services.games import GameService
from bot.services.games_queries import no_such_game
from bot.ui import games as table_ui
from bot.ui.common import SELECT_OPTION_LIMIT, clip
from bot.ui.components import Components
from bot.ui.custom_ids import (
    ABSTRACT_TEMPLATE,
    GAME_ACTION_TEMPLATE,
    HAND_BUTTON_TEMPLATE,
    LOBBY_BUTTON_TEMPLATE,
    LOBBY_OPTION_TEMPLATE,
    LOG_BUTTON_TEMPLATE,
    MORE_OPTIONS_TEMPLATE,
    TEXTS_BUTTON_TEMPLATE,
    VERSION,
    game_action_id,
    hand_button_id,
    lobby_button_id,
    lobby_option_id,
    log_button_id,
    more_options_id,
    texts_button_id,
)
from bot.ui.games import (
    action_page,
    board_embed,
    board_filename,
    hand_embed,
    has_texts,
    history_embed,
    lobby_embed,
    log_embed,
    option_text,
    picture_key,
    rules_embed,
    status_embed,
    texts_embed,
)
from cogs.common.coalesce import Coalescer
from cogs.common.edits import edit_message
from cogs.common.errors import guarded, send_ephemeral
from cogs.common.permissions import member_is_gm
from cogs.common.respond import respond, update
from cogs.common.scope import ScopedItem
from cogs.common.web import link_address

if TYPE_CHECKING:
    from bot.client import FateTableBot

log = logging.getLogger(__name__)

LOBBY_SELECTS = 4  # option menus on the lobby message (the fifth row holds the buttons)
MORE = "More options…"  # the fourth menu, when a game has more than four options
PICTURE_KEYS_MAX = 2000  # games whose last picture key is remembered
SELECT_MAX_OPTIONS = 25  # Discord's limit of options in one select menu
LOBBY_OPS = {"join": "Join", "leave": "Leave", "ai": "Add AI seat", "unai": "Remove AI seat"}


def _cog(interaction: discord.Interaction) -> GameTable:
    cog = interaction.client.get_cog("GameTable")  # type: ignore[attr-defined]
    assert isinstance(cog, GameTable)
    return cog


def _may_view(interaction: discord.Interaction, channel_id: int) -> bool:
    """Whether the asker may view the channel a game was played in (a game's log shows what
    its board showed there). A channel the bot cannot see (gone, an archived thread) counts
    as one the asker may not, and so does a private thread they are not in."""
    assert interaction.guild is not None
    channel = interaction.guild.get_channel_or_thread(channel_id)
    member = interaction.user
    if channel is None or not isinstance(member, discord.Member):
        return False
    try:
        allowed = channel.permissions_for(member)
    except discord.ClientException:  # a thread whose parent the bot does not know
        return False
    if isinstance(channel, discord.Thread) and channel.is_private():
        known = channel.owner_id == member.id or any(m.id == member.id for m in channel.members)
        return allowed.manage_threads or known
    return allowed.view_channel


def _name(user: discord.abc.User | discord.Member) -> str:
    return getattr(user, "display_name", None) or user.name


# ---------------------------------------------------------------------- components
OLD_BOARD = (
    "This is an old copy of the game's board; its buttons no longer work. Use the newest "
    "board in the channel (`/game status` posts it again if it is gone)."
)


class GameScoped(ScopedItem):
    """A game component: its custom id names the game, which must be in the clicked channel;
    on a public message it must be the game's current board (a reposted board replaces it)."""

    scope_kind = "game"
    game_id: int

    def scope_key(self) -> int:
        return self.game_id

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if not await super().interaction_check(interaction):
            return False
        message = interaction.message
        if message is None or message.flags.ephemeral:
            return True  # a hand or a private menu
        board = await _cog(interaction).games.board_message_of(self.game_id)
        if board is None or board == message.id:  # None: the lobby's id is being stored
            return True
        await send_ephemeral(interaction, OLD_BOARD)
        return False


def _lobby_style(op: str) -> discord.ButtonStyle:
    if op == "start":
        return discord.ButtonStyle.success
    return discord.ButtonStyle.primary if op == "join" else discord.ButtonStyle.secondary


@dataclass(frozen=True)
class _OptionMenu:
    """What a lobby option's menu offers: its choices (the current ones picked), its prompt
    and how many may be picked."""

    options: list[discord.SelectOption]
    placeholder: str
    min_values: int
    max_values: int

    @classmethod
    def of(
        cls,
        name: str,
        values: list[str] | None,
        current: Any,
        *,
        multi: bool,
        labels: dict[str, str] | None,
        title: str | None,
    ) -> _OptionMenu:
        labels = labels or {}
        items = current if isinstance(current, list) else [current]
        picked = {option_token(v) for v in items if v is not None}
        shown = (values or ["?"])[:SELECT_MAX_OPTIONS]
        options = [
            discord.SelectOption(
                label=clip(
                    labels.get(v, "none (default)" if v == RESET else v), SELECT_OPTION_LIMIT
                ),
                value=v[:100],
                default=v in picked,
            )
            for v in shown
        ]
        placeholder = f"Choose: {title or name.replace('_', ' ')}"
        if multi:
            placeholder += " (pick none for random)"
        return cls(
            options,
            clip(placeholder, 150),
            0 if multi else 1,
            len(options) if multi else 1,
        )


def _more_options(entries: list[tuple[str, str]] | None) -> list[discord.SelectOption]:
    shown = (entries or [("?", "?")])[:SELECT_MAX_OPTIONS]
    return [
        discord.SelectOption(label=clip(label, SELECT_OPTION_LIMIT), value=name[:100])
        for name, label in shown
    ]


class LobbyButton(
    GameScoped,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=LOBBY_BUTTON_TEMPLATE,
):
    def __init__(self, game_id: int, op: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=LOBBY_OPS.get(op, "Start"),
                style=_lobby_style(op),
                custom_id=lobby_button_id(game_id, op),
            )
        )
        self.game_id = game_id
        self.op = op

    @staticmethod
    def add_to(items: Components, game_id: int, op: str, row: int) -> None:
        """Put this button on a message's components (as the item above would be sent)."""
        label = LOBBY_OPS.get(op, "Start")
        items.button(label, lobby_button_id(game_id, op), _lobby_style(op), row=row)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LobbyButton:
        return cls(int(match["game"]), match["op"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).lobby_click(interaction, self.game_id, self.op)


class LobbyOptionSelect(
    GameScoped,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=LOBBY_OPTION_TEMPLATE,
):
    """One lobby option. A list option (e.g. the characters) takes several values, and picking
    none of them puts it back to its default; other options offer ``none`` where the default
    is empty."""

    def __init__(
        self,
        game_id: int,
        name: str,
        values: list[str] | None = None,
        current: Any = None,
        *,
        multi: bool = False,
        labels: dict[str, str] | None = None,
        title: str | None = None,
        row: int | None = None,
    ) -> None:
        menu = _OptionMenu.of(name, values, current, multi=multi, labels=labels, title=title)
        super().__init__(
            discord.ui.Select(
                custom_id=lobby_option_id(game_id, name),
                placeholder=menu.placeholder,
                options=menu.options,
                min_values=menu.min_values,
                max_values=menu.max_values,
                row=row,
            )
        )
        self.game_id = game_id
        self.name = name

    @staticmethod
    def add_to(items: Components, game_id: int, name: str, menu: _OptionMenu, row: int) -> None:
        """Put this menu on a message's components (as the item above would be sent)."""
        items.select(
            lobby_option_id(game_id, name),
            menu.options,
            placeholder=menu.placeholder,
            row=row,
            min_values=menu.min_values,
            max_values=menu.max_values,
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LobbyOptionSelect:
        return cls(int(match["game"]), match["name"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        data: dict[str, Any] = dict(interaction.data or {})
        values = [str(v) for v in data.get("values") or []]
        await _cog(interaction).option_pick(interaction, self.game_id, self.name, values)


class MoreOptionsSelect(
    GameScoped,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=MORE_OPTIONS_TEMPLATE,
):
    """The lobby's last menu when a game has more options than menus fit: picking one opens
    that option's menu privately for the host."""

    def __init__(self, game_id: int, entries: list[tuple[str, str]] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=more_options_id(game_id),
                placeholder=MORE,
                options=_more_options(entries),
                row=LOBBY_SELECTS - 1,
            )
        )
        self.game_id = game_id

    @staticmethod
    def add_to(items: Components, game_id: int, entries: list[tuple[str, str]]) -> None:
        """Put this menu on a message's components (as the item above would be sent)."""
        options = _more_options(entries)
        items.select(more_options_id(game_id), options, placeholder=MORE, row=LOBBY_SELECTS - 1)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MoreOptionsSelect:
        return cls(int(match["game"]))

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        data: dict[str, Any] = dict(interaction.data or {})
        name = str((data.get("values") or [""])[0])[:40]
        await _cog(interaction).more_options(interaction, self.game_id, name)


class _PagedButton(
    GameScoped, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ABSTRACT_TEMPLATE
):
    """A button that opens a private paged reply (no page) or turns its pages (a page)."""

    label = "?"
    build_id: Any = None
    default_tag = "p"
    opener_style = discord.ButtonStyle.secondary  # the button that opens the reply (no page)

    def __init__(
        self, game_id: int, page: int | None = None, label: str | None = None, tag: str = ""
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or self.label,
                style=self._style(page),
                custom_id=type(self).build_id(game_id, page, tag or self.default_tag),
            )
        )
        self.game_id = game_id
        self.page = page

    @classmethod
    def _style(cls, page: int | None) -> discord.ButtonStyle:
        return cls.opener_style if page is None else discord.ButtonStyle.secondary

    @classmethod
    def add_to(
        cls,
        items: Components,
        game_id: int,
        page: int | None = None,
        label: str | None = None,
        tag: str = "",
        *,
        row: int | None = None,
        disabled: bool = False,
    ) -> None:
        """Put this button on a message's components (as the item above would be sent)."""
        custom_id = cls.build_id(game_id, page, tag or cls.default_tag)
        items.button(label or cls.label, custom_id, cls._style(page), row=row, disabled=disabled)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> _PagedButton:
        page = int(match["page"]) if match["page"] is not None else None
        return cls(int(match["game"]), page, tag=match["tag"] or cls.default_tag)

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        await self.show(_cog(interaction), interaction, self.page or 0, edit=self.page is not None)

    async def show(
        self, cog: GameTable, interaction: discord.Interaction, page: int, *, edit: bool
    ) -> None:
        raise NotImplementedError


class HandButton(_PagedButton, template=HAND_BUTTON_TEMPLATE):
    """ "My hand" on the board (no page) and the page / refresh buttons on a hand."""

    label = "My hand"
    build_id = staticmethod(hand_button_id)
    default_tag = "r"
    opener_style = discord.ButtonStyle.primary

    async def show(
        self, cog: GameTable, interaction: discord.Interaction, page: int, *, edit: bool
    ) -> None:
        await cog.show_hand(interaction, self.game_id, page, edit=edit)


class TextsButton(_PagedButton, template=TEXTS_BUTTON_TEMPLATE):
    """ "Card texts" on the board and on a hand, and the page buttons of its reply."""

    label = "Card texts"
    build_id = staticmethod(texts_button_id)

    async def show(
        self, cog: GameTable, interaction: discord.Interaction, page: int, *, edit: bool
    ) -> None:
        await cog.show_texts(interaction, self.game_id, page, edit=edit)


class LogButton(_PagedButton, template=LOG_BUTTON_TEMPLATE):
    """ "Game log" on the board, and the page buttons of the whole history it shows."""

    label = "Game log"
    build_id = staticmethod(log_button_id)
    scope_kind = "game_log"  # its pages follow /game history into any channel of the server

    async def show(
        self, cog: GameTable, interaction: discord.Interaction, page: int, *, edit: bool
    ) -> None:
        await cog.show_log(interaction, self.game_id, page, edit=edit)


class ActionButton(
    GameScoped,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=GAME_ACTION_TEMPLATE,
):
    def __init__(
        self,
        game_id: int,
        version: int,
        action_id: str,
        label: str = "?",
        row: int | None = None,
        primary: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.primary if primary else discord.ButtonStyle.secondary,
                custom_id=game_action_id(game_id, version, action_id),
                row=row,
            )
        )
        self.game_id = game_id
        self.version = version
        self.action_id = action_id

    @staticmethod
    def add_to(
        items: Components,
        game_id: int,
        version: int,
        action_id: str,
        label: str,
        row: int | None = None,
        primary: bool = False,
    ) -> None:
        """Put this button on a message's components (as the item above would be sent)."""
        style = discord.ButtonStyle.primary if primary else discord.ButtonStyle.secondary
        items.button(label, game_action_id(game_id, version, action_id), style, row=row)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ActionButton:
        return cls(int(match["game"]), int(match["version"]), match["action"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).act(interaction, self.game_id, self.version, self.action_id)


# ---------------------------------------------------------------------- views
def _game_choices(current: str) -> list[app_commands.Choice[str]]:
    needle = current.lower().strip()
    return [
        app_commands.Choice(name=clip(name, 100), value=key)
        for key, name in engine_choices()
        if needle in key or needle in name.lower()
    ][:25]


def lobby_message(info: GameInfo) -> dict[str, Any]:
    """The lobby's embed and view, as keyword arguments for sending or editing it."""
    engine = get_engine(info.engine)
    fields = option_fields(engine)
    labels = option_labels(engine)
    titles = option_titles(engine)
    return {
        "embed": lobby_embed(info, fields, labels, titles),
        "view": lobby_view(info, fields, labels, titles),
    }


def option_select(
    info: GameInfo, name: str, *, row: int | None = None, engine: Any = None
) -> LobbyOptionSelect:
    """The menu of one lobby option, showing its current value."""
    engine = engine or get_engine(info.engine)
    return LobbyOptionSelect(
        info.id,
        name,
        option_fields(engine)[name],
        info.options.get(name),
        multi=name in multi_option_fields(engine),
        labels=option_labels(engine).get(name),
        title=option_titles(engine)[name],
        row=row,
    )


def lobby_view(
    info: GameInfo,
    fields: dict[str, list[str]],
    labels: dict[str, dict[str, str]],
    titles: dict[str, str],
) -> Components:
    """Option menus (rows 0-3) above the five lobby buttons (row 4). With more than four
    options, the first three have menus and the fourth menu lists the others."""
    view = Components()
    engine = get_engine(info.engine)
    multi = multi_option_fields(engine)
    names = list(fields)
    direct = names if len(names) <= LOBBY_SELECTS else names[: LOBBY_SELECTS - 1]
    for row, name in enumerate(direct):
        menu = _OptionMenu.of(
            name,
            fields[name],
            info.options.get(name),
            multi=name in multi,
            labels=labels.get(name),
            title=titles[name],
        )
        LobbyOptionSelect.add_to(view, info.id, name, menu, row)
    rest = names[len(direct) :]
    if rest:
        entries = []
        for name in rest:
            shown = option_text(info.options.get(name), labels.get(name, {}))
            entries.append((name, f"{titles[name]}: {shown}"))
        MoreOptionsSelect.add_to(view, info.id, entries)
    for op in ("join", "leave", "ai", "unai", "start"):
        LobbyButton.add_to(view, info.id, op, LOBBY_SELECTS)
    return view


def board_view(info: GameInfo) -> discord.ui.View | None:
    """My hand and Card texts while the game runs (or is paused); the Game log once it has
    started."""
    if info.status == "lobby" or info.view is None:
        return None
    view = Components()
    if info.status in ("running", "paused"):  # a paused game's hands may still be read
        HandButton.add_to(view, info.id)
        if has_texts(info):
            TextsButton.add_to(view, info.id)
    LogButton.add_to(view, info.id)
    return view


def pager_view(
    button: type[_PagedButton], game_id: int, page: int, pages: int
) -> discord.ui.View | None:
    """Previous / next buttons under one page of a paged reply (none for a single page)."""
    if pages <= 1:
        return None
    view = Components()
    for label, target, tag in (("◀ Previous", page - 1, "p"), ("Next ▶", page + 1, "n")):
        shown = min(max(target, 0), pages - 1)
        button.add_to(view, game_id, shown, label, tag, disabled=not 0 <= target < pages)
    return view


def hand_view(hand: HandInfo, page: int) -> tuple[Components, int, int]:
    view = Components()
    game = hand.game
    primary = get_display(game.engine).primary_kinds
    specs, page, pages = action_page(hand.actions, page, primary)
    for spec in specs:
        ActionButton.add_to(
            view, game.id, game.version, spec.action_id, spec.label, spec.row, spec.primary
        )
    nav = 4
    if pages > 1:
        HandButton.add_to(
            view, game.id, max(page - 1, 0), "◀ Previous", "p", row=nav, disabled=page == 0
        )
    HandButton.add_to(view, game.id, page, "Refresh", "r", row=nav)
    if has_texts(game):
        TextsButton.add_to(view, game.id, row=nav)
    if pages > 1:
        last = pages - 1
        HandButton.add_to(
            view, game.id, min(page + 1, last), "Next ▶", "n", row=nav, disabled=page >= last
        )
    return view, page, pages


async def _paged_reply(
    interaction: discord.Interaction,
    embed: discord.Embed,
    view: discord.ui.View | None,
    edit: bool,
) -> None:
    """A private page: edits the page it was turned from, or answers with a new message."""
    message = interaction.message
    if edit and message is not None and message.flags.ephemeral:
        await interaction.response.edit_message(embed=embed, view=view)
    elif view is None:
        await interaction.response.send_message(embed=embed, ephemeral=True)
    else:
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)


# ---------------------------------------------------------------------- the cog
class GameTable(commands.Cog):
    game = app_commands.Group(
        name="game",
        description="Table games here: /game new opens one, /game rules explains each game.",
        guild_only=True,
    )

    def __init__(self, bot: FateTableBot) -> None:
        self.bot = bot
        self.games = GameService(bot.db)
        self._boards: Coalescer[int] = Coalescer(
            "board", self.refresh_board, lambda: table_ui.BOARD_COALESCE_SECONDS
        )
        self._idle_task: asyncio.Task[None] | None = None
        # game id -> the picture_key of the board picture this process last posted
        self._picture_keys: dict[int, str] = Bounded(PICTURE_KEYS_MAX)
        # game id -> when this process last drew its picture, and the redraws waiting for
        # PICTURE_EVERY_SECONDS to pass (see _new_picture)
        self._picture_at: dict[int, float] = Bounded(PICTURE_KEYS_MAX)
        self._late_pictures: dict[int, asyncio.TimerHandle] = {}
        # game id -> the game as the latest move here left it, for the next board edit (no
        # read), and the version each board was last drawn at (an older one is never shown)
        self._fresh: dict[int, GameInfo] = {}
        self._shown_versions: dict[int, int] = Bounded(PICTURE_KEYS_MAX)

    async def cog_load(self) -> None:
        self._idle_task = asyncio.create_task(self._idle_loop(), name="fatetable-idle")

    async def cog_unload(self) -> None:
        if self._idle_task is not None:
            self._idle_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._idle_task
        # A stop draws what is waiting at once: a burst's last edit, and the pictures held
        # back by PICTURE_EVERY_SECONDS (the board would show an older table until the next move).
        for game_id, late in self._late_pictures.items():
            late.cancel()
            self._boards.poke(game_id)
        self._late_pictures.clear()
        self._picture_at.clear()  # nothing is too soon for a picture on the way out
        await self._boards.flush()
        for late in self._late_pictures.values():  # a board drawn twice in the flush arms one
            late.cancel()

    @property
    def _board_tasks(self) -> dict[int, asyncio.Task[None]]:
        return self._boards.tasks

    # ------------------------------------------------------------------ slash commands
    @game.command(name="new", description="Open a lobby for a table game in this channel.")
    @app_commands.describe(
        game="Which game to play (start typing to see the list).",
        options="Optional name=value settings (autocomplete lists this game's; the lobby has menus).",
    )
    async def new(
        self, interaction: discord.Interaction, game: str, options: str | None = None
    ) -> None:
        assert interaction.guild is not None and interaction.channel_id is not None
        engine = get_engine(game.strip().lower()[:32])
        info = await self.games.create_lobby(
            guild_id=interaction.guild.id,
            channel_id=interaction.channel_id,
            host_id=interaction.user.id,
            host_name=_name(interaction.user),
            engine_key=engine.key,
            options=parse_option_text(engine, options or ""),
        )
        callback = await interaction.response.send_message(**lobby_message(info))
        message_id = getattr(callback, "message_id", None)
        if message_id is None:
            message_id = (await interaction.original_response()).id
        await self.games.set_board_message(info.id, int(message_id))
        # A board comes soon: the picture workers start now (in the background), not at its
        # first picture, which the bot would draw in a thread of its own while they start.
        await self.bot.pictures.start()

    @new.autocomplete("game")
    async def _game_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return _game_choices(current)

    @new.autocomplete("options")
    async def _options_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Completes the last name=value pair typed, from the chosen game's options."""
        key = str(getattr(interaction.namespace, "game", "") or "").strip().lower()[:32]
        try:
            engine = get_engine(key)
        except RuleError:
            return []
        done, _, last = current.rpartition(" ")
        prefix = f"{done} " if done else ""
        typed_name, has_value, typed_value = last.partition("=")
        labels = option_labels(engine)
        choices = []
        for name, values in option_fields(engine).items():
            if not has_value and typed_name.lower() not in name:
                continue
            if has_value and typed_name.lower() != name:
                continue
            for value in values:
                if value == RESET or typed_value.lower() not in value.lower():
                    continue
                label = labels.get(name, {}).get(value, value)
                text = f"{prefix}{name}={value}"
                shown = text if label == value else f"{text} ({label})"
                if len(text) <= 100:
                    choices.append(app_commands.Choice(name=clip(shown, 100), value=text))
        return choices[:25]

    @game.command(name="rules", description="How a table game is played here, and its options.")
    @app_commands.describe(game="Which game (start typing to see the list).")
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        engine = get_engine(game.strip().lower()[:32])
        await interaction.response.send_message(
            embed=rules_embed(engine, options_help(engine)), ephemeral=True
        )

    @rules.autocomplete("game")
    async def _rules_game_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return _game_choices(current)

    @game.command(name="status", description="Show the game in this channel (only you see it).")
    async def status(self, interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        info = await self.games.status(interaction.channel_id)
        if info is None:
            raise RuleError("There is no game in this channel; start one with `/game new`.")
        content = None
        if self.bot.web is not None:
            link = await self.bot.web.game_link(info)
            content = (
                f"Spectators can follow the board live at {link_address(self.bot, link)} "
                "(public state only, never a hand): share it with anyone."
            )
        await interaction.response.send_message(content, embed=status_embed(info), ephemeral=True)
        await self._ensure_board(info)

    @game.command(name="move", description="Make a move by name instead of a button.")
    @app_commands.describe(
        action="Your move (start typing; the list shows what you may do now), or auto."
    )
    async def move(self, interaction: discord.Interaction, action: str) -> None:
        assert interaction.channel_id is not None
        version_text, _, action_id = action.strip().partition(":")
        if action.strip().lower() == "auto":
            version, action_id = None, "auto"
        elif re.fullmatch(VERSION, version_text) and action_id:
            version = int(version_text)
        else:
            raise RuleError("Pick your move from the suggestions of `/game move`, or type auto.")
        outcome = await self.games.act_in_channel(
            interaction.channel_id, interaction.user.id, version, action_id[:40]
        )
        self.schedule_board(outcome.game.id, outcome.game)
        await self._send_hand(
            interaction, outcome.hand, 0, edit=False, notes=outcome.private_events[-5:]
        )

    @move.autocomplete("action")
    async def _move_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.channel_id is None:
            return []
        # From memory (per game version), not a database read per keystroke.
        found = await self.games.move_choices(interaction.channel_id, interaction.user.id)
        if found is None:
            return []
        version, actions = found
        needle = current.lower()
        choices = [
            app_commands.Choice(name=clip(a.label, 100), value=f"{version}:{a.id}")
            for a in actions
            if needle in a.label.lower()
        ]
        if actions and "auto".startswith(needle[:4]):
            choices.append(
                app_commands.Choice(name="auto: let the AI choose my move", value="auto")
            )
        return choices[:25]

    @game.command(name="abandon", description="End the game in this channel (host or GM).")
    async def abandon(self, interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        is_gm = await member_is_gm(self.bot, interaction)
        info = await self.games.abandon(interaction.channel_id, interaction.user.id, is_gm=is_gm)
        await interaction.response.send_message(
            f"Game #{info.id} ({info.engine_name}) was abandoned by {_name(interaction.user)}."
        )
        self.schedule_board(info.id, info)

    @game.command(name="pause", description="Pause the game in this channel until /game resume.")
    async def pause(self, interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        is_gm = await member_is_gm(self.bot, interaction)
        info = await self.games.pause(interaction.channel_id, interaction.user.id, is_gm=is_gm)
        await interaction.response.send_message(
            f"Game #{info.id} ({info.engine_name}) is paused by {_name(interaction.user)}; "
            "any of its players continues it with `/game resume`, today or another day."
        )
        self.schedule_board(info.id, info)

    @game.command(name="resume", description="Continue the paused game in this channel.")
    async def resume(self, interaction: discord.Interaction) -> None:
        assert interaction.channel_id is not None
        is_gm = await member_is_gm(self.bot, interaction)
        info = await self.games.resume(interaction.channel_id, interaction.user.id, is_gm=is_gm)
        waiting = ", ".join(info.current_names) or "nobody"
        await interaction.response.send_message(
            f"Game #{info.id} ({info.engine_name}) continues; waiting for {waiting}. "
            "Press **My hand** on the board."
        )
        self.schedule_board(info.id, info)

    @game.command(
        name="history", description="The latest games on this server, or one game's whole log."
    )
    @app_commands.describe(game="A game's number (#12 on its board): its whole log, paged.")
    async def history(
        self,
        interaction: discord.Interaction,
        game: app_commands.Range[int, 1, 2**53] | None = None,
    ) -> None:
        assert interaction.guild is not None
        if game is not None:
            await self.show_log(interaction, game, 0, edit=False)
            return
        unseen = []
        if not await member_is_gm(self.bot, interaction):  # the GM sees every table's
            played_in = await self.games.channels_played_in(interaction.guild.id)
            unseen = [c for c in played_in if not _may_view(interaction, c)]
        games, total = await self.games.history(interaction.guild.id, unseen=unseen)
        await interaction.response.send_message(embed=history_embed(games, total), ephemeral=True)

    # ------------------------------------------------------------------ lobby
    async def lobby_click(self, interaction: discord.Interaction, game_id: int, op: str) -> None:
        is_gm = op in ("ai", "unai", "start") and await member_is_gm(self.bot, interaction)
        info = await self.games.lobby_action(
            game_id, interaction.user.id, _name(interaction.user), op, is_gm=is_gm
        )
        if info.status == "lobby":
            await interaction.response.edit_message(**lobby_message(info))
            return
        # The board answers at once and its first picture follows in the board's next edit:
        # a picture waits for a worker that other tables' boards may keep busy, and Discord
        # gives an answer three seconds.
        await interaction.response.edit_message(
            embed=board_embed(info, with_image=False), view=board_view(info)
        )
        self.schedule_board(info.id, info)

    async def option_pick(
        self, interaction: discord.Interaction, game_id: int, name: str, value: list[str]
    ) -> None:
        is_gm = await member_is_gm(self.bot, interaction)
        info = await self.games.set_option(game_id, interaction.user.id, name, value, is_gm=is_gm)
        message = interaction.message
        if message is not None and message.flags.ephemeral:  # picked from "More options"
            await interaction.response.edit_message(**self._option_message(info, name))
            self.schedule_board(game_id, info)
            return
        await interaction.response.edit_message(**lobby_message(info))

    async def more_options(self, interaction: discord.Interaction, game_id: int, name: str) -> None:
        """The host picked an option in "More options": its menu, privately."""
        info = await self.games.get(game_id)
        if info.status != "lobby":
            raise RuleError("Options can only change in the lobby, before the game starts.")
        if interaction.user.id != info.host_id and not await member_is_gm(self.bot, interaction):
            raise RuleError("Only the host can change the game's options.")
        if name not in option_fields(get_engine(info.engine)):
            raise RuleError("That option cannot be changed here; use the lobby's menus.")
        await interaction.response.send_message(**self._option_message(info, name), ephemeral=True)

    @staticmethod
    def _option_message(info: GameInfo, name: str) -> dict[str, Any]:
        engine = get_engine(info.engine)
        helped = next(o for o in options_help(engine) if o.name == name)
        view = discord.ui.View(timeout=None)
        view.add_item(option_select(info, name, engine=engine))
        now = option_text(info.options.get(name), option_labels(engine).get(name, {}))
        text = (
            f"**{helped.title}** (game #{info.id}): now **{now}**, default {helped.default}.\n"
            f"{helped.meaning}"
        )
        return {"content": clip(text, 2000), "view": view}

    # ------------------------------------------------------------------ hands and moves
    async def show_hand(
        self, interaction: discord.Interaction, game_id: int, page: int, *, edit: bool
    ) -> None:
        hand = await self.games.hand(game_id, interaction.user.id)
        await self._send_hand(interaction, hand, page, edit=edit)

    async def _send_hand(
        self,
        interaction: discord.Interaction,
        hand: HandInfo,
        page: int,
        *,
        edit: bool,
        notes: list[str] | None = None,
    ) -> None:
        """The hand, privately: edited in place when clicked from an earlier hand."""
        view, page, pages = hand_view(hand, page)
        embed = hand_embed(hand, page, pages, notes)
        message = interaction.message
        if edit and message is not None and message.flags.ephemeral:
            await update(interaction, embed=embed, view=view)
        else:
            await respond(interaction, embed=embed, view=view, ephemeral=True)

    async def show_texts(
        self, interaction: discord.Interaction, game_id: int, page: int, *, edit: bool
    ) -> None:
        """Card texts, privately: a new reply from the board or a hand, edited by its pages."""
        assert interaction.guild is not None
        info, view = await self.games.card_texts(game_id, interaction.user.id, interaction.guild.id)
        embed, page, pages = texts_embed(info, view, page)
        await _paged_reply(interaction, embed, pager_view(TextsButton, game_id, page, pages), edit)

    async def show_log(
        self, interaction: discord.Interaction, game_id: int, page: int, *, edit: bool
    ) -> None:
        """A game's whole public history, privately, one page at a time."""
        assert interaction.guild is not None
        info, lines = await self.games.event_log(game_id, interaction.guild.id)
        if not _may_view(interaction, info.channel_id) and not await member_is_gm(
            self.bot, interaction
        ):
            raise no_such_game(game_id)
        embed, page, pages = log_embed(info, lines, page)
        await _paged_reply(interaction, embed, pager_view(LogButton, game_id, page, pages), edit)

    async def act(
        self, interaction: discord.Interaction, game_id: int, version: int, action_id: str
    ) -> None:
        outcome = await self.games.act(game_id, interaction.user.id, version, action_id)
        self.schedule_board(game_id, outcome.game)
        await self._send_hand(
            interaction, outcome.hand, 0, edit=True, notes=outcome.private_events[-5:]
        )

    # ------------------------------------------------------------------ the board
    async def _board_files(self, info: GameInfo) -> list[discord.File]:
        """The board picture as an attachment (none for a game without a picture), drawn by
        the bot's picture workers from the public view only."""
        picture = await self.bot.pictures.draw(info.engine, info.view) if info.view else None
        if picture is None:
            return []
        return [discord.File(io.BytesIO(picture), filename=board_filename(info.id))]

    async def _new_picture(self, info: GameInfo) -> list[discord.File] | None:
        """The board picture to upload, or None when the one posted still shows the table
        (the game's display says so with the same ``picture_key``; drawing is CPU work)."""
        key = picture_key(info)
        if key is not None and self._picture_keys.get(info.id) == key:
            return None
        if self._too_soon_for_a_picture(info):
            return None
        files = await self._board_files(info)
        self._picture_at[info.id] = time.monotonic()
        self._picture_keys.pop(info.id, None)
        if key is not None:
            self._picture_keys[info.id] = key
        return files

    def _too_soon_for_a_picture(self, info: GameInfo) -> bool:
        """A running game keeps the picture it has for PICTURE_EVERY_SECONDS after the last
        one was drawn (drawing is CPU work: tens of ms per picture); one edit of the board
        then brings the picture up to date when that time is over."""
        drawn = self._picture_at.get(info.id)
        every = table_ui.PICTURE_EVERY_SECONDS
        if drawn is None or info.status != "running" or every <= 0:
            return False
        wait = drawn + every - time.monotonic()
        if wait <= 0:
            return False
        if info.id not in self._late_pictures:

            def redraw(game_id: int = info.id) -> None:
                self._late_pictures.pop(game_id, None)
                self.schedule_board(game_id)

            self._late_pictures[info.id] = asyncio.get_running_loop().call_later(wait, redraw)
        return True

    def schedule_board(self, game_id: int, info: GameInfo | None = None) -> None:
        """Edit the public board soon; a burst of calls produces one edit (or two). ``info``:
        the game as the caller's own write left it (with its public view), which the edit
        then shows without reading the game again; without it, or when this process already
        showed a newer version, the edit reads the game."""
        if info is not None and info.version >= self._shown_versions.get(game_id, -1):
            waiting = self._fresh.get(game_id)
            if waiting is None or waiting.version <= info.version:
                self._fresh[game_id] = info
        self._boards.poke(game_id)

    async def _board_parts(self, info: GameInfo, *, new: bool = False) -> dict[str, Any]:
        """What the board message shows now (lobby, board, or the end of an empty lobby); the
        picture only when it changed, or always for a `new` message."""
        if info.status == "lobby":
            return lobby_message(info)
        if info.view is None:  # abandoned in the lobby
            return {"embed": status_embed(info), "view": None}
        parts: dict[str, Any] = {"embed": board_embed(info), "view": board_view(info)}
        if new:  # a new message has no picture yet: draw one now
            self._picture_keys.pop(info.id, None)
            self._picture_at.pop(info.id, None)
        files = await self._new_picture(info)
        if files is not None:  # None: the picture posted is still current, keep it
            parts["files"] = files
        return parts

    async def refresh_board(self, game_id: int) -> None:
        info = self._fresh.pop(game_id, None)
        if info is None or info.version < self._shown_versions.get(game_id, -1):
            info = await self.games.get(game_id)
        self._shown_versions[game_id] = info.version
        if info.board_message_id is None:
            return
        parts = await self._board_parts(info)
        if "files" in parts:
            parts["attachments"] = parts.pop("files")
        try:
            await edit_message(self.bot, info.channel_id, info.board_message_id, **parts)
        except discord.NotFound:  # deleted: a live game gets a new board
            if info.status in ("lobby", "running"):
                await self._post_board(info)

    async def _post_board(self, info: GameInfo) -> None:
        """Post the board again as a new message; it becomes the game's board."""
        channel = self.bot.get_partial_messageable(info.channel_id)
        message = await channel.send(**await self._board_parts(info, new=True))
        await self.games.set_board_message(info.id, message.id)
        self._fresh.pop(info.id, None)  # it names the old board: the next edit reads again

    async def _ensure_board(self, info: GameInfo) -> None:
        """Repost the board of a live game whose board message is gone."""
        if info.status not in ("lobby", "running"):
            return
        if info.board_message_id is not None:
            channel = self.bot.get_partial_messageable(info.channel_id)
            try:
                await channel.fetch_message(info.board_message_id)
                return
            except discord.NotFound:
                pass
            except discord.HTTPException:  # e.g. no longer allowed to read the channel
                log.info("could not look for game %s's board", info.id)
                return
        try:
            await self._post_board(info)
        except discord.HTTPException:  # the command was answered already: only log it
            log.warning("could not repost game %s's board", info.id)

    # ------------------------------------------------------------------ idle games
    async def _idle_loop(self) -> None:
        await self.bot.wait_until_ready()
        while True:
            try:
                await self.check_idle(datetime.now(UTC))
            except Exception:  # noqa: BLE001 - keep the loop alive
                log.exception("idle check failed")
            await asyncio.sleep(self.bot.settings.game_idle_check_seconds)

    async def check_idle(self, now: datetime) -> None:
        settings = self.bot.settings
        notices = await self.games.idle_check(
            now, settings.game_idle_warn_minutes, settings.game_idle_timeout_minutes
        )
        for notice in notices:
            info = notice.game
            channel = self.bot.get_partial_messageable(info.channel_id)
            if notice.kind == "warn":
                left = settings.game_idle_timeout_minutes - notice.idle_minutes
                text = (
                    f"Game #{info.id} ({info.engine_name}) has been idle for {notice.idle_minutes} "
                    f"minutes; it ends in about {max(left, 1)} minutes unless someone acts."
                )
            else:
                text = (
                    f"Game #{info.id} ({info.engine_name}) was idle for {notice.idle_minutes} "
                    "minutes and has been abandoned. Start again with `/game new`."
                )
                self.schedule_board(info.id)
            with contextlib.suppress(discord.HTTPException):
                await channel.send(text)


async def setup(bot: FateTableBot) -> None:
    bot.add_dynamic_items(
        LobbyButton,
        LobbyOptionSelect,
        MoreOptionsSelect,
        HandButton,
        TextsButton,
        LogButton,
        ActionButton,
    )
    await bot.add_cog(GameTable(bot))
