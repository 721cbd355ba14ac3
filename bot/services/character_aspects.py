"""The "char" aspect source: every character's aspects, consequences and conditions.

Keys: "char:<character id>:a:<aspect index>" for sheet aspects (their free invokes are held by
that character) and "char:<character id>:t:<track index>" for a marked consequence or condition.
NPC sheet aspects are GM-only (hidden). What has been inflicted on a PC is public; on an NPC
it is public only where that NPC is: in the channel's running scene or live encounter (a player
must be able to invoke the ghoul's Broken Arm there, and learn nothing of NPCs elsewhere).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.cache import parsed, remember
from bot.db.models.scenes import SceneRow
from bot.db.repos.encounters import live_encounter_states_in
from bot.errors import RuleError
from bot.fate.aspects import CHARACTER_HOLDER, character_holder, holder_character_id
from bot.fate.sheet import Aspect as SheetAspect
from bot.fate.sheet import NpcKind
from bot.fate.tracks import TrackKind
from bot.services.aspects_in_play import AspectInPlay, register_source
from bot.services.campaigns import (
    CampaignInfo,
    CharacterRecord,
    campaign_characters_in,
    find_character_in,
    get_character_in,
    save_character_in,
    unknown_character,
)
from bot.services.encounters import EncounterState, Member
from bot.services.scene_state import parsed_scene_in

SHEET_ASPECTS = "sheet aspects"  # what the parsed-row cache keeps of a sheet for invoke menus
PARSED_FROM_A_SHEET = ("character", SHEET_ASPECTS)  # what a deleted character's id drops
PREFIX = CHARACTER_HOLDER  # a character's aspects carry the prefix its invokes are held by
ASPECT = "a"
TRACK = "t"


@dataclass(frozen=True)
class CharacterAspectKey:
    """A sheet aspect's key taken apart: the character and which aspect."""

    character_id: int
    part: str  # ASPECT or TRACK
    index: int

    def text(self) -> str:
        return f"{PREFIX}:{self.character_id}:{self.part}:{self.index}"


def parse_key(key: str) -> CharacterAspectKey | None:
    """The parts of a sheet aspect key, or None when it names something else."""
    parts = key.split(":")
    if (
        len(parts) == 4
        and parts[0] == PREFIX
        and parts[1].isdigit()
        and parts[2] in (ASPECT, TRACK)
        and parts[3].isdigit()
    ):
        return CharacterAspectKey(int(parts[1]), parts[2], int(parts[3]))
    return None


def sheet_aspects(record: CharacterRecord) -> list[AspectInPlay]:
    """What one character brings into play."""
    found: list[AspectInPlay] = []
    sheet = record.sheet
    for index, aspect in enumerate(sheet.aspects):
        invokes = {character_holder(record.id): aspect.free_invokes} if aspect.free_invokes else {}
        found.append(
            AspectInPlay(
                key=CharacterAspectKey(record.id, ASPECT, index).text(),
                name=aspect.text,
                owner=record.name,
                hidden=record.is_npc,
                free_invokes=invokes,
            )
        )
    for index, track in enumerate(sheet.tracks):
        if track.kind is TrackKind.CONSEQUENCE and track.aspect:
            name = track.aspect
        elif track.kind is TrackKind.CONDITION and not track.is_free:
            name = track.aspect or track.label
        else:
            continue
        found.append(
            AspectInPlay(
                key=CharacterAspectKey(record.id, TRACK, index).text(),
                name=name,
                owner=record.name,
            )
        )
    return found


async def characters_here_in(
    session: AsyncSession, campaign: CampaignInfo, channel_id: int
) -> set[int]:
    """The characters taking part in this channel's running scene or live conflict, contest
    or challenge (a conflict's cast joins the running scene, but may run without one)."""
    here: set[int] = set()
    row = await session.get(SceneRow, channel_id)
    if row is not None and row.active and row.campaign_id == campaign.id:
        scene = parsed_scene_in(session, channel_id, row.version, row.scene_json)
        for person in scene.participants:
            character_id = holder_character_id(person.id)
            if character_id is not None:
                here.add(character_id)
    for state_json in await live_encounter_states_in(session, campaign.id, channel_id):
        members = EncounterState.model_validate_json(state_json).members.values()
        here.update(member.character_id for member in members)
    return here


async def character_known_here_in(
    session: AsyncSession,
    campaign: CampaignInfo,
    channel_id: int,
    name: str,
    *,
    user_id: int,
    is_gm: bool,
) -> CharacterRecord:
    """A character someone names in this channel (by name or "#id"). Players know the PCs,
    their own NPCs and the NPCs taking part here; any other NPC of the GM's gets what an
    unknown name gets, so its existence stays secret."""
    record = await find_character_in(session, campaign.id, name)
    if not record.is_npc or is_gm or record.owner_id == user_id:
        return record
    if record.id in await characters_here_in(session, campaign, channel_id):
        return record
    raise unknown_character(name)


class CharacterAspectSource:
    """The characters' sheet aspects as a source for invoke menus."""

    prefix = PREFIX

    async def aspects_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int
    ) -> list[AspectInPlay]:
        found: list[AspectInPlay] = []
        here: set[int] | None = None  # read only when an NPC has something inflicted
        for record in await campaign_characters_in(session, campaign.id):
            # made once per version of the sheet, like the sheet (only read: frozen)
            aspects = parsed(session, SHEET_ASPECTS, record.id, record.version)
            if aspects is None:
                aspects = sheet_aspects(record)
                remember(session, SHEET_ASPECTS, record.id, record.version, aspects)
            if record.is_npc and any(not a.hidden for a in aspects):
                if here is None:
                    here = await characters_here_in(session, campaign, channel_id)
                if record.id not in here:
                    aspects = [replace(a, hidden=True) for a in aspects]
            found.extend(aspects)
        return found

    async def spend_free_invoke_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
    ) -> None:
        record, aspect = await self._own_aspect_in(session, campaign, key, holder)
        if aspect.free_invokes < 1:
            raise RuleError(
                f"There is no free invoke left on '{aspect.text}'; pay with a fate point instead."
            )
        await save_character_in(
            session, record, record.sheet.set_free_invokes(aspect.text, aspect.free_invokes - 1)
        )

    async def return_free_invoke_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
    ) -> None:
        record, aspect = await self._own_aspect_in(session, campaign, key, holder)
        await save_character_in(
            session, record, record.sheet.set_free_invokes(aspect.text, aspect.free_invokes + 1)
        )

    @staticmethod
    async def _own_aspect_in(
        session: AsyncSession, campaign: CampaignInfo, key: str, holder: str
    ) -> tuple[CharacterRecord, SheetAspect]:
        """The sheet aspect of this key, when `holder` is its own character (the only holder)."""
        parsed = parse_key(key)
        if parsed is None:
            raise RuleError("That aspect is no longer in play; pick another one.")
        record = await get_character_in(session, parsed.character_id)
        if record.campaign_id != campaign.id:
            raise RuleError("That aspect is no longer in play; pick another one.")
        if parsed.part != ASPECT or parsed.index >= len(record.sheet.aspects):
            raise RuleError(f"Nobody holds a free invoke on that aspect of {record.name}.")
        aspect = record.sheet.aspects[parsed.index]
        if holder != character_holder(record.id):
            raise RuleError(
                f"There is no free invoke left on '{aspect.text}'; pay with a fate point instead."
            )
        return record, aspect


SOURCE = CharacterAspectSource()
register_source(SOURCE)


async def owe_hostile_invoke_in(
    session: AsyncSession, state: EncounterState, invoker: Member, team: str, aspect_key: str
) -> str:
    """A fate point spent on a sheet aspect in a contest or challenge: when the invoke works
    against the aspect's character (someone on another side, or, not taking part, on the other
    side of the table: an NPC's aspect invoked by a PC or a PC's by an NPC), that character is
    owed the point when the encounter closes. Returns the log's words for it ("" when nobody is
    owed, or the owner is not taking part: an NPC's presence may be the GM's secret)."""
    parsed = parse_key(aspect_key)
    if parsed is None or parsed.character_id == invoker.character_id:
        return ""
    owner = parsed.character_id
    try:
        record = await get_character_in(session, owner)
    except RuleError:
        return ""  # deleted meanwhile
    if record.sheet.npc_kind is NpcKind.MINOR:
        return ""  # the seed: a minor NPC brings the GM nothing
    here = next((k for k, m in state.members.items() if m.character_id == owner), None)
    if here is not None:
        if state.team_of(here) == team:
            return ""  # an ally's aspect helps its own side
    elif record.is_npc == invoker.is_npc:
        return ""
    state.owed = {**state.owed, owner: state.owed.get(owner, 0) + 1}
    return f"{state.members[here].name} is owed a fate point when it ends." if here else ""
