"""The live web view's use cases: make, check and revoke links; gather what a page shows.

A link is a signed token (`bot.services.web_tokens`) that names one campaign (the GM's page),
one character (its player's page) or one game (a spectator page), the server it belongs to and
the revocation generations it was made at. Opening a page checks all of it against the
database: a tampered, expired or revoked link, or one whose target moved or left its server,
gets `LinkRefused`.

What each page may show is decided here, not in the page: `table_view` gives the GM
everything; `player_view` gives a player their own sheet and the public part of the scenes and
encounters of the channels where their character is, with no hidden aspect and no NPC named.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.engine import Database
from bot.db.models.campaigns import Campaign, CharacterRow
from bot.db.models.conflicts import LIVE_ENCOUNTER, EncounterRow
from bot.db.models.scenes import SceneRow
from bot.db.models.web import WebKey, WebLinkGeneration
from bot.errors import RuleError
from bot.fate.aspects import GM, Aspect, AspectKind, holder_character_id
from bot.fate.conflict import Phase, standing
from bot.fate.ladder import describe
from bot.fate.scene import Scene
from bot.fate.sheet import Character
from bot.fate.words import plural
from bot.services.campaign_play import read_play_in
from bot.services.campaigns import (
    CampaignInfo,
    CharacterRecord,
    require_active_in,
    resolve_campaign_in,
)
from bot.services.challenges import ChallengeService, ChallengeState
from bot.services.character_aspects import character_known_here_in
from bot.services.conflict_base import ConflictBase
from bot.services.conflict_state import ConflictState
from bot.services.contests import ContestService, ContestState
from bot.services.encounters import EncounterState
from bot.services.game_info import GameInfo
from bot.services.games import GameService
from bot.services.scene_state import scene_of
from bot.services.web_tokens import BadToken, LinkClaims, LinkKind, sign, verify

DAY = 86_400
GAME_LINK_DAYS = 7
OPPOSITION = "the opposition"  # how a player's page names any NPC
LOG_LINES = 8
MAX_ON_PAGE = 50  # characters, scenes or encounters one page lists


class LinkRefused(Exception):
    """A link that does not (or no longer) open anything."""


class WebLink(NamedTuple):
    """A link just made: its token, what it opens (a title) and until when (Unix seconds)."""

    token: str
    title: str
    expires_at: int


@dataclass(frozen=True)
class LinkScope:
    """What a checked link opens."""

    kind: LinkKind
    guild_id: int
    target_id: int
    campaign_id: int | None = None
    # a game link: the game as read while checking the link (its page shows that one)
    game: GameInfo | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class AspectView:
    """An aspect as a page shows it."""

    text: str
    kind: str
    hidden: bool = False
    invokes: tuple[str, ...] = ()  # who holds a free invoke, one name per invoke
    where: str = ""  # the zone of a zone aspect


@dataclass(frozen=True)
class SceneView:
    """One channel's scene."""

    channel_id: int
    title: str
    gm_pool: int
    aspects: list[AspectView]
    zones: list[tuple[str, list[str]]]  # zone name -> who stands there
    people: list[str]


@dataclass(frozen=True)
class EncounterView:
    """A conflict, contest or challenge: who is in it, what happens now, its aspects."""

    kind: str
    id: int
    channel_id: int
    title: str
    now: str
    rows: list[tuple[str, str]]  # name, status
    aspects: list[AspectView] = field(default_factory=list)
    log: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TableView:
    """Everything one page of a campaign shows (the GM's, or a player's filtered one)."""

    campaign: str
    for_gm: bool
    characters: list[Character]  # the GM: every PC; a player: their own sheet
    npcs: list[Character]
    scenes: list[SceneView]
    game_aspects: list[AspectView]
    encounters: list[EncounterView]


class WebService:
    """Links to the live web view and the data behind its pages."""

    def __init__(
        self,
        db: Database,
        *,
        secret: str = "",
        link_days: int = 30,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.link_days = link_days
        self.clock = clock
        self._secret = secret.encode() if secret else None
        self.games = GameService(db)

    # ------------------------------------------------------------------ keys and generations
    async def secret(self) -> bytes:
        """The signing secret: the setting, else the one kept in the database (made once)."""
        if self._secret is None:
            async with self.db.read() as session:
                row = await session.get(WebKey, 1)
            if row is None:
                try:
                    async with self.db.session() as session:
                        session.add(WebKey(id=1, secret=secrets.token_hex(32)))
                except IntegrityError:
                    pass  # another process made it first: use theirs
                async with self.db.read() as session:
                    row = await session.get(WebKey, 1)
            assert row is not None
            self._secret = row.secret.encode()
        return self._secret

    @staticmethod
    async def _generation_in(session: AsyncSession, scope: str, scope_id: int) -> int:
        row = await session.get(WebLinkGeneration, (scope, scope_id))
        return row.generation if row else 0

    @staticmethod
    async def _bump_in(session: AsyncSession, scope: str, scope_id: int) -> None:
        row = await session.get(WebLinkGeneration, (scope, scope_id))
        if row is None:
            session.add(WebLinkGeneration(scope=scope, scope_id=scope_id, generation=1))
        else:
            row.generation += 1
            session.add(row)

    async def _sign(
        self, kind: LinkKind, guild_id: int, target: int, gens: tuple[int, ...], days: int
    ) -> tuple[str, int]:
        expires = int(self.clock()) + days * DAY
        claims = LinkClaims(kind, guild_id, target, gens, expires)
        return sign(await self.secret(), claims), expires

    # ------------------------------------------------------------------ making links
    async def campaign_link(self, guild_id: int, channel_id: int, *, revoke: bool) -> WebLink:
        """A GM link to the channel's campaign; with `revoke`, every link made for that
        campaign so far (the GM's and the players') stops working first."""
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            if revoke:
                await self._bump_in(session, "campaign", campaign.id)
        async with self.db.read() as session:
            generation = await self._generation_in(session, "campaign", campaign.id)
        token, expires = await self._sign(
            LinkKind.GM, guild_id, campaign.id, (generation,), self.link_days
        )
        return WebLink(token, campaign.name, expires)

    async def character_link(
        self, guild_id: int, channel_id: int, user_id: int, name: str | None, *, revoke: bool
    ) -> WebLink:
        """A player's link to their own character (the active one, or `name`); with `revoke`,
        the character's earlier links stop working first."""
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            if name and name.strip():
                record = await character_known_here_in(
                    session, campaign, channel_id, name, user_id=user_id, is_gm=False
                )
            else:
                record = await require_active_in(session, campaign, channel_id, user_id)
            if record.owner_id != user_id or record.is_npc:
                what = "an NPC" if record.is_npc else "someone else's character"
                raise RuleError(
                    f"{record.name} is {what}: a player's page is only for the player's own "
                    "character. The GM sees every sheet with `/campaign web`."
                )
            if revoke:
                await self._bump_in(session, "character", record.id)
        async with self.db.read() as session:
            gens = (
                await self._generation_in(session, "campaign", campaign.id),
                await self._generation_in(session, "character", record.id),
            )
        token, expires = await self._sign(
            LinkKind.PLAYER, guild_id, record.id, gens, self.link_days
        )
        return WebLink(token, record.name, expires)

    async def game_link(self, info: GameInfo) -> WebLink:
        """A spectator link to a game's page (public state only)."""
        token, expires = await self._sign(LinkKind.GAME, info.guild_id, info.id, (), GAME_LINK_DAYS)
        return WebLink(token, f"{info.engine_name} #{info.id}", expires)

    # ------------------------------------------------------------------ opening links
    async def open(self, token: str) -> LinkScope:
        """What a link opens, after every check; `LinkRefused` otherwise."""
        try:
            claims = verify(await self.secret(), token, self.clock())
        except BadToken as error:
            raise LinkRefused(str(error)) from None
        async with self.db.read() as session:
            if claims.kind is LinkKind.GM:
                campaign = await session.get(Campaign, claims.target_id)
                if campaign is None or campaign.guild_id != claims.guild_id:
                    raise LinkRefused("no such campaign on that server")
                await self._check_gens_in(session, claims, [("campaign", claims.target_id)])
                return LinkScope(claims.kind, claims.guild_id, claims.target_id, claims.target_id)
            if claims.kind is LinkKind.PLAYER:
                row = await session.get(CharacterRow, claims.target_id)
                if row is None or row.guild_id != claims.guild_id or row.is_npc:
                    raise LinkRefused("no such character on that server")
                scopes = [("campaign", row.campaign_id), ("character", claims.target_id)]
                await self._check_gens_in(session, claims, scopes)
                return LinkScope(claims.kind, claims.guild_id, claims.target_id, row.campaign_id)
        game = await self._game(claims.target_id)
        if game is None or game.guild_id != claims.guild_id:
            raise LinkRefused("no such game on that server")
        return LinkScope(claims.kind, claims.guild_id, claims.target_id, game=game)

    async def _check_gens_in(
        self, session: AsyncSession, claims: LinkClaims, scopes: list[tuple[str, int]]
    ) -> None:
        current = tuple([await self._generation_in(session, s, i) for s, i in scopes])
        if claims.generations != current:
            raise LinkRefused("revoked")

    async def _game(self, game_id: int) -> GameInfo | None:
        try:
            return await self.games.get(game_id)
        except RuleError:
            return None

    # ------------------------------------------------------------------ pages
    async def game_view(self, scope: LinkScope) -> GameInfo:
        """The public snapshot of a game (never a hand): the one read when the link was opened,
        else read now."""
        game = scope.game or await self._game(scope.target_id)
        if game is None or game.guild_id != scope.guild_id:
            raise LinkRefused("the game is gone")
        return game

    async def table_view(self, scope: LinkScope) -> TableView:
        """The GM's page (a GM link) or the player's (a player link)."""
        assert scope.campaign_id is not None
        async with self.db.read() as session:
            campaign = await session.get(Campaign, scope.campaign_id)
            if campaign is None or campaign.guild_id != scope.guild_id:
                raise LinkRefused("the campaign is gone")
            info = CampaignInfo.of(campaign)
            rows = (
                await session.exec(
                    select(CharacterRow)
                    .where(CharacterRow.campaign_id == info.id)
                    .order_by(col(CharacterRow.name))
                    .limit(MAX_ON_PAGE * 4)
                )
            ).all()
            records = [CharacterRecord.of(r) for r in rows]
            scenes = (
                await session.exec(
                    select(SceneRow)
                    .where(SceneRow.campaign_id == info.id, col(SceneRow.active))
                    .order_by(col(SceneRow.updated_at).desc())
                    .limit(MAX_ON_PAGE)
                )
            ).all()
            encounters = (
                await session.exec(
                    select(EncounterRow)
                    .where(EncounterRow.campaign_id == info.id, text(LIVE_ENCOUNTER))
                    .order_by(col(EncounterRow.id))
                    .limit(MAX_ON_PAGE)
                )
            ).all()
            play = await read_play_in(session, info.id)
        for_gm = scope.kind is LinkKind.GM
        names = _Names(records, for_gm)
        pcs = [r.sheet for r in records if not r.is_npc]
        own = [r.sheet for r in records if r.id == scope.target_id]
        parsed = [(row, _parse(row)) for row in encounters]
        running = [(row, state) for row, state in parsed if state is not None]
        shown_scenes = [(row.channel_id, scene_of(row)) for row in scenes]
        if not for_gm:
            where = _channels_of(scope.target_id, shown_scenes, running)
            where.discard(info.settings.gm_channel_id or 0)
            shown_scenes = [(c, scene) for c, scene in shown_scenes if c in where]
            running = [(row, state) for row, state in running if row.channel_id in where]
        return TableView(
            campaign=info.name,
            for_gm=for_gm,
            characters=pcs[:MAX_ON_PAGE] if for_gm else own,
            npcs=[r.sheet for r in records if r.is_npc][:MAX_ON_PAGE] if for_gm else [],
            scenes=[_scene_view(scene, channel, names) for channel, scene in shown_scenes],
            game_aspects=_aspects(play.game_aspects, names),
            encounters=[_encounter_view(row, state, names) for row, state in running],
        )


def _channels_of(
    character_id: int,
    scenes: list[tuple[int, Scene]],
    running: list[tuple[EncounterRow, EncounterState]],
) -> set[int]:
    """The channels where a character is: the scenes it takes part in, the encounters it is a
    member of (all a player's page shows of the table)."""
    holder = f"char:{character_id}"
    where = {c for c, scene in scenes if any(p.id == holder for p in scene.participants)}
    return where | {
        row.channel_id
        for row, state in running
        if any(m.character_id == character_id for m in state.members.values())
    }


class _Names:
    """How a page names holders and combatants: NPCs become "the opposition" for players."""

    def __init__(self, records: list[CharacterRecord], for_gm: bool) -> None:
        self.for_gm = for_gm
        self.by_id = {r.id: r for r in records}

    def holder(self, holder: str) -> str:
        if holder == GM:
            return "GM" if self.for_gm else OPPOSITION
        character_id = holder_character_id(holder)
        record = self.by_id.get(character_id) if character_id is not None else None
        if record is None:
            return "someone gone" if self.for_gm or character_id is None else OPPOSITION
        if record.is_npc and not self.for_gm:
            return OPPOSITION
        return record.name

    def member(self, state: EncounterState, member_id: str | None) -> str:
        member = state.members.get(member_id or "")
        if member is None:
            return "nobody" if member_id is None else str(member_id)
        if member.is_npc and not self.for_gm:
            return OPPOSITION
        return member.name

    def is_hidden_member(self, state: EncounterState, member_id: str) -> bool:
        member = state.members.get(member_id)
        return not self.for_gm and (member is None or member.is_npc)


def _aspects(
    aspects: list[Aspect], names: _Names, zones: dict[str, str] | None = None
) -> list[AspectView]:
    shown = []
    for aspect in aspects:
        if aspect.hidden and not names.for_gm:
            continue
        where = (zones or {}).get(aspect.owner or "", "") if aspect.kind is AspectKind.ZONE else ""
        shown.append(
            AspectView(
                text=aspect.text,
                kind=aspect.kind.value,
                hidden=aspect.hidden,
                invokes=tuple(names.holder(h) for h in aspect.free_invokes),
                where=where,
            )
        )
    return shown


def _scene_view(scene: Scene, channel_id: int, names: _Names) -> SceneView:
    zone_names = {z.key: z.name for z in scene.zones}
    people = [p for p in scene.participants if p.is_pc or names.for_gm]
    return SceneView(
        channel_id=channel_id,
        title=scene.title,
        gm_pool=scene.gm_pool,
        aspects=_aspects(scene.aspects, names, zone_names),
        zones=[(z.name, [p.name for p in people if p.zone == z.key]) for z in scene.zones],
        people=[p.name + ("" if p.is_pc else " (NPC)") for p in people],
    )


# an encounter row's kind -> its stored state, as each service declares them
STATE_MODELS: dict[str, type[EncounterState]] = {
    service.kind: service.state_model
    for service in (ConflictBase, ContestService, ChallengeService)
}


def _parse(row: EncounterRow) -> EncounterState | None:
    model = STATE_MODELS.get(row.kind)
    try:
        return model.model_validate_json(row.state_json) if model else None
    except ValueError:
        return None  # a state written by a newer version of the bot: skip rather than fail


def _encounter_view(row: EncounterRow, state: EncounterState, names: _Names) -> EncounterView:
    if isinstance(state, ConflictState):
        return _conflict_view(row, state, names)
    if isinstance(state, ContestState):
        return _contest_view(row, state, names)
    assert isinstance(state, ChallengeState)
    return _challenge_view(row, state, names)


def _state_aspects(
    aspects: list[Aspect], names: _Names, holder: Callable[[str], str] | None = None
) -> list[AspectView]:
    """An encounter's own aspects (boosts, advantages); hidden ones only for the GM."""
    return [
        AspectView(
            text=a.text,
            kind=a.kind.value,
            hidden=a.hidden,
            invokes=tuple(holder(h) for h in a.free_invokes) if holder else (),
        )
        for a in aspects
        if names.for_gm or not a.hidden
    ]


def _view(
    row: EncounterRow,
    state: EncounterState,
    names: _Names,
    title: str,
    now: str,
    rows: list[tuple[str, str]],
    aspects: list[AspectView],
) -> EncounterView:
    assert row.id is not None
    log = _log(state, names)
    return EncounterView(row.kind, row.id, row.channel_id, title, now, rows, aspects, log)


def _log(state: EncounterState, names: _Names) -> list[str]:
    # The tracker's log names NPCs and was written for the table; only the GM gets it.
    return state.log[-LOG_LINES:] if names.for_gm else []


def _conflict_view(row: EncounterRow, state: ConflictState, names: _Names) -> EncounterView:
    c = state.conflict
    rows = []
    hidden_npcs = 0
    for combatant in c.combatants:
        if names.is_hidden_member(state, combatant.id) or (combatant.is_npc and not names.for_gm):
            hidden_npcs += 1
            continue
        kind = "NPC" if combatant.is_npc else "PC"
        zone = f", in {combatant.zone}" if combatant.zone else ""
        rows.append((combatant.name, f"{kind}{zone}: {standing(c, combatant)}"))
    if hidden_npcs:
        rows.append((OPPOSITION, plural(hidden_npcs, "NPC")))
    if c.phase is Phase.ENDED:
        winner = {"pcs": "The PCs", "npcs": "The NPCs"}.get(c.winner_side or "", "Nobody")
        now = f"Over: {winner} carry the day." if c.winner_side else "The conflict is over."
    elif c.phase is Phase.CHOOSING_NEXT:
        now = "The GM picks who acts next."
    elif c.phase in (Phase.DEFENDING, Phase.ABSORBING) and c.pending is not None:
        who = names.member(state, c.pending.defender)
        if c.phase is Phase.DEFENDING:
            now = f"{who} defends against {describe(c.pending.attack_effort)}."
        else:
            now = f"{who} takes a {c.pending.shifts}-shift hit."
    else:
        now = f"{names.member(state, c.current)} acts" + (
            " (action used)." if c.action_used else "."
        )
    title = f"Conflict #{row.id} ({c.kind.value}), exchange {c.exchange}"
    aspects = _state_aspects(state.aspects, names, lambda h: names.member(state, h))
    return _view(row, state, names, title, now, rows, aspects)


def _contest_view(row: EncounterRow, state: ContestState, names: _Names) -> EncounterView:
    contest = state.contest
    rows = []
    shown: dict[str, str] = {}
    for side in contest.sides:
        players = [m for m in side.members if not names.is_hidden_member(state, m)]
        shown[side.key] = side.name if players or names.for_gm else OPPOSITION
        who = ", ".join(names.member(state, m) for m in players)
        needed = contest.victories_needed
        tally = f"{side.victories} of {needed} {'victory' if needed == 1 else 'victories'}"
        rows.append((shown[side.key], tally + (f" ({who})" if who else "")))
    if contest.winner:
        now = f"Over: {shown.get(contest.winner, 'a side')} won."
    elif state.stopped:
        now = "Stopped by the GM."
    else:
        rolled = len(contest.exchange.rolls)
        now = f"Exchange {contest.exchange.number}: {rolled} of {len(contest.sides)} sides rolled."
    aspects = _state_aspects(state.aspects, names)  # their holders are sides, not people
    return _view(row, state, names, f"Contest #{row.id}", now, rows, aspects)


def _challenge_view(row: EncounterRow, state: ChallengeState, names: _Names) -> EncounterView:
    challenge = state.challenge
    rows = []
    open_tasks = 0
    for task in challenge.tasks:
        label = f"{task.skill} against {describe(task.difficulty)}"
        if task.description:
            label += f": {task.description}"
        if task.result is not None:
            status = f"{task.result.outcome.value} by {names.member(state, task.result.roller)}"
        else:
            open_tasks += 1
            who = names.member(state, task.assigned_to) if task.assigned_to else "anyone"
            status = f"open ({who})"
        rows.append((label, status))
    now = "Stopped by the GM." if state.stopped else f"{plural(open_tasks, 'task')} still open."
    title = f"Challenge #{row.id}" + (f": {challenge.title}" if challenge.title else "")
    return _view(row, state, names, title, now, rows, [])
