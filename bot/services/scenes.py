"""Scenes per channel: start and end, zones, situation aspects, boosts, create an advantage,
the GM pool, and the "scene" aspect source rolls use to invoke scene and game aspects.

Every function that saves a scene asks for a board refresh once the transaction has committed
(`board_listeners`); the scenes cog turns those requests into coalesced edits of the pinned board.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import bindparam
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.cache import remember
from bot.db.changes import touched
from bot.db.engine import Database
from bot.db.models.campaigns import Campaign
from bot.db.models.columns import utcnow
from bot.db.models.scenes import SceneRow
from bot.db.repos.rolls import owing_rolls_in
from bot.db.repos.scenes import BOARD_ROWS, SCENE_MOVE_CONTEXT
from bot.db.repos.versioned import save_versioned_in, update_versioned_raw_in
from bot.errors import RuleError
from bot.fate.aspects import (
    GM,
    Aspect,
    AspectKind,
    Event,
    holder_character_id,
    new_aspect,
    pass_free_invoke,
    reveal,
)
from bot.fate.scene import (
    Scene,
    SceneParticipant,
    add_aspect,
    add_participant,
    end_scene,
    next_aspect_id,
    place,
    put_aspect,
    start_scene,
)
from bot.services.campaign_play import load_play_in, parsed_play_in, save_play_in
from bot.services.campaigns import (
    CAMPAIGN_COLUMNS,
    CampaignInfo,
    CharacterRecord,
    StaleError,
    active_character_in,
    bound_campaign_id,
    campaign_of_raw,
    characters_raw_in,
    find_character_in,
    log_gm_points_in,
    parsed_campaign_in,
    parsed_character_in,
    require_active_in,
    resolve_campaign_in,
)
from bot.services.character_aspects import character_known_here_in
from bot.services.scene_state import (
    AUTOCOMPLETE_SECONDS,
    MAX_CARRIED,
    MAX_GAME_ASPECTS,
    SceneAspectSource,
    board_listeners,
    bring_carried_points_in,
    clear_stress_in,
    find_ref,
    find_zone_key,
    holder_of,
    keep_game_aspects_in,
    match_aspect,
    named_character_in,
    parsed_scene_in,
    participants_in,
    pay_owed_points_in,
    retry_stale,
    running_scene,
    save_scene_in,
    scene_of,
    scene_row_in,
    store_started_in,
    touch_board_in,
)

# a roll of the scene changed while its end paid what the rolls owe: the end runs again
ROLL_CHANGED = "A roll changed as the scene ended; try again."

# --------------------------------------------------------------------------- the hot reads
# built once: a move the raw path leaves to the ORM loads the scene with the channel's
# campaign in one statement
SCENE_WITH_CAMPAIGN = (
    select(SceneRow, *CAMPAIGN_COLUMNS)  # type: ignore[call-overload]
    .outerjoin(
        Campaign, col(Campaign.id) == bound_campaign_id(bindparam("guild"), bindparam("channel"))
    )
    .where(col(SceneRow.channel_id) == bindparam("channel"))
)


async def scene_with_campaign_in(
    session: AsyncSession, guild_id: int, channel_id: int
) -> tuple[CampaignInfo, SceneRow]:
    """The channel's campaign and its running scene (a RuleError when none runs): one
    statement, unless the server's default campaign has to be made first."""
    params = {"guild": guild_id, "channel": channel_id}
    found = (await session.exec(SCENE_WITH_CAMPAIGN, params=params)).first()
    if found is not None and found[1] is not None:
        campaign = parsed_campaign_in(session, found[1:])
    else:
        campaign = await resolve_campaign_in(session, guild_id, channel_id)
    return campaign, running_scene(found[0] if found is not None else None, campaign)


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class BoardData:
    """What the pinned scene board shows."""

    channel_id: int
    scene: Scene
    game_aspects: list[Aspect]
    names: dict[str, str]  # holder id -> display name
    fate_points: dict[str, int]  # PC participant id -> fate points
    message_id: int | None
    active: bool


@dataclass(frozen=True)
class SceneStarted:
    """A scene that was just started."""

    scene: Scene
    events: list[Event]


@dataclass(frozen=True)
class SceneEnded:
    """A scene that was just ended, and what its end paid or cleared."""

    kept: list[str]
    cleared: list[str]
    recovered: list[str]
    board_message_id: int | None
    paid: list[str] = field(default_factory=list)  # hostile-invoke payouts
    kept_hidden: int = 0  # hidden aspects kept as game aspects: counted, never named


@dataclass
class _ChoiceCache:
    entries: dict[int, tuple[float, list[tuple[str, str, bool]]]] = field(default_factory=dict)


# --------------------------------------------------------------------------- the service
class SceneService:
    """Scenes: start, join, move, aspects, the board and the end of a scene."""

    def __init__(self, db: Database, rng: random.Random | None = None) -> None:
        self.db = db
        self.rng = rng or random.Random()
        self._choices = _ChoiceCache()
        self._skills: dict[tuple[int, int, int], tuple[float, list[tuple[str, int]]]] = {}
        board_listeners.append(self.forget_choices)

    def close(self) -> None:
        if self.forget_choices in board_listeners:
            board_listeners.remove(self.forget_choices)

    def forget_choices(self, channel_id: int) -> None:
        self._choices.entries.pop(channel_id, None)

    # ----- scenes
    @retry_stale
    async def start(
        self,
        guild_id: int,
        channel_id: int,
        *,
        actor_id: int,
        title: str = "",
        aspects: list[str] | None = None,
        zones: list[str] | None = None,
        characters: list[str] | None = None,
        carried: int = 0,
    ) -> SceneStarted:
        if not 0 <= carried <= MAX_CARRIED:
            raise RuleError(f"Carried points run from 0 to {MAX_CARRIED}.")
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            row = await session.get(SceneRow, channel_id)
            if row is not None and row.active:
                raise RuleError("A scene is already running here. End it with `/scene end` first.")
            people, npc_ids = await participants_in(session, campaign, characters or [])
            play_row, play = await load_play_in(session, campaign.id)
            brought = play.carried_by(npc_ids)
            scene, events = start_scene(
                channel_id,
                title=" ".join(title.split()),
                participants=people,
                zone_names=zones,
                situation_aspects=aspects,
                carried_points=carried + play.carried_gm_points + brought,
            )
            if play.carried_gm_points or brought:
                await save_play_in(
                    session,
                    play_row,
                    play.without_carried_of(npc_ids).model_copy(update={"carried_gm_points": 0}),
                )
            row = await store_started_in(session, row, guild_id, campaign, scene)
            if scene.gm_pool:
                await log_gm_points_in(
                    session,
                    campaign.id,
                    scene.gm_pool,
                    scene.gm_pool,
                    reason="scene_pool",
                    actor_id=actor_id,
                    note="scene start",
                    channel_id=channel_id,
                )
            return SceneStarted(scene, events)

    @retry_stale
    async def end(
        self,
        guild_id: int,
        channel_id: int,
        *,
        keep: list[str] | None = None,
        actor_id: int = 0,
    ) -> SceneEnded:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            row = await scene_row_in(session, campaign, channel_id)
            scene = scene_of(row)
            paid = await self._pay_hostile_invokes_in(session, campaign, row, actor_id)
            play_row, play = await load_play_in(session, campaign.id)
            keep_ids = []
            for ref in keep or []:
                found = match_aspect(scene.aspects, ref)
                if found is None:
                    raise RuleError(
                        f"'{ref[:80]}' is not an aspect of this scene; pick from the suggestions."
                    )
                keep_ids.append(found.id)
            ended, outcome, _ = end_scene(scene, keep_as_game=keep_ids)
            if len(play.game_aspects) + len(outcome.game_aspects) > MAX_GAME_ASPECTS:
                raise RuleError(
                    f"A campaign keeps at most {MAX_GAME_ASPECTS} game aspects; keep fewer."
                )
            if outcome.game_aspects:
                await keep_game_aspects_in(session, play_row, play, outcome.game_aspects)
            cleared, recovered = await clear_stress_in(session, outcome.clear_stress_of)
            await save_scene_in(session, row, ended, active=False)
            return SceneEnded(
                kept=[a.text for a in outcome.game_aspects if not a.hidden],
                kept_hidden=sum(1 for a in outcome.game_aspects if a.hidden),
                cleared=cleared,
                recovered=recovered,
                board_message_id=row.board_message_id,
                paid=paid,
            )

    async def _pay_hostile_invokes_in(
        self, session: AsyncSession, campaign: CampaignInfo, row: SceneRow, actor_id: int
    ) -> list[str]:
        """The fate points owed for hostile invokes paid with a GM point during this scene:
        a PC gets them through the ledger, a major NPC or a monster carries them to the GM's
        next scene, a minor NPC brings nothing. Each roll paid for is marked so (a void of it
        would give its invoker the point back while its owner keeps it: void refuses it)."""
        owing = await owing_rolls_in(session, campaign.id, row.channel_id, row.created_at)
        owed: dict[int, int] = {}
        for _roll_row, _roll, owners in owing:
            for owner in owners:
                owed[owner] = owed.get(owner, 0) + 1
        paid, paid_to = await pay_owed_points_in(
            session,
            campaign,
            owed,
            actor_id=actor_id,
            channel_id=row.channel_id,
            note="hostile invokes of this scene",
        )
        for roll_row, roll, owners in owing:
            if paid_to.intersection(owners):  # a roll whose owners got nothing stays voidable
                paid_roll = roll.model_copy(update={"owed_paid": True})
                values = {"roll_json": paid_roll.model_dump_json(), "updated_at": utcnow()}
                await save_versioned_in(session, roll_row, "id", values, ROLL_CHANGED)
        return paid

    async def _acting_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        channel_id: int,
        user_id: int,
        name: str | None,
        is_gm: bool,
    ) -> CharacterRecord:
        if not name:
            return await require_active_in(session, campaign, channel_id, user_id)
        return await named_character_in(
            session, campaign, name, user_id, is_gm, "moves other people's characters"
        )

    @retry_stale
    async def join(
        self,
        guild_id: int,
        channel_id: int,
        *,
        user_id: int,
        is_gm: bool,
        character: str | None = None,
        zone: str | None = None,
    ) -> tuple[str, str | None]:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            row = await scene_row_in(session, campaign, channel_id)
            scene = scene_of(row)
            record = await self._acting_in(session, campaign, channel_id, user_id, character, is_gm)
            zone_key = find_zone_key(scene, zone)
            scene, _ = add_participant(
                scene,
                SceneParticipant(
                    id=holder_of(record), name=record.name, is_pc=not record.is_npc, zone=zone_key
                ),
            )
            await save_scene_in(session, row, scene)
            if record.is_npc:
                await bring_carried_points_in(session, campaign, channel_id, record, user_id)
            return record.name, scene.zone(zone_key).name if zone_key else None

    @retry_stale
    async def move(
        self,
        guild_id: int,
        channel_id: int,
        *,
        user_id: int,
        is_gm: bool,
        zone: str,
        character: str | None = None,
    ) -> tuple[str, str]:
        if character is None:  # the usual move, one's own active character: no ORM
            moved = await self._move_raw(guild_id, channel_id, user_id, zone)
            if moved is not None:
                return moved
        async with self.db.session() as session:
            campaign, row = await scene_with_campaign_in(session, guild_id, channel_id)
            scene = parsed_scene_in(session, channel_id, row.version, row.scene_json)
            record = await self._acting_in(session, campaign, channel_id, user_id, character, is_gm)
            zone_key = find_zone_key(scene, zone)
            assert zone_key is not None
            if holder_of(record) not in {p.id for p in scene.participants}:
                raise RuleError(f"{record.name} is not in the scene; use `/scene join` first.")
            scene = place(scene, holder_of(record), zone_key)
            await save_scene_in(session, row, scene)
            remember(session, "scene", channel_id, row.version, scene)  # what the board reads
            return record.name, scene.zone(zone_key).name

    async def _move_raw(
        self, guild_id: int, channel_id: int, user_id: int, zone: str
    ) -> tuple[str, str] | None:
        """`move` of the user's active character as one raw unit of work (bot/db/raw.py): the
        scene, campaign and character in one statement, then the versioned save. None when
        the ORM path has to say what is missing (no scene, campaign or active character)."""
        async with self.db.raw() as unit:
            params = {"guild": guild_id, "channel": channel_id, "user": user_id}
            found = await unit.row(SCENE_MOVE_CONTEXT, params)
            if found is None or found[4] is None or found[10] is None:
                return None
            campaign_id, scene_json, active, version = found[:4]
            campaign = campaign_of_raw(unit, found[4:10])
            if not active or campaign_id != campaign.id:
                return None
            record = parsed_character_in(unit, found[10:16])
            scene = parsed_scene_in(unit, channel_id, version, scene_json)
            zone_key = find_zone_key(scene, zone)
            assert zone_key is not None
            if holder_of(record) not in {p.id for p in scene.participants}:
                raise RuleError(f"{record.name} is not in the scene; use `/scene join` first.")
            scene = place(scene, holder_of(record), zone_key)
            values = {"scene_json": scene.model_dump_json(), "updated_at": unit.timestamp(utcnow())}
            stale = StaleError("The scene changed at the same moment; look at the board and retry.")
            new = await update_versioned_raw_in(
                unit, "scene", channel_id, version, values, stale, key="channel_id"
            )
            remember(unit, "scene", channel_id, new, scene)  # what the board reads next
            touched(unit, {guild_id})
        for listener in list(board_listeners):  # committed: the board follows
            listener(channel_id)
        return record.name, scene.zone(zone_key).name

    async def board(self, channel_id: int) -> BoardData | None:
        async with self.db.raw_read() as unit:  # a read: never queued behind a writer
            found = await unit.row(BOARD_ROWS, {"channel": channel_id})
            if found is None:
                return None
            scene_json, version, campaign_id, message_id, active, play_json, play_version = found
            scene = parsed_scene_in(unit, channel_id, version, scene_json)
            play = parsed_play_in(unit, campaign_id, play_version, play_json)
            names = {GM: "GM"}
            points: dict[str, int] = {}
            for person in scene.participants:
                names[person.id] = person.name
            holders = {h for a in [*scene.aspects, *play.game_aspects] for h in a.free_invokes}
            pcs = {
                person.id: character_id
                for person in scene.participants
                if person.is_pc and (character_id := holder_character_id(person.id)) is not None
            }
            absent = {
                holder: character_id
                for holder in holders - set(names)
                if (character_id := holder_character_id(holder)) is not None
            }
            records = await characters_raw_in(unit, [*pcs.values(), *absent.values()])
            for holder, character_id in pcs.items():
                if character_id in records:
                    points[holder] = records[character_id].sheet.fate_points
            for holder, character_id in absent.items():
                gone = records.get(character_id)
                names[holder] = gone.name if gone is not None else "someone gone"
            return BoardData(
                channel_id=channel_id,
                scene=scene,
                game_aspects=list(play.game_aspects),
                names=names,
                fate_points=points,
                message_id=message_id,
                active=bool(active),
            )

    async def set_board_message(self, channel_id: int, message_id: int | None) -> None:
        async with self.db.session() as session:
            row = await session.get(SceneRow, channel_id)
            if row is not None:
                row.board_message_id = message_id
                session.add(row)

    # ----- aspects
    @retry_stale
    async def add_aspect(
        self,
        guild_id: int,
        channel_id: int,
        *,
        text: str,
        kind: AspectKind = AspectKind.SITUATION,
        zone: str | None = None,
        hidden: bool = False,
        gm_invokes: int = 0,
        boost_for: str | None = None,
    ) -> Aspect:
        if not 0 <= gm_invokes <= 5:
            raise RuleError("Give the GM side 0 to 5 free invokes.")
        holders = [GM] * gm_invokes
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            if kind is AspectKind.BOOST:
                if boost_for:
                    holders = [holder_of(await find_character_in(session, campaign.id, boost_for))]
                else:
                    holders = [GM]
            elif boost_for:
                raise RuleError("`boost-for` only goes with `kind:boost`.")
            if kind is AspectKind.GAME:
                play_row, play = await load_play_in(session, campaign.id)
                if len(play.game_aspects) >= MAX_GAME_ASPECTS:
                    raise RuleError(
                        f"A campaign keeps at most {MAX_GAME_ASPECTS} game aspects; remove one."
                    )
                if match_aspect(play.game_aspects, text):
                    raise RuleError("That game aspect already exists.")
                aspect = new_aspect(
                    f"g{play.next_game_number}", text, kind, hidden=hidden, free_invokes=holders
                )
                await save_play_in(
                    session,
                    play_row,
                    play.model_copy(
                        update={
                            "game_aspects": [*play.game_aspects, aspect],
                            "next_game_number": play.next_game_number + 1,
                        }
                    ),
                )
                await touch_board_in(session, channel_id)
                return aspect
            row = await scene_row_in(session, campaign, channel_id)
            scene = scene_of(row)
            owner = find_zone_key(scene, zone)
            if owner is not None and kind is AspectKind.SITUATION:
                kind = AspectKind.ZONE
            aspect_id = next_aspect_id(scene)
            scene, _ = add_aspect(
                scene, text, kind, owner=owner, hidden=hidden, free_invokes=holders
            )
            await save_scene_in(session, row, scene)
            return scene.aspect(aspect_id)

    @retry_stale
    async def _with_ref(
        self,
        guild_id: int,
        channel_id: int,
        ref: str,
        change: Callable[[Aspect], tuple[Aspect | None, list[Event]]],
        *,
        sees_hidden: bool = True,
    ) -> tuple[Aspect, list[Event]]:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            row = await session.get(SceneRow, channel_id)
            active = row is not None and row.active and row.campaign_id == campaign.id
            scene = scene_of(row) if row is not None and active else None
            play_row, play = await load_play_in(session, campaign.id)
            found = find_ref(scene, play, ref, channel_id)
            if found is None or (found.aspect.hidden and not sees_hidden):
                raise RuleError(
                    f"There is no aspect '{ref[:80]}' in play here; pick from the suggestions."
                )
            changed, events = change(found.aspect)
            if found.game:
                kept: list[Aspect] = []
                for item in play.game_aspects:
                    if item.id != found.aspect.id:
                        kept.append(item)
                    elif changed is not None:
                        kept.append(changed)
                await save_play_in(
                    session, play_row, play.model_copy(update={"game_aspects": kept})
                )
                await touch_board_in(session, channel_id)
            else:
                assert scene is not None and row is not None
                scene, _ = put_aspect(scene, changed, old_id=found.aspect.id)
                await save_scene_in(session, row, scene)
            return found.aspect, events

    async def remove_aspect(self, guild_id: int, channel_id: int, ref: str) -> Aspect:
        def gone(aspect: Aspect) -> tuple[Aspect | None, list[Event]]:
            return None, []

        aspect, _ = await self._with_ref(guild_id, channel_id, ref, gone)
        return aspect

    async def reveal_aspect(self, guild_id: int, channel_id: int, ref: str) -> Aspect:
        aspect, _ = await self._with_ref(guild_id, channel_id, ref, reveal)
        return aspect

    async def pass_invoke(
        self,
        guild_id: int,
        channel_id: int,
        *,
        user_id: int,
        is_gm: bool,
        ref: str,
        to: str,
    ) -> tuple[Aspect, str]:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            mine = await active_character_in(session, campaign, channel_id, user_id)
            if to.strip().casefold() in ("gm", "the gm"):
                receiver, receiver_name = GM, "the GM"
            else:
                target = await character_known_here_in(
                    session, campaign, channel_id, to, user_id=user_id, is_gm=is_gm
                )
                receiver, receiver_name = holder_of(target), target.name
        givers = ([holder_of(mine)] if mine else []) + ([GM] if is_gm else [])
        if not givers:
            raise RuleError("You have no active character here; pick one with `/character switch`.")

        def hand_over(aspect: Aspect) -> tuple[Aspect | None, list[Event]]:
            giver = next((g for g in givers if g in aspect.free_invokes), givers[0])
            return pass_free_invoke(aspect, giver, receiver)

        # a hidden aspect is the GM's: for a player it is not there (its text stays secret)
        aspect, _ = await self._with_ref(guild_id, channel_id, ref, hand_over, sees_hidden=is_gm)
        return aspect, receiver_name

    # ----- autocomplete (from memory, refreshed at most every AUTOCOMPLETE_SECONDS)
    async def aspect_choices(
        self, guild_id: int, channel_id: int, *, is_gm: bool, typed: str
    ) -> list[tuple[str, str]]:
        hit = self._choices.entries.get(channel_id)
        if hit is None or time.monotonic() - hit[0] > AUTOCOMPLETE_SECONDS:
            async with self.db.session() as session:
                campaign = await resolve_campaign_in(session, guild_id, channel_id)
                found = await SceneAspectSource().aspects_in(session, campaign, channel_id)
            entries = [(a.key, f"{a.name} ({a.owner})", a.hidden) for a in found]
            self._choices.entries[channel_id] = (time.monotonic(), entries)
        else:
            entries = hit[1]
        needle = typed.strip().casefold()
        return [
            (key, label)
            for key, label, hidden in entries
            if (is_gm or not hidden) and needle in label.casefold()
        ][:25]

    async def skill_choices(
        self, guild_id: int, channel_id: int, user_id: int, typed: str
    ) -> list[tuple[str, int]]:
        """The active character's skills (rated ones first), then the campaign's others."""
        key = (guild_id, channel_id, user_id)
        hit = self._skills.get(key)
        if hit is None or time.monotonic() - hit[0] > AUTOCOMPLETE_SECONDS:
            async with self.db.session() as session:
                campaign = await resolve_campaign_in(session, guild_id, channel_id)
                record = await active_character_in(session, campaign, channel_id, user_id)
            rated = dict(record.sheet.skills) if record else {}
            names = sorted(rated, key=lambda n: (-rated[n], n))
            names += [n for n in campaign.settings.skill_list().names if n not in rated]
            skills = [(n, rated.get(n, 0)) for n in names]
            if len(self._skills) > 5000:
                self._skills.clear()
            self._skills[key] = (time.monotonic(), skills)
        else:
            skills = hit[1]
        needle = typed.strip().casefold()
        return [(n, r) for n, r in skills if needle in n.casefold()][:25]

    async def zone_choices(self, channel_id: int, typed: str) -> list[str]:
        data = await self.board(channel_id)
        if data is None or not data.active:
            return []
        needle = typed.strip().casefold()
        return [z.name for z in data.scene.zones if needle in z.name.casefold()][:25]
