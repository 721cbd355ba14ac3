"""A scene's and a campaign's play state inside the caller's transaction: loading and saving it,
the GM pool and carried points, who joins, aspect references, the "scene" aspect source that
rolls invoke, and create an advantage on a scene or game aspect. The use cases that open a
transaction are SceneService's (scenes.py)."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from sqlalchemy import event
from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.cache import parsed, remember
from bot.db.models.campaigns import FatePointEntry
from bot.db.models.columns import utcnow
from bot.db.models.scenes import CampaignPlayRow, RecoveryRow, SceneRow
from bot.db.raw import RawUnit
from bot.db.repos.versioned import save_versioned_in
from bot.errors import RuleError
from bot.fate import recovery
from bot.fate.aspects import (
    Aspect,
    AspectKind,
    Event,
    character_holder,
    holder_character_id,
    return_free_invoke,
    spend_free_invoke,
)
from bot.fate.scene import (
    Scene,
    SceneParticipant,
    add_participant,
    change_gm_pool,
    place,
    put_aspect,
)
from bot.fate.sheet import NpcKind
from bot.services.aspects_in_play import AspectInPlay, register_source
from bot.services.campaign_play import (
    CampaignPlay,
    insert_first_in,
    load_play_in,
    read_play_in,
    save_play_in,
)
from bot.services.campaigns import (
    CampaignInfo,
    CharacterRecord,
    StaleError,
    find_character_in,
    get_character_in,
    log_gm_points_in,
    move_fate_points_in,
    save_character_in,
)

MAX_LIST_ITEMS = 20  # comma-separated lists in one option
MAX_GAME_ASPECTS = 20
MAX_CARRIED = 20
MAX_DIFFICULTY = 12
AUTOCOMPLETE_SECONDS = 30.0
GAME_KEY = "game"

# Called with a channel id after a transaction that changed what that channel's board shows.
board_listeners: list[Callable[[int], None]] = []


# --------------------------------------------------------------------------- small helpers
STALE_RETRIES = 10
_jitter = random.Random()
P = ParamSpec("P")
T = TypeVar("T")


def retry_stale(work: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Run a unit of work again when someone else saved the same row first.

    Each attempt is a fresh transaction that re-reads everything, so two players acting on one
    scene at once both succeed; only a real conflict that persists reaches the user.
    """

    @wraps(work)
    async def again(*args: P.args, **kwargs: P.kwargs) -> T:
        for attempt in range(1, STALE_RETRIES + 1):
            try:
                return await work(*args, **kwargs)
            except StaleError:
                if attempt == STALE_RETRIES:
                    raise
                await asyncio.sleep(_jitter.uniform(0.002, 0.01) * attempt)
        raise AssertionError("unreachable")

    return again


def holder_of(record: CharacterRecord) -> str:
    """How scene aspects name a character's free invokes (the GM holds NPCs')."""
    return character_holder(record.id)


def split_list(text: str | None, what: str, limit: int = MAX_LIST_ITEMS) -> list[str]:
    """A comma-separated option as a clean list, with a limit."""
    items = [" ".join(part.split()) for part in (text or "").split(",")]
    items = [item for item in items if item]
    if len(items) > limit:
        raise RuleError(f"Give at most {limit} {what}, separated by commas.")
    return items


def notify_after_commit_in(session: AsyncSession, channel_id: int) -> None:
    """Ask for a board refresh of `channel_id` once this transaction commits."""
    _queue(session.sync_session, channel_id)


def _queue(sync_session: Any, channel_id: int) -> None:
    pending: set[int] = sync_session.info.setdefault("scene_boards", set())
    if channel_id in pending:
        return
    pending.add(channel_id)
    if len(pending) == 1:

        def fire(_session: object) -> None:
            for channel in sync_session.info.pop("scene_boards", set()):
                for listener in list(board_listeners):
                    listener(channel)

        event.listen(sync_session, "after_commit", fire, once=True)


async def touch_board_in(session: AsyncSession, channel_id: int | None) -> None:
    """Other features call this after moving fate points, so the board shows the new numbers."""
    if channel_id is None:
        return
    row = await session.get(SceneRow, channel_id)
    if row is not None and row.active:
        notify_after_commit_in(session, channel_id)


def _entry_inserted(_mapper: object, _connection: object, entry: FatePointEntry) -> None:
    """Any fate point movement in a channel refreshes that channel's board after commit."""
    from sqlalchemy.orm import object_session

    sync_session = object_session(entry)
    if entry.channel_id is not None and sync_session is not None:
        _queue(sync_session, entry.channel_id)


event.listen(FatePointEntry, "after_insert", _entry_inserted)


# --------------------------------------------------------------------------- persistence
async def load_recovery_in(
    session: AsyncSession, character_id: int
) -> tuple[RecoveryRow, recovery.RecoveryState]:
    """The campaign's recovery row and its parsed state."""
    row = await session.get(RecoveryRow, character_id)
    if row is None:
        row = RecoveryRow(
            character_id=character_id, state_json=recovery.RecoveryState().model_dump_json()
        )
        await insert_first_in(session, row)
    return row, recovery.RecoveryState.model_validate_json(row.state_json)


async def save_recovery_in(
    session: AsyncSession, row: RecoveryRow, state: recovery.RecoveryState
) -> None:
    """Write the campaign's recovery state."""
    await save_versioned_in(
        session,
        row,
        "character_id",
        {"state_json": state.model_dump_json()},
        "Someone changed that character's recovery at the same moment; retry.",
    )


async def scene_row_in(session: AsyncSession, campaign: CampaignInfo, channel_id: int) -> SceneRow:
    """The running scene of the channel, or a RuleError saying how to start one."""
    return running_scene(await session.get(SceneRow, channel_id), campaign)


def running_scene(row: SceneRow | None, campaign: CampaignInfo) -> SceneRow:
    """`row` when it holds the running scene of `campaign`, else a RuleError."""
    if row is None or not row.active or row.campaign_id != campaign.id:
        raise RuleError(
            "No scene is running in this channel. The GM starts one with `/scene start`."
        )
    return row


def scene_of(row: SceneRow) -> Scene:
    """The pure scene stored in a row."""
    return Scene.model_validate_json(row.scene_json)


def parsed_scene_in(
    session: AsyncSession | RawUnit, channel_id: int, version: int, text: str
) -> Scene:
    """The scene stored at `version` of the channel's row, parsed once per version (shared:
    the scene rules return new scenes, never change one)."""
    scene: Scene | None = parsed(session, "scene", channel_id, version)
    if scene is None:
        scene = Scene.model_validate_json(text)
        remember(session, "scene", channel_id, version, scene)
    return scene


async def participants_in(
    session: AsyncSession, campaign: CampaignInfo, names: list[str]
) -> tuple[list[SceneParticipant], list[int]]:
    """The characters named for a new scene, and which of them are NPCs (their carried
    points join the GM pool)."""
    people: list[SceneParticipant] = []
    npc_ids: list[int] = []
    for name in names:
        record = await find_character_in(session, campaign.id, name)
        people.append(
            SceneParticipant(id=holder_of(record), name=record.name, is_pc=not record.is_npc)
        )
        if record.is_npc:
            npc_ids.append(record.id)
    return people, npc_ids


async def store_started_in(
    session: AsyncSession,
    row: SceneRow | None,
    guild_id: int,
    campaign: CampaignInfo,
    scene: Scene,
) -> SceneRow:
    """Write a new scene into the channel's row (made on the channel's first scene)."""
    if row is None:
        row = SceneRow(
            channel_id=scene.channel_id,
            guild_id=guild_id,
            campaign_id=campaign.id,
            scene_json=scene.model_dump_json(),
        )
        session.add(row)
        try:
            await session.flush()
        except IntegrityError:
            # another start for this channel won the race; the retry reports it
            raise StaleError("A scene was started here at the same moment.") from None
        notify_after_commit_in(session, scene.channel_id)
        return row
    row.campaign_id = campaign.id
    row.board_message_id = None
    row.created_at = utcnow()  # the scene's start: hostile invokes are owed from it
    session.add(row)
    await session.flush()
    await save_scene_in(session, row, scene, active=True)
    return row


async def keep_game_aspects_in(
    session: AsyncSession, play_row: CampaignPlayRow, play: CampaignPlay, kept: list[Aspect]
) -> None:
    """Scene aspects kept as the campaign's game aspects (one of the same words is kept once)."""
    game_aspects = list(play.game_aspects)
    number = play.next_game_number
    for aspect in kept:
        if match_aspect(game_aspects, aspect.text) is None:
            game_aspects.append(aspect.model_copy(update={"id": f"g{number}"}))
            number += 1
    await save_play_in(
        session,
        play_row,
        play.model_copy(update={"game_aspects": game_aspects, "next_game_number": number}),
    )


async def clear_stress_in(session: AsyncSession, people: list[str]) -> tuple[list[str], list[str]]:
    """At a scene's end: everyone who took part clears stress, and recoveries move on a
    scene. Returns the names cleared and the recovery lines."""
    cleared: list[str] = []
    recovered: list[str] = []
    for person in people:
        character_id = holder_character_id(person)
        if character_id is None:
            continue
        try:
            record = await get_character_in(session, character_id)
        except RuleError:
            continue  # deleted mid-scene
        recovery_row, state = await load_recovery_in(session, record.id)
        tracks, state, events = recovery.after_scene(record.sheet.clear_stress().tracks, state)
        sheet = record.sheet.model_copy(update={"tracks": tracks})
        if sheet != record.sheet:
            await save_character_in(session, record, sheet)
        await save_recovery_in(session, recovery_row, state)
        cleared.append(record.name)
        recovered.extend(f"{record.name}: {e.text}" for e in events)
    return cleared, recovered


async def save_scene_in(
    session: AsyncSession, row: SceneRow, scene: Scene, *, active: bool | None = None
) -> None:
    """Optimistic save of the channel's scene, then a board refresh after commit."""
    values: dict[str, Any] = {"scene_json": scene.model_dump_json(), "updated_at": utcnow()}
    if active is not None:
        values["active"] = active
    await save_versioned_in(
        session,
        row,
        "channel_id",
        values,
        "The scene changed at the same moment; look at the board and retry.",
    )
    notify_after_commit_in(session, row.channel_id)


async def change_gm_pool_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    delta: int,
    *,
    reason: str,
    actor_id: int,
    note: str = "",
    roll_id: int | None = None,
) -> tuple[int, FatePointEntry]:
    """Move points in or out of the GM pool of this channel's scene, with a ledger entry."""
    row = await scene_row_in(session, campaign, channel_id)
    scene = change_gm_pool(scene_of(row), delta)
    await save_scene_in(session, row, scene)
    entry = await log_gm_points_in(
        session,
        campaign.id,
        delta,
        scene.gm_pool,
        reason=reason,
        actor_id=actor_id,
        note=note,
        channel_id=channel_id,
        roll_id=roll_id,
    )
    return scene.gm_pool, entry


async def spend_gm_point_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    *,
    reason: str,
    actor_id: int,
    note: str = "",
    roll_id: int | None = None,
) -> int:
    """The GM pays one point from the pool (an invoke for an NPC, refusing a compel; `roll_id`:
    the roll an invoke was paid on)."""
    row = await scene_row_in(session, campaign, channel_id)
    if scene_of(row).gm_pool < 1:
        raise RuleError("The GM pool is empty. GM compels are free; invokes need a point.")
    pool, _ = await change_gm_pool_in(
        session,
        campaign,
        channel_id,
        -1,
        reason=reason,
        actor_id=actor_id,
        note=note,
        roll_id=roll_id,
    )
    return pool


async def carry_gm_points_in(
    session: AsyncSession, campaign_id: int, points: int, npc_id: int
) -> int:
    """Points a conceding or hostile-invoked major NPC brings to the GM pool of the next scene
    that includes it; returns what that NPC now carries."""
    row, play = await load_play_in(session, campaign_id)
    carried = min(MAX_CARRIED, max(0, play.npc_carried.get(str(npc_id), 0) + points))
    npc_carried = {k: v for k, v in play.npc_carried.items() if k != str(npc_id)}
    if carried:
        npc_carried[str(npc_id)] = carried
    await save_play_in(session, row, play.model_copy(update={"npc_carried": npc_carried}))
    return carried


async def pay_owed_points_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    owed: dict[int, int],
    *,
    actor_id: int,
    channel_id: int,
    note: str,
) -> tuple[list[str], set[int]]:
    """Pay the fate points owed for hostile invokes (character id -> points): a PC gets them
    through the ledger, a major NPC or a monster carries them to the GM pool of its next scene,
    a minor NPC brings nothing (the seed: "a major NPC or monster"). What was paid, in words,
    and to whom (character ids)."""
    paid: list[str] = []
    paid_to: set[int] = set()
    for character_id, points in sorted(owed.items()):
        try:
            record = await get_character_in(session, character_id)
        except RuleError:
            continue  # deleted since
        if record.campaign_id != campaign.id or record.sheet.npc_kind is NpcKind.MINOR:
            continue
        if record.is_npc:  # unnamed: the NPC's aspects may be the GM's secret
            await carry_gm_points_in(session, campaign.id, points, record.id)
            paid.append(f"the GM carries {points} into the NPC's next scene")
            paid_to.add(character_id)
            continue
        await move_fate_points_in(
            session,
            record,
            points,
            reason="hostile_invoke_payout",
            actor_id=actor_id,
            note=note,
            channel_id=channel_id,
        )
        paid.append(f"{record.name} +{points}")
        paid_to.add(character_id)
    return paid, paid_to


async def join_scene_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    records: list[CharacterRecord],
    actor_id: int,
) -> dict[int, str]:
    """The characters of a conflict or contest join the channel's running scene, so that its end
    clears their stress too; an NPC brings its carried points. Returns the scene zone (its
    name) of everyone already placed in one. No scene running: nothing happens."""
    row = await session.get(SceneRow, channel_id)
    if row is None or not row.active or row.campaign_id != campaign.id:
        return {}
    scene = scene_of(row)
    placed: dict[int, str] = {}
    newcomers: list[CharacterRecord] = []
    for record in records:
        present = next((p for p in scene.participants if p.id == holder_of(record)), None)
        if present is None:
            person = SceneParticipant(
                id=holder_of(record), name=record.name, is_pc=not record.is_npc
            )
            scene, _ = add_participant(scene, person)
            newcomers.append(record)
        elif present.zone is not None:
            placed[record.id] = scene.zone(present.zone).name
    if newcomers:
        await save_scene_in(session, row, scene)
    for record in newcomers:
        if record.is_npc:
            await bring_carried_points_in(session, campaign, channel_id, record, actor_id)
    return placed


async def place_in_scene_in(
    session: AsyncSession, campaign: CampaignInfo, channel_id: int, where: dict[int, str]
) -> None:
    """Write where characters stand (character id -> zone name) onto the channel's running
    scene, so that a conflict's zones and the scene's are one truth: the board shows a move
    made in the conflict, during it and after it. A zone the scene does not have, or someone
    not in the scene, is left alone; no scene running, nothing happens."""
    row = await session.get(SceneRow, channel_id)
    if row is None or not row.active or row.campaign_id != campaign.id:
        return
    scene = scene_of(row)
    keys = {zone.name.casefold(): zone.key for zone in scene.zones}
    people = {p.id: p for p in scene.participants}
    moved = scene
    for character_id, zone_name in where.items():
        key = keys.get(zone_name.casefold())
        person = people.get(character_holder(character_id))
        if key is not None and person is not None and person.zone != key:
            moved = place(moved, person.id, key)
    if moved is not scene:
        await save_scene_in(session, row, moved)


async def bring_carried_points_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    npc: CharacterRecord,
    actor_id: int,
) -> None:
    """An NPC who joins a running scene brings the points it carries into its GM pool."""
    play_row, play = await load_play_in(session, campaign.id)
    points = play.carried_by([npc.id])
    if not points:
        return
    await save_play_in(session, play_row, play.without_carried_of([npc.id]))
    await change_gm_pool_in(
        session,
        campaign,
        channel_id,
        points,
        reason="scene_pool",
        actor_id=actor_id,
        note="carried in by an NPC",
    )


async def named_character_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    name: str,
    user_id: int,
    is_gm: bool,
    gm_only: str,
    error: type[RuleError] = RuleError,
) -> CharacterRecord:
    """A character the user names to act with: their own, or anyone's for the GM. A player
    naming the GM's NPC hears what an unknown name gets, so NPCs stay secret."""
    record = await find_character_in(session, campaign.id, name)
    if record.owner_id == user_id or is_gm:
        return record
    if record.is_npc:
        raise RuleError(
            f"No character called '{name.strip()[:80]}' in this campaign. "
            "Pick one from the suggestions, or see `/character list`."
        )
    raise error(f"{record.name} is not yours; only the GM {gm_only}.")


def resolve_skill(record: CharacterRecord, campaign: CampaignInfo, skill: str) -> tuple[str, int]:
    """A skill as the character's sheet and campaign skill list spell it."""
    wanted = skill.strip().casefold()
    for name, rating in record.sheet.skills.items():
        if name.casefold() == wanted:
            return name, rating
    name = campaign.settings.skill_list().resolve(skill)
    return name, record.sheet.rating(name)


# --------------------------------------------------------------------------- aspect references
@dataclass(frozen=True)
class AspectRef:
    """Where an aspect lives (a scene or the campaign's game aspects) and which it is."""

    game: bool
    aspect: Aspect


def match_aspect(aspects: list[Aspect], ref: str) -> Aspect | None:
    """The aspect whose id or text is `ref` (any case and spacing), if one is."""
    wanted = " ".join(ref.split()).casefold()
    for aspect in aspects:
        if aspect.id.casefold() == wanted or aspect.text.casefold() == wanted:
            return aspect
    return None


def find_ref(
    scene: Scene | None, play: CampaignPlay, ref: str, channel_id: int
) -> AspectRef | None:
    """An aspect by autocomplete key ("scene:<channel>:s3", "scene:game:g1") or by its text."""
    parts = ref.strip().split(":")
    if len(parts) == 3 and parts[0] == "scene":
        if parts[1] == GAME_KEY:
            found = match_aspect(play.game_aspects, parts[2])
            return AspectRef(True, found) if found else None
        if scene is not None and parts[1] == str(channel_id):
            found = match_aspect(scene.aspects, parts[2])
            return AspectRef(False, found) if found else None
        return None
    if scene is not None:
        found = match_aspect(scene.aspects, ref)
        if found:
            return AspectRef(False, found)
    found = match_aspect(play.game_aspects, ref)
    return AspectRef(True, found) if found else None


def key_of(ref: AspectRef, channel_id: int) -> str:
    """The aspect's key as invoke menus and custom ids carry it."""
    return f"scene:{GAME_KEY if ref.game else channel_id}:{ref.aspect.id}"


# --------------------------------------------------------------------------- the aspect source
class SceneAspectSource:
    """Scene aspects of the channel plus the campaign's game aspects, for rolls."""

    prefix = "scene"

    async def aspects_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int
    ) -> list[AspectInPlay]:
        found: list[AspectInPlay] = []
        row = await session.get(SceneRow, channel_id)
        if row is not None and row.active and row.campaign_id == campaign.id:
            scene = scene_of(row)
            zones = {z.key: z.name for z in scene.zones}
            for aspect in scene.aspects:
                owner = zones.get(aspect.owner or "", "scene") if aspect.owner else "scene"
                found.append(_in_play(AspectRef(False, aspect), channel_id, owner))
        play = await read_play_in(session, campaign.id)
        found.extend(_in_play(AspectRef(True, a), channel_id, "game") for a in play.game_aspects)
        return found

    async def spend_free_invoke_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
    ) -> None:
        await spend_free_invoke_in(session, campaign, channel_id, key, holder)

    async def return_free_invoke_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
    ) -> None:
        await _change_invokes_in(
            session, campaign, channel_id, key, lambda a: return_free_invoke(a, holder)
        )


def _in_play(ref: AspectRef, channel_id: int, owner: str) -> AspectInPlay:
    return AspectInPlay(
        key=key_of(ref, channel_id),
        name=ref.aspect.text,
        owner=owner,
        is_boost=ref.aspect.kind is AspectKind.BOOST,
        hidden=ref.aspect.hidden,
        free_invokes=dict(Counter(ref.aspect.free_invokes)),
    )


async def spend_free_invoke_in(
    session: AsyncSession, campaign: CampaignInfo, channel_id: int, ref: str, holder: str
) -> list[Event]:
    """Use one free invoke of `holder` on a scene or game aspect (a used boost disappears)."""
    events: list[Event] = []

    def spend(aspect: Aspect) -> Aspect | None:
        spent, found = spend_free_invoke(aspect, holder)
        events.extend(found)
        return spent

    await _change_invokes_in(session, campaign, channel_id, ref, spend)
    return events


async def _change_invokes_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    ref: str,
    change: Callable[[Aspect], Aspect | None],
) -> None:
    """Apply `change` to a scene or game aspect's free invokes and save where it lives."""
    row = await session.get(SceneRow, channel_id)
    active = row is not None and row.active and row.campaign_id == campaign.id
    scene = scene_of(row) if row is not None and active else None
    play = await read_play_in(session, campaign.id)
    found = find_ref(scene, play, ref, channel_id)
    if found is None:
        raise RuleError("That aspect is no longer in play; pick another one.")
    spent = change(found.aspect)
    await save_aspect_in(session, campaign, channel_id, (row, scene), found, spent)


async def save_aspect_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    where: tuple[SceneRow | None, Scene | None],
    found: AspectRef,
    changed: Aspect | None,
) -> None:
    """Store a changed scene or game aspect where it lives (None: a used boost, removed from
    the scene; game aspects are never boosts). `where`: the channel's scene row and scene."""
    if found.game:
        assert changed is not None
        play_row, play = await load_play_in(session, campaign.id)
        aspects = [changed if a.id == changed.id else a for a in play.game_aspects]
        await save_play_in(session, play_row, play.model_copy(update={"game_aspects": aspects}))
        await touch_board_in(session, channel_id)
        return
    row, scene = where
    assert row is not None and scene is not None
    scene, _ = put_aspect(scene, changed, old_id=found.aspect.id)
    await save_scene_in(session, row, scene)


register_source(SceneAspectSource())


# --------------------------------------------------------------------------- zones
def find_zone_key(scene: Scene, zone: str | None) -> str | None:
    """The key of the zone named `zone` (None for none); a sentence listing the zones when
    there is no such zone."""
    if not zone:
        return None
    wanted = " ".join(zone.split()).casefold()
    for item in scene.zones:
        if wanted in (item.key.casefold(), item.name.casefold()):
            return item.key
    names = ", ".join(z.name for z in scene.zones) or "none yet"
    raise RuleError(f"There is no zone '{zone[:60]}' here. Zones: {names}.")
