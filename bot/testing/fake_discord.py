"""An in-memory Discord: REST under /api/v10 and a gateway websocket, on 127.0.0.1.

The real, unmodified discord.py client talks to it (see `redirect_discord_py`). It keeps guilds,
channels, members, roles and messages, records every request, and can be told to answer the next
matching request with one of Discord's real errors. It is deliberately small: it implements what
a slash-command bot uses, and answers anything else with 404 so that a missing route is loud.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord
import discord.gateway
import discord.http
import orjson
import yarl
from aiohttp import WSMsgType, web

JSON = dict[str, Any]
EPHEMERAL = 1 << 6
LOADING = 1 << 7  # a deferred answer still "thinking": it has said nothing yet
ADMINISTRATOR = 1 << 3
ALL_PERMISSIONS = (1 << 50) - 1
MEMBER_PERMISSIONS = (
    (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 6) | (1 << 31)
)  # view, send, embed, attach, read history, add reactions, use application commands
# What a user-installed app may do where the bot is not a member: answer its interactions.
USER_APP_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16)
BODY: web.RequestKey[Any] = web.RequestKey("body", object)
FILES: web.RequestKey[list[tuple[str, bytes]]] = web.RequestKey("files", list)
_snowflakes = itertools.count(1_100_000_000_000_000_000)


def new_id() -> int:
    return next(_snowflakes)


def new_id_on_shard(shard: int, count: int) -> int:
    """A fresh snowflake that, as a guild id, belongs to `shard` of `count` ((id >> 22) % count).
    Plain ids are consecutive, so they would all land on one shard."""
    base = new_id()
    high = (base >> 22) + (shard - (base >> 22)) % count
    return (high << 22) | (base & ((1 << 22) - 1))


def redirect_discord_py_to(port: int) -> None:
    """Point the whole process's discord.py at a fake on this port (REST, webhooks, gateway)."""
    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gateway")


def _now() -> str:
    return datetime.now(UTC).isoformat()


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    # discord.py only decodes JSON when the content type is exactly "application/json".
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    return web.Response(body=orjson.dumps(data), status=status, headers=all_headers)


# The fake stands in for Discord's servers, whose work is not the bot's: it encodes with orjson
# (json.dumps escaped every non-ASCII character of a hand message, about 0.5M instructions a
# click that the benchmark counted against the bot).
def _to_text(data: Any) -> str:
    return orjson.dumps(data).decode()


@dataclass
class Recorded:
    method: str
    path: str
    body: Any
    at: float


@dataclass
class Failure:
    method: str
    pattern: re.Pattern[str]
    status: int
    code: int
    message: str
    retry_after: float
    remaining: int


@dataclass
class InteractionRecord:
    """Everything the bot did in answer to one interaction."""

    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    source_message_id: int | None = None
    callbacks: list[JSON] = field(default_factory=list)
    original_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    edited_ids: list[int] = field(default_factory=list)
    choices: list[JSON] | None = None
    modal: JSON | None = None
    deferred: bool = False
    ephemeral: bool = False
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    # For benchmarks: when the fake sent it, and when the user saw a real answer (for a
    # deferred interaction that is the first follow-up or edit, not the "thinking" state).
    sent_at: float = 0.0
    completed_at: float | None = None
    completed: asyncio.Event = field(default_factory=asyncio.Event)

    def complete(self) -> None:
        if self.completed_at is None:
            self.completed_at = time.perf_counter()
            self.completed.set()


_PART_NAME = re.compile(rb'(?:^|[;\s])name="([^"]*)"', re.M)
_PART_FILENAME = re.compile(rb'filename="([^"]*)"')


def _form_parts(content_type: str, body: bytes) -> tuple[Any, list[tuple[str, bytes]]]:
    """The payload and files of a multipart/form-data body as discord.py sends it (its
    `payload_json` part and one part per file). Parsed here by hand: aiohttp's multipart reader
    parses every header with the email package, about 0.3 ms a message with a picture, which
    the bench would count against the bot; Discord's servers are not the bot's cost."""
    boundary = content_type.partition("boundary=")[2].split(";")[0].strip().strip('"')
    payload: Any = None
    files: list[tuple[str, bytes]] = []
    for part in body.split(b"--" + boundary.encode())[1:]:
        if part.startswith(b"--"):  # the closing delimiter
            break
        head, _, data = part.partition(b"\r\n\r\n")
        data = data.removesuffix(b"\r\n")
        name = _PART_NAME.search(head)
        if name is not None and name.group(1) == b"payload_json":
            payload = orjson.loads(data)
        else:
            filename = _PART_FILENAME.search(head)
            files.append((filename.group(1).decode() if filename else "file", data))
    return payload, files


class FakeDiscord:
    APPLICATION_ID = 100_000_000_000_000_001
    BOT_USER_ID = 100_000_000_000_000_002
    TOKEN = "fake-token"

    def __init__(self) -> None:
        self.users: dict[int, JSON] = {}
        self.guilds: dict[int, JSON] = {}
        # Guilds the bot was added to (it gets their GUILD_CREATE); the others exist only for
        # users who installed the app to their account and use it there.
        self.bot_guilds: set[int] = set()
        # Direct messages and group DMs between users: the bot is not in them and cannot post
        # there, but a user-installed app's commands work in them.
        self.private_channels: dict[int, JSON] = {}
        self.channels: dict[int, JSON] = {}
        self.messages: dict[int, JSON] = {}
        # Every message the bot created, in order, deleted ones included (for counting noise).
        self.sent: list[JSON] = []
        self.pins: dict[int, list[int]] = {}
        self.attachments: dict[int, tuple[str, bytes]] = {}
        self.global_commands: list[JSON] = []
        self.guild_commands: dict[int, list[JSON]] = {}
        self.sync_calls: list[tuple[int | None, int]] = []
        self.requests: list[Recorded] = []
        self.interactions: dict[int, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self._failures: list[Failure] = []
        self._sockets: list[tuple[web.WebSocketResponse, int, int]] = []
        self._seq = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.reject_token = False
        self.one_socket_per_event = False
        self._turns = itertools.count()
        self.bot_user = self._user_payload(self.BOT_USER_ID, "Fate Table", bot=True)
        self.users[self.BOT_USER_ID] = self.bot_user

    # ----------------------------------------------------------------- world building
    @staticmethod
    def _user_payload(user_id: int, name: str, *, bot: bool = False) -> JSON:
        return {
            "id": str(user_id),
            "username": name,
            "global_name": name,
            "discriminator": "0",
            "avatar": None,
            "bot": bot,
            "public_flags": 0,
        }

    def add_guild(
        self,
        name: str = "Test Server",
        *,
        owner_id: int | None = None,
        with_bot: bool = True,
        shard: tuple[int, int] | None = None,
    ) -> int:
        """A server; `with_bot=False` makes one the bot was never added to; `shard=(k, count)`
        one that shard k of count serves."""
        guild_id = new_id_on_shard(*shard) if shard else new_id()
        everyone = {
            "id": str(guild_id),
            "name": "@everyone",
            "color": 0,
            "hoist": False,
            "position": 0,
            "permissions": str(MEMBER_PERMISSIONS),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }
        self.guilds[guild_id] = {
            "id": str(guild_id),
            "name": name,
            "icon": None,
            "splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(owner_id or self.BOT_USER_ID),
            "roles": [everyone],
            "emojis": [],
            "stickers": [],
            "features": [],
            "channels": [],
            "members": [self._member_payload(self.BOT_USER_ID, [])] if with_bot else [],
            "threads": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "voice_states": [],
            "presences": [],
            "large": False,
            "unavailable": False,
            "joined_at": _now(),
            "preferred_locale": "en-US",
            "premium_tier": 0,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "system_channel_flags": 0,
            "afk_timeout": 300,
            "member_count": 1 if with_bot else 0,
        }
        if with_bot:
            self.bot_guilds.add(guild_id)
        return guild_id

    def add_role(self, guild_id: int, name: str, *, permissions: int = 0) -> int:
        role_id = new_id()
        roles = self.guilds[guild_id]["roles"]
        roles.append(
            {
                "id": str(role_id),
                "name": name,
                "color": 0,
                "hoist": False,
                "position": len(roles),
                "permissions": str(permissions),
                "managed": False,
                "mentionable": True,
                "flags": 0,
            }
        )
        return role_id

    def add_channel(self, guild_id: int, name: str = "general") -> int:
        channel_id = new_id()
        payload = {
            "id": str(channel_id),
            "type": 0,
            "guild_id": str(guild_id),
            "name": name,
            "position": len(self.guilds[guild_id]["channels"]),
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
        }
        self.channels[channel_id] = payload
        self.guilds[guild_id]["channels"].append(payload)
        return channel_id

    def add_member(self, guild_id: int, name: str, *, roles: list[int] | None = None) -> int:
        user_id = new_id()
        self.users[user_id] = self._user_payload(user_id, name)
        guild = self.guilds[guild_id]
        guild["members"].append(self._member_payload(user_id, roles or []))
        guild["member_count"] += 1
        return user_id

    def join(self, guild_id: int, user_id: int) -> None:
        """An existing user joins another server."""
        guild = self.guilds[guild_id]
        guild["members"].append(self._member_payload(user_id, []))
        guild["member_count"] += 1

    def add_private_channel(self, user_ids: list[int]) -> int:
        """A DM between two users (or a group DM for more), without the bot."""
        channel_id = new_id()
        self.private_channels[channel_id] = {
            "id": str(channel_id),
            "type": 1 if len(user_ids) == 2 else 3,
            "recipients": [self.users[u] for u in user_ids],
            "last_message_id": None,
            "name": None,
            "icon": None,
            "owner_id": str(user_ids[0]),
        }
        return channel_id

    def guild_of(self, channel_id: int) -> int | None:
        """The channel's server, or None for a private channel."""
        channel = self.channels.get(channel_id)
        return int(channel["guild_id"]) if channel is not None else None

    def _member_payload(self, user_id: int, roles: list[int]) -> JSON:
        return {
            "user": self.users[user_id],
            "roles": [str(r) for r in roles],
            "joined_at": _now(),
            "deaf": False,
            "mute": False,
            "nick": None,
            "flags": 0,
            "pending": False,
        }

    def member(self, guild_id: int, user_id: int) -> JSON:
        for member in self.guilds[guild_id]["members"]:
            if int(member["user"]["id"]) == user_id:
                return member
        raise KeyError(f"user {user_id} is not a member of guild {guild_id}")

    def permissions_of(self, guild_id: int, user_id: int) -> int:
        guild = self.guilds[guild_id]
        if int(guild["owner_id"]) == user_id:
            return ALL_PERMISSIONS
        member = self.member(guild_id, user_id)
        value = 0
        for role in guild["roles"]:
            if role["id"] == str(guild_id) or role["id"] in member["roles"]:
                value |= int(role["permissions"])
        return ALL_PERMISSIONS if value & ADMINISTRATOR else value

    # ----------------------------------------------------------------- errors on demand
    def fail_next(
        self,
        method: str,
        path_pattern: str,
        *,
        status: int,
        code: int = 0,
        message: str = "",
        retry_after: float = 0.05,
        times: int = 1,
    ) -> None:
        """Answer the next `times` requests matching METHOD and a path regex with an error."""
        self._failures.append(
            Failure(method, re.compile(path_pattern), status, code, message, retry_after, times)
        )

    def _take_failure(self, method: str, path: str) -> Failure | None:
        for failure in self._failures:
            if failure.method == method and failure.pattern.search(path) and failure.remaining:
                failure.remaining -= 1
                if not failure.remaining:
                    self._failures.remove(failure)
                return failure
        return None

    @staticmethod
    def _error_response(failure: Failure) -> web.Response:
        if failure.status == 429:
            headers = {
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": str(failure.retry_after),
                "X-RateLimit-Reset": str(time.time() + failure.retry_after),
                "X-RateLimit-Bucket": "fake-bucket",
                "X-RateLimit-Scope": "user",
                "Retry-After": str(failure.retry_after),
                "Via": "1.1 google",  # discord.py treats a 429 without it as a Cloudflare ban
            }
            body = {
                "message": "You are being rate limited.",
                "retry_after": failure.retry_after,
                "global": False,
                "code": failure.code,
            }
            return json_response(body, 429, headers)
        return json_response({"code": failure.code, "message": failure.message}, failure.status)

    # ----------------------------------------------------------------- server lifecycle
    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        api = "/api/v10"
        routes = [
            ("GET", "/gateway", self._gateway),
            ("GET", f"{api}/gateway", self._gateway_info),
            ("GET", f"{api}/gateway/bot", self._gateway_info),
            ("GET", f"{api}/users/@me", self._me),
            ("GET", f"{api}/oauth2/applications/@me", self._application),
            ("GET", f"{api}/applications/@me", self._application),
            ("PUT", f"{api}/applications/{{app}}/commands", self._put_commands),
            ("GET", f"{api}/applications/{{app}}/commands", self._get_commands),
            ("PUT", f"{api}/applications/{{app}}/guilds/{{guild}}/commands", self._put_commands),
            ("GET", f"{api}/applications/{{app}}/guilds/{{guild}}/commands", self._get_commands),
            ("POST", f"{api}/channels/{{channel}}/messages", self._create_message),
            ("GET", f"{api}/channels/{{channel}}/messages/{{message}}", self._get_message),
            ("PATCH", f"{api}/channels/{{channel}}/messages/{{message}}", self._edit_message),
            ("DELETE", f"{api}/channels/{{channel}}/messages/{{message}}", self._delete_message),
            ("PUT", f"{api}/channels/{{channel}}/messages/pins/{{message}}", self._pin),
            ("DELETE", f"{api}/channels/{{channel}}/messages/pins/{{message}}", self._unpin),
            ("PUT", f"{api}/channels/{{channel}}/pins/{{message}}", self._pin),
            ("DELETE", f"{api}/channels/{{channel}}/pins/{{message}}", self._unpin),
            ("GET", f"{api}/channels/{{channel}}", self._get_channel),
            ("POST", f"{api}/interactions/{{id}}/{{token}}/callback", self._callback),
            ("POST", f"{api}/webhooks/{{app}}/{{token}}", self._followup),
            ("GET", f"{api}/webhooks/{{app}}/{{token}}/messages/{{message}}", self._wh_get),
            ("PATCH", f"{api}/webhooks/{{app}}/{{token}}/messages/{{message}}", self._wh_edit),
            ("DELETE", f"{api}/webhooks/{{app}}/{{token}}/messages/{{message}}", self._wh_delete),
            ("GET", "/attachments/{id}/{name}", self._attachment),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, path, handler)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server: Any = site._server
        self.port = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        for ws, _, _ in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def redirect_discord_py(self) -> None:
        """Point the whole process's discord.py at this fake (REST, webhooks and gateway)."""
        redirect_discord_py_to(self.port)

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[..., Any]
    ) -> web.StreamResponse:
        if request.path == "/gateway":
            return await handler(request)  # type: ignore[no-any-return]
        body, files = await self._read_body(request)
        request[BODY] = body
        request[FILES] = files
        self.requests.append(Recorded(request.method, request.path, body, time.monotonic()))
        auth = request.headers.get("Authorization", "")
        if self.reject_token and request.path.endswith("/users/@me"):
            return json_response({"code": 0, "message": "401: Unauthorized"}, 401)
        if request.path.startswith("/api/") and "/webhooks/" not in request.path:
            if "/interactions/" not in request.path and auth != f"Bot {self.TOKEN}":
                return json_response({"code": 0, "message": "401: Unauthorized"}, 401)
        failure = self._take_failure(request.method, request.path)
        if failure is not None:
            return self._error_response(failure)
        return await handler(request)  # type: ignore[no-any-return]

    @staticmethod
    async def _read_body(request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
        if not request.can_read_body:
            return None, []
        body = await request.read()
        content_type = request.headers.get("Content-Type", "")
        if content_type.startswith("multipart/"):
            return _form_parts(content_type, body)
        return (orjson.loads(body) if body else None), []

    # ----------------------------------------------------------------- gateway
    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        await ws.send_str(
            _to_text({"op": 10, "d": {"heartbeat_interval": 41_250}, "s": None, "t": None})
        )
        shard = [0, 1]
        entry: tuple[web.WebSocketResponse, int, int] | None = None
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = orjson.loads(msg.data)
                op = frame.get("op")
                if op == 1:
                    await ws.send_str(_to_text({"op": 11, "d": None, "s": None, "t": None}))
                elif op in (2, 6):
                    shard = (frame.get("d") or {}).get("shard") or [0, 1]
                    entry = (ws, shard[0], shard[1])
                    self._sockets.append(entry)
                    await self._send_ready(ws, shard)
        finally:
            if entry in self._sockets:
                self._sockets.remove(entry)
        return ws

    def _shard_of(self, guild_id: int, count: int) -> int:
        return (guild_id >> 22) % count

    async def _send_ready(self, ws: web.WebSocketResponse, shard: list[int]) -> None:
        mine = [g for g in self.bot_guilds if self._shard_of(g, shard[1]) == shard[0]]
        ready = {
            "v": 10,
            "user": self.bot_user,
            "session_id": f"session-{new_id()}",
            "resume_gateway_url": f"ws://127.0.0.1:{self.port}/gateway",
            "guilds": [{"id": str(g), "unavailable": True} for g in mine],
            "application": {"id": str(self.APPLICATION_ID), "flags": 0},
            "shard": shard,
        }
        await self._send(ws, "READY", ready)
        for guild_id in mine:
            await self._send(ws, "GUILD_CREATE", self.guilds[guild_id])

    async def _send(self, ws: web.WebSocketResponse, event: str, data: JSON) -> None:
        await ws.send_str(_to_text({"op": 0, "t": event, "s": next(self._seq), "d": data}))

    async def dispatch(self, event: str, data: JSON, guild_id: int | None = None) -> None:
        """Send a gateway event to the shard that owns the guild (shard 0 for DMs); with
        `one_socket_per_event`, to one of the sockets serving that shard, in turn (two
        processes on one shard: each event reaches one of them, so two clicks race)."""
        owners = [
            ws
            for ws, shard_id, count in list(self._sockets)
            if (self._shard_of(guild_id, count) if guild_id else 0) == shard_id and not ws.closed
        ]
        if self.one_socket_per_event and owners:
            owners = [owners[next(self._turns) % len(owners)]]
        for ws in owners:
            await self._send(ws, event, data)

    @property
    def connected(self) -> int:
        return len(self._sockets)

    async def _gateway_info(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "url": f"ws://127.0.0.1:{self.port}/gateway",
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 1000,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    # ----------------------------------------------------------------- REST: identity & commands
    async def _me(self, request: web.Request) -> web.Response:
        return json_response(self.bot_user)

    async def _application(self, request: web.Request) -> web.Response:
        owner = self._user_payload(100_000_000_000_000_003, "owner")
        return json_response(
            {
                "id": str(self.APPLICATION_ID),
                "name": "Fate Table",
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": owner,
                "verify_key": "0" * 64,
                "flags": 0,
            }
        )

    async def _put_commands(self, request: web.Request) -> web.Response:
        commands = []
        for cmd in request[BODY] or []:
            stored = dict(cmd)
            stored.setdefault("id", str(new_id()))
            stored["application_id"] = str(self.APPLICATION_ID)
            stored["version"] = str(new_id())
            stored.setdefault("type", 1)
            commands.append(stored)
        guild = request.match_info.get("guild")
        if guild:
            self.guild_commands[int(guild)] = commands
        else:
            self.global_commands = commands
        self.sync_calls.append((int(guild) if guild else None, len(commands)))
        return json_response(commands)

    async def _get_commands(self, request: web.Request) -> web.Response:
        guild = request.match_info.get("guild")
        return json_response(
            self.guild_commands.get(int(guild), []) if guild else self.global_commands
        )

    def commands_for(self, guild_id: int | None) -> list[JSON]:
        if guild_id is not None and guild_id in self.guild_commands:
            return self.guild_commands[guild_id] + self.global_commands
        return self.global_commands

    # ----------------------------------------------------------------- REST: messages
    def _store_files(self, files: list[tuple[str, bytes]], metas: list[JSON] | None) -> list[JSON]:
        stored = []
        for index, (filename, data) in enumerate(files):
            attachment_id = new_id()
            name = filename
            if metas and index < len(metas):
                name = metas[index].get("filename") or filename
            self.attachments[attachment_id] = (name, data)
            url = f"{self.base_url}/attachments/{attachment_id}/{name}"
            stored.append(
                {
                    "id": str(attachment_id),
                    "filename": name,
                    "size": len(data),
                    "url": url,
                    "proxy_url": url,
                    "content_type": "application/octet-stream",
                }
            )
        return stored

    def add_attachment(self, filename: str, data: bytes) -> JSON:
        """A user upload, for slash-command attachment options."""
        return self._store_files([(filename, data)], None)[0]

    def _new_message(self, channel_id: int, body: JSON, files: list[tuple[str, bytes]]) -> JSON:
        body = body or {}
        channel = self.channels.get(channel_id)
        message_id = new_id()
        message: JSON = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "author": self.bot_user,
            "content": body.get("content") or "",
            "timestamp": _now(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": self._store_files(files, body.get("attachments")),
            "embeds": body.get("embeds") or [],
            "components": self._components_as_sent(body.get("components") or []),
            "pinned": False,
            "type": 0,
            "flags": body.get("flags") or 0,
            "allowed_mentions": body.get("allowed_mentions"),
        }
        if channel is not None:
            message["guild_id"] = channel["guild_id"]
        self.messages[message_id] = message
        self.sent.append(message)
        return message

    def post_as_bot(self, channel_id: int, components: list[JSON], *, flags: int = 0) -> JSON:
        """A message of the bot carrying `components`, as if it had posted them (tests forge
        clicks on it: Discord delivers any custom id a modified client sends)."""
        return self._new_message(channel_id, {"components": components, "flags": flags}, [])

    @staticmethod
    def _components_as_sent(components: list[JSON]) -> list[JSON]:
        """Discord gives each component back with an id; discord.py tolerates that."""
        return orjson.loads(orjson.dumps(components))

    def _apply_edit(self, message: JSON, body: JSON, files: list[tuple[str, bytes]]) -> JSON:
        body = body or {}
        for key in ("content", "embeds", "components", "flags"):
            if key in body and body[key] is not None:
                message[key] = body[key]
            elif key in body and key in ("embeds", "components"):
                message[key] = []
        if "content" in body and body["content"] is None:
            message["content"] = ""
        if "attachments" in body:
            kept = {str(a.get("id")) for a in body["attachments"] or [] if a.get("id") is not None}
            message["attachments"] = [a for a in message["attachments"] if a["id"] in kept]
        if files:
            message["attachments"] = message["attachments"] + self._store_files(files, None)
        if "allowed_mentions" in body:
            message["allowed_mentions"] = body["allowed_mentions"]
        message["edited_timestamp"] = _now()
        return message

    def _message_or_404(self, message_id: int) -> JSON | None:
        return self.messages.get(message_id)

    async def _create_message(self, request: web.Request) -> web.Response:
        channel_id = int(request.match_info["channel"])
        if channel_id in self.private_channels or (
            channel_id in self.channels and self.guild_of(channel_id) not in self.bot_guilds
        ):
            return json_response({"code": 50001, "message": "Missing Access"}, 403)
        if channel_id not in self.channels:
            return json_response({"code": 10003, "message": "Unknown Channel"}, 404)
        return json_response(self._new_message(channel_id, request[BODY], request[FILES]))

    async def _get_message(self, request: web.Request) -> web.Response:
        message = self._message_or_404(int(request.match_info["message"]))
        if message is None:
            return json_response({"code": 10008, "message": "Unknown Message"}, 404)
        return json_response(message)

    async def _edit_message(self, request: web.Request) -> web.Response:
        message = self._message_or_404(int(request.match_info["message"]))
        if message is None:
            return json_response({"code": 10008, "message": "Unknown Message"}, 404)
        return json_response(self._apply_edit(message, request[BODY], request[FILES]))

    async def _delete_message(self, request: web.Request) -> web.Response:
        gone = self.messages.pop(int(request.match_info["message"]), None)
        if gone is not None:
            gone["deleted"] = True
        return web.Response(status=204)

    async def _pin(self, request: web.Request) -> web.Response:
        channel_id, message_id = (
            int(request.match_info["channel"]),
            int(request.match_info["message"]),
        )
        message = self._message_or_404(message_id)
        if message is None:
            return json_response({"code": 10008, "message": "Unknown Message"}, 404)
        message["pinned"] = True
        self.pins.setdefault(channel_id, []).append(message_id)
        return web.Response(status=204)

    async def _unpin(self, request: web.Request) -> web.Response:
        channel_id, message_id = (
            int(request.match_info["channel"]),
            int(request.match_info["message"]),
        )
        if message_id in self.pins.get(channel_id, []):
            self.pins[channel_id].remove(message_id)
        if message_id in self.messages:
            self.messages[message_id]["pinned"] = False
        return web.Response(status=204)

    async def _get_channel(self, request: web.Request) -> web.Response:
        channel = self.channels.get(int(request.match_info["channel"]))
        if channel is None:
            return json_response({"code": 10003, "message": "Unknown Channel"}, 404)
        return json_response(channel)

    async def _attachment(self, request: web.Request) -> web.Response:
        entry = self.attachments.get(int(request.match_info["id"]))
        if entry is None:
            return web.Response(status=404)
        return web.Response(body=entry[1], content_type="application/octet-stream")

    # ----------------------------------------------------------------- REST: interactions
    async def _callback(self, request: web.Request) -> web.Response:
        record = self.interactions.get(int(request.match_info["id"]))
        if record is None or record.token != request.match_info["token"]:
            return json_response({"code": 10062, "message": "Unknown interaction"}, 404)
        if record.callbacks:
            return json_response(
                {"code": 40060, "message": "Interaction has already been acknowledged."}, 400
            )
        body = request[BODY] or {}
        record.callbacks.append(body)
        kind = body.get("type")
        data = body.get("data") or {}
        message: JSON | None = None
        if kind == 4:  # a new message
            record.ephemeral = bool((data.get("flags") or 0) & EPHEMERAL)
            message = self._new_message(record.channel_id, data, request[FILES])
            record.original_id = int(message["id"])
        elif kind == 5:  # deferred: "thinking", the real answer comes as an edit of @original
            record.deferred = True
            record.ephemeral = bool((data.get("flags") or 0) & EPHEMERAL)
            message = self._new_message(record.channel_id, {"flags": data.get("flags") or 0}, [])
            message["flags"] = (data.get("flags") or 0) | LOADING
            record.original_id = int(message["id"])
        elif kind == 6:  # deferred update of the component's message
            record.deferred = True
            record.original_id = record.source_message_id
        elif kind == 7:  # update the component's message
            record.original_id = record.source_message_id
            source = self.messages.get(record.source_message_id or 0)
            if source is not None:
                message = self._apply_edit(source, data, request[FILES])
                record.edited_ids.append(int(source["id"]))
        elif kind == 8:
            record.choices = data.get("choices") or []
        elif kind == 9:
            record.modal = data
        if message is not None and kind in (4, 5):
            message["interaction_user_id"] = str(record.user_id)
        record.answered.set()
        if kind not in (5, 6):
            record.complete()
        payload = {
            "interaction": {
                "id": str(record.id),
                "type": record.type,
                "response_message_id": message["id"] if message else None,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": record.ephemeral,
            },
            "resource": {"type": kind, "message": message} if message else {"type": kind},
        }
        return json_response(payload)

    def _record_by_token(self, token: str) -> InteractionRecord | None:
        return self._by_token.get(token)

    async def _followup(self, request: web.Request) -> web.Response:
        record = self._record_by_token(request.match_info["token"])
        if record is None:
            return json_response({"code": 10015, "message": "Unknown Webhook"}, 404)
        body = request[BODY] or {}
        message = self._new_message(record.channel_id, body, request[FILES])
        message["interaction_user_id"] = str(record.user_id)
        record.followup_ids.append(int(message["id"]))
        record.complete()
        return json_response(message)

    def _webhook_target(self, request: web.Request) -> tuple[InteractionRecord | None, JSON | None]:
        record = self._record_by_token(request.match_info["token"])
        if record is None:
            return None, None
        key = request.match_info["message"]
        message_id = record.original_id if key == "@original" else int(key)
        return record, self.messages.get(message_id or 0)

    async def _wh_get(self, request: web.Request) -> web.Response:
        record, message = self._webhook_target(request)
        if message is None:
            return json_response({"code": 10008, "message": "Unknown Message"}, 404)
        return json_response(message)

    async def _wh_edit(self, request: web.Request) -> web.Response:
        record, message = self._webhook_target(request)
        if record is None or message is None:
            return json_response({"code": 10008, "message": "Unknown Message"}, 404)
        message["flags"] = (message.get("flags") or 0) & ~LOADING
        self._apply_edit(message, request[BODY], request[FILES])
        record.edited_ids.append(int(message["id"]))
        record.complete()
        return json_response(message)

    async def _wh_delete(self, request: web.Request) -> web.Response:
        record, message = self._webhook_target(request)
        if message is not None:
            self.messages.pop(int(message["id"]), None)
            message["deleted"] = True  # kept in `sent`, marked: see Table.tally
        if record is not None:
            record.complete()  # the answer is that nothing stays
        return web.Response(status=204)

    # ----------------------------------------------------------------- sending interactions
    def _interaction_base(
        self, kind: int, guild_id: int | None, channel_id: int, user_id: int
    ) -> JSON:
        """An interaction as Discord sends it. Where it comes from sets how the app is installed
        there: a server the bot was added to is a guild install (context 0, owner key "0");
        a server without the bot or a private channel is the user's own install of the app
        (owner key "1" = the user; context 0 in a server, 2 in a DM or group DM)."""
        interaction_id = new_id()
        token = f"token-{interaction_id}"
        record = InteractionRecord(interaction_id, token, kind, user_id, channel_id)
        self.interactions[interaction_id] = record
        self._by_token[token] = record
        payload: JSON = {
            "id": str(interaction_id),
            "application_id": str(self.APPLICATION_ID),
            "type": kind,
            "token": token,
            "version": 1,
            "attachment_size_limit": 8 * 1024 * 1024,
            "channel_id": str(channel_id),
            "locale": "en-US",
            "entitlements": [],
        }
        if guild_id is None:
            payload.update(
                channel=self.private_channels[channel_id],
                user=self.users[user_id],
                app_permissions=str(USER_APP_PERMISSIONS),
                authorizing_integration_owners={"1": str(user_id)},
                context=2,
            )
            return payload
        member = dict(self.member(guild_id, user_id))
        member["permissions"] = str(self.permissions_of(guild_id, user_id))
        installed_here = guild_id in self.bot_guilds
        payload.update(
            guild_id=str(guild_id),
            guild={"id": str(guild_id), "locale": "en-US", "features": []},
            guild_locale="en-US",
            channel=self.channels[channel_id],
            member=member,
            app_permissions=str(ALL_PERMISSIONS if installed_here else USER_APP_PERMISSIONS),
            authorizing_integration_owners=(
                {"0": str(guild_id)} if installed_here else {"1": str(user_id)}
            ),
            context=0,
        )
        return payload

    async def send_interaction(
        self,
        kind: int,
        guild_id: int | None,
        channel_id: int,
        user_id: int,
        data: JSON,
        message: JSON | None = None,
    ) -> InteractionRecord:
        payload = self._interaction_base(kind, guild_id, channel_id, user_id)
        payload["data"] = data
        record = self.interactions[int(payload["id"])]
        if message is not None:
            payload["message"] = message
            record.source_message_id = int(message["id"])
        record.sent_at = time.perf_counter()
        await self.dispatch("INTERACTION_CREATE", payload, guild_id)
        return record

    # ----------------------------------------------------------------- reading what the bot sent
    def channel_messages(self, channel_id: int) -> list[JSON]:
        """Messages everyone in the channel can see (ephemeral ones excluded)."""
        return [
            m
            for m in self.messages.values()
            if m["channel_id"] == str(channel_id) and not (m.get("flags", 0) & EPHEMERAL)
        ]

    def public_messages(self) -> list[JSON]:
        return [m for m in self.messages.values() if not (m.get("flags", 0) & EPHEMERAL)]
