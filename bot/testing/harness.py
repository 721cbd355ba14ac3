"""Drive a real bot through the fake Discord, the way a user would.

    table = await Table.open(bot_factory)
    reply = await table.slash("about", user=table.player)
    assert reply.ephemeral and "Version" in reply.text

A reply collects everything the bot did in answer to one interaction: the original response,
follow-ups, edits, a modal or autocomplete choices. Waiting is event-driven: the harness waits for
the interaction callback, then until no interaction handler task of discord.py (or of the bot,
named "fatetable-...") is still running.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import discord

from bot.testing.fake_discord import (
    ALL_PERMISSIONS,
    EPHEMERAL,
    JSON,
    LOADING,
    FakeDiscord,
    InteractionRecord,
)

BotFactory = Callable[[], Awaitable[discord.Client]]
_BUSY_PREFIXES = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch",
    "discord-ui-dynamic-item",
    "discord-ui-modal-dispatch",
    "discord.py: ",
    "fatetable-",
)
# Background loops that live as long as the bot: never "busy" (they would never settle).
_LONG_LIVED = ("fatetable-idle",)
AUTOCOMPLETE = 4  # the interaction type of an autocomplete request
_OPTION_TYPES = {"string": 3, "integer": 4, "boolean": 5, "user": 6, "channel": 7, "role": 8}


def iter_components(components: list[JSON]) -> Iterator[JSON]:
    for component in components:
        yield component
        for key in ("components",):
            yield from iter_components(component.get(key) or [])
        if "component" in component:
            yield from iter_components([component["component"]])
        if "accessory" in component:
            yield from iter_components([component["accessory"]])


def message_text(message: JSON | None) -> str:
    """Content plus every embed's visible text, for assertions."""
    if not message:
        return ""
    parts = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        for key in ("title", "description"):
            if embed.get(key):
                parts.append(embed[key])
        for fld in embed.get("fields") or []:
            parts.append(f"{fld.get('name', '')}\n{fld.get('value', '')}")
        if (embed.get("footer") or {}).get("text"):
            parts.append(embed["footer"]["text"])
        if (embed.get("author") or {}).get("name"):
            parts.append(embed["author"]["name"])
    return "\n".join(parts)


@dataclass
class Reply:
    fake: FakeDiscord
    record: InteractionRecord

    @property
    def callback_type(self) -> int | None:
        return self.record.callbacks[0].get("type") if self.record.callbacks else None

    @property
    def answered(self) -> bool:
        return bool(self.record.callbacks)

    @property
    def message(self) -> JSON | None:
        """The original response (for a component: the message it updated)."""
        if self.record.original_id is None:
            return None
        return self.fake.messages.get(self.record.original_id)

    @property
    def followups(self) -> list[JSON]:
        return [self.fake.messages[i] for i in self.record.followup_ids if i in self.fake.messages]

    @property
    def messages(self) -> list[JSON]:
        found = [self.message] if self.message else []
        return found + self.followups

    @property
    def ephemeral(self) -> bool:
        message = self.message if self.callback_type in (4, 5) else None
        if message is None and self.followups:
            message = self.followups[0]
        return bool(message and (message.get("flags") or 0) & EPHEMERAL)

    @property
    def private(self) -> bool:
        """Only the one who acted sees the answer: a new ephemeral message, or an ephemeral
        message (the one clicked, or the one a form was opened from) edited in place."""
        if self.callback_type == 7:
            return bool(self.message and (self.message.get("flags") or 0) & EPHEMERAL)
        return self.ephemeral

    @property
    def deferred(self) -> bool:
        return self.record.deferred

    @property
    def content(self) -> str:
        return (self.message or {}).get("content") or ""

    @property
    def embeds(self) -> list[JSON]:
        return (self.message or {}).get("embeds") or []

    @property
    def text(self) -> str:
        """All text of every message of this reply."""
        return "\n".join(message_text(m) for m in self.messages)

    @property
    def modal(self) -> JSON | None:
        return self.record.modal

    @property
    def choices(self) -> list[JSON]:
        return self.record.choices or []

    def components(self, message: JSON | None = None) -> list[JSON]:
        target = message or self.message or {}
        return list(iter_components(target.get("components") or []))

    def buttons(self, message: JSON | None = None) -> list[JSON]:
        return [c for c in self.components(message) if c.get("type") == 2]

    def labels(self, message: JSON | None = None) -> list[str]:
        return [b.get("label") or "" for b in self.buttons(message)]


@dataclass(frozen=True)
class Tally:
    """What a stretch of play cost the people at the table."""

    interactions: int  # slash commands, clicks, menu picks and form submissions (no autocomplete)
    ephemeral: int  # private messages the bot created
    public: int  # messages the bot posted where everyone sees them

    def __sub__(self, other: Tally) -> Tally:
        return Tally(
            self.interactions - other.interactions,
            self.ephemeral - other.ephemeral,
            self.public - other.public,
        )


class Table:
    """A fake Discord with one server, a channel, a GM and three players, plus the bot."""

    def __init__(
        self, fake: FakeDiscord, factory: BotFactory, *, shard: tuple[int, int] | None = None
    ) -> None:
        self.fake = fake
        self.factory = factory
        self.bot: discord.Client | None = None
        self._connect_task: asyncio.Task[None] | None = None
        self.guild_id = fake.add_guild("Fate Night", shard=shard)
        self.gm_role = fake.add_role(self.guild_id, "GM")
        self.channel = fake.add_channel(self.guild_id, "table")
        self.other_channel = fake.add_channel(self.guild_id, "side-table")
        self.gm = fake.add_member(self.guild_id, "gwen-gm", roles=[self.gm_role])
        self.player = fake.add_member(self.guild_id, "alice")
        self.player2 = fake.add_member(self.guild_id, "bob")
        self.player3 = fake.add_member(self.guild_id, "carol")
        self.admin_role = fake.add_role(self.guild_id, "Admins", permissions=1 << 3)
        self.admin = fake.add_member(self.guild_id, "root", roles=[self.admin_role])
        # Where a player uses the app installed to their own account: a server the bot was
        # never added to, and a DM between two players.
        self.elsewhere_guild = fake.add_guild("Another Server", with_bot=False)
        self.elsewhere_channel = fake.add_channel(self.elsewhere_guild, "chat")
        fake.join(self.elsewhere_guild, self.player)
        self.dm = fake.add_private_channel([self.player, self.player2])

    @classmethod
    async def open(cls, factory: BotFactory, *, rival: bool = False) -> Table:
        fake = FakeDiscord()
        await fake.start()
        fake.redirect_discord_py()
        table = cls(fake, factory)
        if rival:
            table.add_rival()
        await table.start_bot()
        return table

    def add_rival(self) -> None:
        """A second server with the bot, whose admin (a GM there) knows nothing of ours: the
        place forged clicks come from. Call before the bot starts (it learns servers then)."""
        self.rival_guild = self.fake.add_guild("Rival Server")
        self.rival_channel = self.fake.add_channel(self.rival_guild, "heist")
        role = self.fake.add_role(self.rival_guild, "Admins", permissions=1 << 3)
        self.rival_gm = self.fake.add_member(self.rival_guild, "mallory", roles=[role])

    async def start_bot(self) -> None:
        self.bot = await self.factory()
        await self.bot.login(FakeDiscord.TOKEN)
        self._connect_task = asyncio.create_task(self.bot.connect(reconnect=False))
        await asyncio.wait_for(self.bot.wait_until_ready(), 15)

    async def stop_bot(self) -> None:
        if self.bot is not None:
            await self.bot.close()
        if self._connect_task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._connect_task, 10)
        self.bot = None

    async def restart(self) -> None:
        """A new bot object on the same database, as after a crash or a deploy."""
        await self.settle()
        await self.stop_bot()
        await self.start_bot()

    async def close(self) -> None:
        await self.stop_bot()
        await self.fake.stop()

    # ----------------------------------------------------------------- waiting
    async def settle(self, timeout: float = 10.0) -> None:
        """Wait until no interaction handler or bot background task is running."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        quiet_rounds = 0
        while loop.time() < deadline:
            me = asyncio.current_task()
            busy = [
                t
                for t in asyncio.all_tasks()
                if t is not me
                and not t.done()
                and t.get_name().startswith(_BUSY_PREFIXES)
                and t.get_name() not in _LONG_LIVED
            ]
            quiet_rounds = 0 if busy else quiet_rounds + 1
            if quiet_rounds >= 3:
                return
            await asyncio.sleep(0.005)

    async def _finish(
        self, record: InteractionRecord, timeout: float, settle: bool = True
    ) -> Reply:
        """The reply once answered, and (`settle`) once every follow-up task of the bot is done;
        without it, as soon as the user sees a real answer (benchmark set-ups, many at once)."""
        with contextlib.suppress(TimeoutError):
            done = record.answered if settle else record.completed
            await asyncio.wait_for(done.wait(), timeout)
        if settle:
            await self.settle()
        return Reply(self.fake, record)

    def _guild_for(self, channel: int) -> int | None:
        """The channel's server (None for a DM): the fake derives the install context from it."""
        return self.fake.guild_of(channel)

    # ----------------------------------------------------------------- slash commands
    def _command_path(self, command: str) -> tuple[JSON, list[str], list[JSON]]:
        words = command.split()
        for cmd in self.fake.commands_for(self.guild_id):
            if cmd["name"] == words[0] and cmd.get("type", 1) == 1:
                options = cmd.get("options") or []
                for word in words[1:]:
                    sub = next(
                        (o for o in options if o["name"] == word and o["type"] in (1, 2)), None
                    )
                    if sub is None:
                        raise AssertionError(f"/{command}: no subcommand {word!r}")
                    options = sub.get("options") or []
                return cmd, words[1:], options
        raise AssertionError(f"/{command} is not a synced command")

    def _build_options(
        self, spec: list[JSON], values: dict[str, Any], focused: str | None
    ) -> tuple[list[JSON], JSON]:
        resolved: JSON = {}
        built = []
        known = {o["name"]: o for o in spec}
        for raw_name, value in values.items():
            name = raw_name.replace("_", "-") if raw_name not in known else raw_name
            if name not in known:
                raise AssertionError(f"unknown option {raw_name!r}; known: {sorted(known)}")
            kind = known[name]["type"]
            entry: JSON = {"name": name, "type": kind, "value": value}
            if kind == 6:
                user = self.fake.users[int(value)]
                member = dict(self.fake.member(self.guild_id, int(value)))
                member.pop("user", None)
                resolved.setdefault("users", {})[str(value)] = user
                resolved.setdefault("members", {})[str(value)] = member
                entry["value"] = str(value)
            elif kind == 8:
                role = next(
                    r for r in self.fake.guilds[self.guild_id]["roles"] if r["id"] == str(value)
                )
                resolved.setdefault("roles", {})[str(value)] = role
                entry["value"] = str(value)
            elif kind == 7:
                channel = dict(self.fake.channels[int(value)])
                channel.setdefault("permissions", str(ALL_PERMISSIONS))  # as Discord resolves it
                resolved.setdefault("channels", {})[str(value)] = channel
                entry["value"] = str(value)
            elif kind == 11:
                attachment = value
                resolved.setdefault("attachments", {})[attachment["id"]] = attachment
                entry["value"] = attachment["id"]
            if focused == name:
                entry["focused"] = True
                entry["type"] = kind
            built.append(entry)
        if focused is not None and focused not in {e["name"] for e in built}:
            built.append(
                {"name": focused, "type": known[focused]["type"], "value": "", "focused": True}
            )
        return built, resolved

    def _command_data(
        self, command: str, options: dict[str, Any], focused: str | None = None
    ) -> JSON:
        cmd, subs, spec = self._command_path(command)
        leaf, resolved = self._build_options(spec, options, focused)
        nested = leaf
        for depth, word in reversed(list(enumerate(subs))):
            kind = 1 if depth == len(subs) - 1 else 2
            nested = [{"name": word, "type": kind, "options": nested}]
        data: JSON = {"id": cmd["id"], "name": cmd["name"], "type": 1, "options": nested}
        if resolved:
            data["resolved"] = resolved
        return data

    async def slash(
        self,
        command: str,
        *,
        user: int,
        channel: int | None = None,
        timeout: float = 10.0,
        settle: bool = True,
        **options: Any,
    ) -> Reply:
        data = self._command_data(command, options)
        where = channel or self.channel
        record = await self.fake.send_interaction(2, self._guild_for(where), where, user, data)
        return await self._finish(record, timeout, settle)

    async def fire(
        self, command: str, *, user: int, channel: int | None = None, **options: Any
    ) -> InteractionRecord:
        """Send a slash command without waiting (benchmarks await `record.completed`)."""
        data = self._command_data(command, options)
        where = channel or self.channel
        return await self.fake.send_interaction(2, self._guild_for(where), where, user, data)

    async def ask(
        self,
        command: str,
        *,
        user: int,
        channel: int | None = None,
        timeout: float = 15.0,
        **options: Any,
    ) -> Reply:
        """A slash command answered by a bot in another process: wait for its real answer."""
        record = await self.fire(command, user=user, channel=channel, **options)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(record.completed.wait(), timeout)
        return Reply(self.fake, record)

    async def autocomplete(
        self, command: str, focused: str, *, user: int, channel: int | None = None, **options: Any
    ) -> list[JSON]:
        data = self._command_data(command, options, focused=focused.replace("_", "-"))
        where = channel or self.channel
        record = await self.fake.send_interaction(4, self._guild_for(where), where, user, data)
        reply = await self._finish(record, 5.0)
        return reply.choices

    # ----------------------------------------------------------------- components and modals
    def _find_component(self, message: JSON, key: str, kind: int | None = None) -> JSON:
        candidates = list(iter_components(message.get("components") or []))
        for component in candidates:
            if kind is not None and component.get("type") != kind:
                continue
            if key in (
                component.get("custom_id"),
                component.get("label"),
                component.get("placeholder"),
            ):
                return component
        for component in candidates:  # a label prefix, e.g. "Invoke" for "Invoke +2"
            if (kind is None or component.get("type") == kind) and (
                component.get("label") or ""
            ).startswith(key):
                return component
        labels = [c.get("label") or c.get("placeholder") or c.get("custom_id") for c in candidates]
        raise AssertionError(f"no component {key!r} on the message; have {labels}")

    @staticmethod
    def _as_message(target: Reply | JSON) -> JSON:
        if isinstance(target, Reply):
            message = target.message or (target.followups[-1] if target.followups else None)
            if message is None:
                raise AssertionError("that reply has no message to click on")
            return message
        return target

    async def click(
        self,
        target: Reply | JSON,
        button: str,
        *,
        user: int,
        timeout: float = 10.0,
        settle: bool = True,
    ) -> Reply:
        message = self._as_message(target)
        component = self._find_component(message, button, 2)
        if component.get("disabled"):
            raise AssertionError(f"button {button!r} is disabled")
        record = await self.fire_click(message, component["custom_id"], user=user)
        return await self._finish(record, timeout, settle)

    async def select(
        self,
        target: Reply | JSON,
        select: str,
        values: list[str],
        *,
        user: int,
        timeout: float = 10.0,
    ) -> Reply:
        message = self._as_message(target)
        component = self._find_component(message, select)
        if component.get("type") not in (3, 5, 6, 7, 8):
            raise AssertionError(f"{select!r} is not a select")
        allowed = {o["value"] for o in component.get("options") or []}
        if component.get("type") == 3:
            unknown = [v for v in values if v not in allowed]
            if unknown:
                raise AssertionError(f"values {unknown} are not options of {select!r}: {allowed}")
        data = {
            "custom_id": component["custom_id"],
            "component_type": component["type"],
            "values": values,
        }
        return await self._component(message, data, user, timeout)

    async def _component(
        self, message: JSON, data: JSON, user: int, timeout: float, settle: bool = True
    ) -> Reply:
        record = await self._send_component(message, data, user)
        return await self._finish(record, timeout, settle)

    async def _send_component(self, message: JSON, data: JSON, user: int) -> InteractionRecord:
        channel = int(message["channel_id"])
        # The event is sent as JSON over the gateway socket, so the stored message is never
        # shared with the bot: a shallow copy without the fake's own keys will do.
        hidden = ("interaction_user_id", "allowed_mentions")
        snapshot = {key: value for key, value in message.items() if key not in hidden}
        return await self.fake.send_interaction(
            3, self._guild_for(channel), channel, user, data, snapshot
        )

    async def fire_click(self, message: JSON, button: str, *, user: int) -> InteractionRecord:
        """Click the button of `message` with this custom id or label without waiting
        (benchmarks await `record.completed`, as after `fire`)."""
        component = self._find_component(message, button, 2)
        return await self.fire_custom_id(message, component["custom_id"], user=user)

    async def fire_custom_id(
        self, message: JSON, custom_id: str, *, user: int
    ) -> InteractionRecord:
        """A button click naming any custom id on `message` as it is, without waiting (as a
        modified client can send: the id need not be on the message)."""
        return await self._send_component(
            message, {"custom_id": custom_id, "component_type": 2}, user
        )

    async def forge(
        self,
        custom_id: str,
        *,
        user: int,
        channel: int,
        values: list[str] | None = None,
        ephemeral: bool = False,
        timeout: float = 10.0,
    ) -> Reply:
        """A click with any custom id, as a modified client can send: a button (or, with
        `values`, a select) on a message of the bot in `channel` (an ephemeral one: a reply
        only the clicker sees)."""
        if values is None:
            component: JSON = {"type": 2, "style": 2, "label": "forged", "custom_id": custom_id}
        else:
            options = [{"label": v, "value": v} for v in values] or [{"label": "-", "value": "-"}]
            component = {"type": 3, "custom_id": custom_id, "options": options}
        rows = [{"type": 1, "components": [component]}]
        message = self.fake.post_as_bot(channel, rows, flags=EPHEMERAL if ephemeral else 0)
        data: JSON = {"custom_id": custom_id, "component_type": component["type"]}
        if values is not None:
            data["values"] = values
        return await self._component(message, data, user, timeout)

    async def forge_form(
        self,
        custom_id: str,
        values: dict[str, str],
        *,
        user: int,
        channel: int,
        timeout: float = 10.0,
    ) -> Reply:
        """A form submission with any custom id and answers, as a modified client can send."""
        rows = [
            {"type": 1, "components": [{"type": 4, "custom_id": key, "value": value}]}
            for key, value in values.items()
        ]
        data = {"custom_id": custom_id, "components": rows}
        record = await self.fake.send_interaction(5, self._guild_for(channel), channel, user, data)
        return await self._finish(record, timeout)

    async def submit(
        self, reply: Reply, values: dict[str, str | list[str]], *, user: int, timeout: float = 10.0
    ) -> Reply:
        """Fill the modal that `reply` opened (values by input custom_id or label) and submit it."""
        modal = reply.modal
        if modal is None:
            raise AssertionError("that reply did not open a modal")
        components = []
        for top in modal.get("components") or []:
            inner = top["components"][0] if top.get("type") == 1 else top.get("component", top)
            key = inner.get("custom_id")
            label = top.get("label") or inner.get("label")
            value = values.get(key, values.get(label or "", inner.get("value") or ""))
            if inner.get("type") == 4:
                answer: JSON = {"type": 4, "custom_id": key, "value": value}
            else:
                answer = {"type": inner.get("type"), "custom_id": key, "values": list(value)}
            if top.get("type") == 1:
                components.append({"type": 1, "components": [answer]})
            else:
                components.append({"type": 18, "component": answer})
        unknown = (
            set(values)
            - {
                (t["components"][0] if t.get("type") == 1 else t.get("component", t)).get(
                    "custom_id"
                )
                for t in modal.get("components") or []
            }
            - {t.get("label") for t in modal.get("components") or []}
        )
        if unknown:
            raise AssertionError(f"modal has no inputs {sorted(unknown)}")
        data = {"custom_id": modal["custom_id"], "components": components}
        channel = reply.record.channel_id
        # Discord sends a form opened from a button or menu with the message it sits on, so
        # the answer may edit that message in place.
        source = self.fake.messages.get(reply.record.source_message_id or 0)
        snapshot = None
        if source is not None:
            snapshot = json.loads(json.dumps(source))
            snapshot.pop("interaction_user_id", None)
            snapshot.pop("allowed_mentions", None)
        record = await self.fake.send_interaction(
            5, self._guild_for(channel), channel, user, data, snapshot
        )
        return await self._finish(record, timeout)

    # ----------------------------------------------------------------- reading the channel
    def tally(self) -> Tally:
        """Interactions so far and the messages they (and the bot on its own) created.

        A message counts once it said something, even if it was deleted later (someone may
        have read it). A deferred answer deleted while still "thinking" never said anything
        and is gone: it is not a message anyone reads, so it is not counted (the interaction
        that caused it is)."""
        interactions = sum(1 for r in self.fake.interactions.values() if r.type != AUTOCOMPLETE)
        read = [
            m for m in self.fake.sent if not (m.get("deleted") and (m.get("flags") or 0) & LOADING)
        ]
        private = sum(1 for m in read if (m.get("flags") or 0) & EPHEMERAL)
        return Tally(interactions, private, len(read) - private)

    def channel_messages(self, channel: int | None = None) -> list[JSON]:
        return self.fake.channel_messages(channel or self.channel)

    def message(self, message_id: int | str) -> JSON:
        return self.fake.messages[int(message_id)]


def shown_text(reply_or_message: Reply | JSON | None) -> str:
    """Everything a person sees of a reply or message: its text and every button label and
    select placeholder (what leak scans read)."""
    message = reply_or_message.message if isinstance(reply_or_message, Reply) else reply_or_message
    labels = [
        (c.get("label") or "") + " " + (c.get("placeholder") or "")
        for c in iter_components((message or {}).get("components") or [])
    ]
    return message_text(message) + "\n" + "\n".join(labels)
