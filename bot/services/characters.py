"""Character use cases: guided creation drafts, import/export, viewing, editing, NPCs,
milestones, mantles and the campaign's custom mantle entries.

Every public method is one unit of work (one transaction). Permission rules: players create and
edit their own characters; the GM (decided by the cog and passed in `Actor.is_gm`) any
character of the campaign. Refusals are `NotYours` (a RuleError), so they reach the user as one
ephemeral sentence.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import delete, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.cache import forget
from bot.db.models.campaigns import ActiveCharacter, Campaign, CharacterRow
from bot.db.models.columns import utcnow
from bot.db.models.drafts import CharacterDraftRow, MilestoneLog
from bot.db.models.scenes import SceneRow
from bot.db.repos.versioned import update_versioned_in
from bot.dfc.creation import CreationDraft
from bot.dfc.mantles import (
    get_mantle,
)
from bot.errors import RuleError
from bot.fate import recovery
from bot.fate.milestones import (
    MajorMilestone,
    MinorChange,
    major_milestone,
    minor_milestone,
)
from bot.fate.sheet import (
    AspectKind,
    Character,
    NpcKind,
    SheetError,
    make_npc,
    new_character,
    new_minor_npc,
    npc_stress_track,
)
from bot.fate.sheet_io import ConversionResult, convert_bytes, export_character
from bot.fate.skills import SkillList, column_violation
from bot.fate.stunts import Stunt
from bot.services.campaign_play import load_play_in, read_play_in, save_play_in
from bot.services.campaigns import (
    SERVER_WIDE,
    CampaignInfo,
    CampaignSettings,
    CharacterName,
    CharacterRecord,
    StaleError,
    active_character_in,
    campaign_characters_in,
    character_ref,
    find_character_in,
    get_character_in,
    insert_character_in,
    move_fate_points_in,
    move_fate_points_raw_in,
    resolve_campaign_in,
    save_character_in,
    set_active_in,
)
from bot.services.character_aspects import PARSED_FROM_A_SHEET, characters_here_in
from bot.services.character_base import (
    MILESTONE_LOG_SHOWN,
    Actor,
    CustomEntry,
    DraftState,
    ImportResult,
    MilestoneEntry,
    MilestoneResult,
    NotYours,
    changes_of,
    hide_npc,
    parse_rating_text,
    parse_skill_names,
    spend_grant_in,
)
from bot.services.character_mantles import (
    CharacterMantles,
)
from bot.services.scene_state import (
    load_recovery_in,
    save_recovery_in,
    scene_of,
)

HERE_SECONDS = 15.0  # how long autocomplete trusts who takes part in a channel's scene


class CharacterService(CharacterMantles):
    """Characters: guided creation, imports, edits, milestones and their caches."""

    # ----- campaigns -----

    async def create_campaign(
        self, guild_id: int, name: str, settings: CampaignSettings, bind_channel: int | None
    ) -> CampaignInfo:
        """A new campaign, optionally played in `bind_channel` from now on."""
        info = await self.campaigns.create(guild_id, name, settings)
        self.cache.campaign_names.pop(guild_id, None)
        if bind_channel is not None:
            info = await self.bind_channel(guild_id, bind_channel, info.name)
        return info

    async def bind_channel(self, guild_id: int, channel_id: int, name: str) -> CampaignInfo:
        info = await self.campaigns.bind(guild_id, channel_id, name)
        self.cache.campaigns.pop((guild_id, channel_id), None)  # autocomplete sees it at once
        return info

    async def change_settings(
        self, campaign: CampaignInfo, settings: CampaignSettings
    ) -> tuple[CampaignInfo, int]:
        """Save new settings; when the stress style changes, every sheet of the campaign
        re-derives its stress boxes (marks kept). Returns the campaign and sheets updated."""
        info = await self.campaigns.update_settings(campaign.id, settings)
        self.cache.campaigns.clear()
        if campaign.settings.stress_style is settings.stress_style:
            return info, 0
        changed = 0
        async with self.db.session() as session:
            for record in await campaign_characters_in(session, campaign.id):
                saved = await save_character_in(
                    session, record, record.sheet.recompute_stress(settings.stress_style)
                )
                self._remember(saved)
                changed += 1
        return info, changed

    # ----- reading -----

    async def campaign(self, actor: Actor) -> CampaignInfo:
        async with self.db.session() as session:
            return await resolve_campaign_in(session, actor.guild_id, actor.channel_id)

    async def view(self, actor: Actor, name: str | None) -> tuple[CampaignInfo, CharacterRecord]:
        async with self.db.raw_read() as unit:  # one statement, no ORM
            found = await self._target_raw_in(unit, actor, name)
        if found is None:  # resolving may create the default campaign
            async with self.db.session() as session:
                found = await self._target_in(session, actor, name)
        campaign, record = found
        self._check_may_view(actor, record)
        self._remember(record)
        return campaign, record

    async def listing(self, actor: Actor) -> tuple[CampaignInfo, list[CharacterName], set[int]]:
        """The campaign's characters (NPCs only for the GM) and the actor's active ids."""
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
            rows = await session.exec(
                select(
                    CharacterRow.id, CharacterRow.name, CharacterRow.owner_id, CharacterRow.is_npc
                )
                .where(CharacterRow.campaign_id == campaign.id)
                .order_by(CharacterRow.name)
            )
            names = [
                CharacterName(int(i or 0), n, int(o), bool(npc)) for i, n, o, npc in rows.all()
            ]
            active_rows = await session.exec(
                select(ActiveCharacter.character_id).where(
                    ActiveCharacter.guild_id == actor.guild_id,
                    ActiveCharacter.user_id == actor.user_id,
                    col(ActiveCharacter.channel_id).in_([actor.channel_id, SERVER_WIDE]),
                )
            )
            active = {int(a) for a in active_rows.all()}
        visible = [n for n in names if actor.is_gm or not n.is_npc or n.owner_id == actor.user_id]
        return campaign, visible, active

    async def overview(
        self, actor: Actor
    ) -> tuple[CampaignInfo, list[CharacterRecord], int | None]:
        """The GM's view of the table: every player character of this channel's campaign, and
        the GM pool of the channel's running scene (None without one)."""
        if not actor.is_gm:
            raise NotYours("Only the GM sees every sheet at once; `/character sheet` shows yours.")
        async with self.db.session() as session:  # resolving may create the default campaign
            campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
            records = await campaign_characters_in(session, campaign.id, npcs=False)
            scene = await session.get(SceneRow, actor.channel_id)
        running = scene is not None and scene.active and scene.campaign_id == campaign.id
        pool = scene_of(scene).gm_pool if running and scene is not None else None
        return campaign, records, pool

    async def export(self, actor: Actor, name: str | None) -> tuple[CharacterRecord, str]:
        async with self.db.session() as session:
            _, record = await self._target_in(session, actor, name)
        self._check_may_edit(actor, record, "export it")
        return record, export_character(record.sheet.model_copy(update={"id": None}))

    # ----- import / switch / delete -----

    async def import_file(self, actor: Actor, data: bytes, filename: str) -> ImportResult:
        # Parse outside the write transaction: a 256 KiB file should not hold up the table.
        campaign = await self.campaigns.current(actor.guild_id, actor.channel_id)
        settings = campaign.settings
        result: ConversionResult = convert_bytes(
            data, filename, settings.skill_list(), settings.stress_style
        )
        sheet = result.character.model_copy(update={"id": None})
        if sheet.is_npc and not actor.is_gm:
            raise NotYours("Only the GM can import NPC sheets.")
        async with self.db.session() as session:
            record = await insert_character_in(session, campaign, actor.user_id, sheet)
            if not sheet.is_npc:
                await set_active_in(session, actor.guild_id, actor.user_id, record.id, None)
        self._forget_names(campaign.id)
        self._forget_active(actor)
        self._remember(record)
        return ImportResult(record, result.source, list(result.unmapped))

    async def switch(self, actor: Actor, name: str, *, server_wide: bool) -> CharacterRecord:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
            record = hide_npc(actor, await find_character_in(session, campaign.id, name), name)
            if record.owner_id != actor.user_id and not actor.is_gm:
                raise NotYours(
                    f"{record.name} is not your character; you can only play your own. "
                    "See `/character list`."
                )
            scope = None if server_wide else actor.channel_id
            await set_active_in(session, actor.guild_id, actor.user_id, record.id, scope)
        self._forget_active(actor)
        return record

    async def delete(self, actor: Actor, name: str) -> str:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
            record = hide_npc(actor, await find_character_in(session, campaign.id, name), name)
            self._check_may_edit(actor, record, "delete it")
            await session.exec(  # type: ignore[call-overload]
                delete(ActiveCharacter).where(col(ActiveCharacter.character_id) == record.id)
            )
            await session.exec(  # type: ignore[call-overload]
                delete(MilestoneLog).where(col(MilestoneLog.character_id) == record.id)
            )
            result = await session.exec(  # type: ignore[call-overload]
                delete(CharacterRow).where(
                    col(CharacterRow.id) == record.id, col(CharacterRow.version) == record.version
                )
            )
            if result.rowcount != 1:
                raise StaleError(f"{record.name} was just changed; look again and retry.")
            play_row, play = await load_play_in(session, campaign.id)
            left = play.without_character(record.id)
            if left != play:
                await save_play_in(session, play_row, left)
            for kind in PARSED_FROM_A_SHEET:  # its id may be handed to the next new character
                forget(session, kind, record.id)
        self._forget_names(campaign.id)
        self.cache.sheets.pop(record.id, None)
        self.cache.active.clear()
        return record.name

    # ----- editing -----

    async def edit(
        self,
        actor: Actor,
        name: str | None,
        change: Callable[[Character, CampaignSettings], Character],
        doing: str = "change it",
    ) -> CharacterRecord:
        """Load the character, check the actor may change it, apply `change`, save."""
        async with self.db.session() as session:
            campaign, record = await self._target_in(session, actor, name)
            self._check_may_edit(actor, record, doing)
            updated = change(record.sheet, campaign.settings)
            saved = await save_character_in(session, record, updated)
        if saved.name != record.name:
            self._forget_names(campaign.id)
        self._remember(saved)
        return saved

    async def set_fate_points(self, actor: Actor, name: str | None, value: int) -> CharacterRecord:
        """The GM sets a character's fate points; the change is a ledger entry (and undoable)."""
        if not actor.is_gm:
            raise NotYours(
                "Fate points move through play: invokes, compels, concessions and refresh. "
                "Only the GM sets them by hand (this command, or `/fp give` / `/fp take`)."
            )
        async with self.db.raw() as unit:  # the usual case: three statements, no ORM
            found = await self._target_raw_in(unit, actor, name)
            if found is not None:
                record = found[1]
                if value == record.sheet.fate_points:
                    return record
                saved = await move_fate_points_raw_in(
                    unit,
                    record,
                    value - record.sheet.fate_points,
                    reason="gm_edit",
                    actor_id=actor.user_id,
                    note=FATE_POINTS_NOTE,
                    channel_id=actor.channel_id,
                )
        if found is not None:
            self._remember(saved)
            return saved
        async with self.db.session() as session:
            _campaign, record = await self._target_in(session, actor, name)
            delta = value - record.sheet.fate_points
            if delta == 0:
                return record
            saved, _entry = await move_fate_points_in(
                session,
                record,
                delta,
                reason="gm_edit",
                actor_id=actor.user_id,
                note=FATE_POINTS_NOTE,
                channel_id=actor.channel_id,
            )
        self._remember(saved)
        return saved

    def skill_edit(
        self, actor: Actor, skill: str, rating_text: str
    ) -> Callable[[Character, CampaignSettings], Character]:
        """A skill change; a PC's skills must keep the column rule unless the GM makes it."""
        rating = parse_rating_text(rating_text)

        def change(sheet: Character, settings: CampaignSettings) -> Character:
            updated = sheet.set_skill(skill, rating, settings.skill_list())
            if not sheet.is_npc and not actor.is_gm:
                problem = column_violation(updated.skills)
                if problem:
                    raise SheetError(problem)
            return updated

        return change

    async def add_stunt(self, actor: Actor, name: str | None, stunt: Stunt) -> CharacterRecord:
        return await self.edit(actor, name, lambda c, _s: c.add_stunt(stunt), "add a stunt to it")

    # ----- NPCs -----

    async def create_npc(
        self,
        actor: Actor,
        kind: NpcKind,
        name: str,
        aspects: list[str],
        skills_text: str,
        stress_boxes: int,
    ) -> CharacterRecord:
        if not actor.is_gm:
            raise NotYours("Only the GM can make NPCs.")
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
            skill_list = campaign.settings.skill_list()
            ratings = parse_skill_ratings(skills_text)
            if kind is NpcKind.MINOR:
                sheet = new_minor_npc(name, aspects, ratings, stress_boxes, skill_list=skill_list)
            else:
                base = new_character(
                    name, stress_style=campaign.settings.stress_style, npc_kind=kind
                )
                base = base.model_copy(update={"refresh": 0, "fate_points": 0})
                for text in aspects:
                    base = base.set_aspect(AspectKind.FREE, text)
                base = base.set_skills(ratings, skill_list, replace=False)
                if kind is NpcKind.MONSTER and stress_boxes:
                    base = base.add_track(npc_stress_track(stress_boxes))
                sheet = make_npc(base, kind)
            record = await insert_character_in(session, campaign, actor.user_id, sheet)
        self._forget_names(campaign.id)
        self._remember(record)
        return record

    # ----- milestones -----

    async def milestone(
        self,
        actor: Actor,
        name: str | None,
        minor: MinorChange | None,
        major: MajorMilestone | None,
    ) -> MilestoneResult:
        if major is not None and (major.gm_grants_refresh or major.gm_grants_second_skill):
            if not actor.is_gm:
                raise NotYours(
                    "Only the GM grants +1 refresh or a second skill step; ask the GM to run "
                    "this milestone, or leave those options off."
                )
        async with self.db.session() as session:
            campaign, record = await self._target_in(session, actor, name)
            self._check_may_edit(actor, record, "give it a milestone")
            skills = campaign.settings.skill_list()
            await spend_grant_in(session, campaign.id, record, major is not None)
            if major is not None:
                updated, log = major_milestone(record.sheet, major, skills)
                await self._follow_recovery_in(session, campaign.id, record, updated, major)
            elif minor is not None:
                updated, log = minor_milestone(record.sheet, minor, skills)
            else:
                raise SheetError("Say what the milestone changes.")
            saved = await save_character_in(session, record, updated)
            session.add(
                MilestoneLog(
                    campaign_id=campaign.id,
                    character_id=record.id,
                    kind=log.kind.value,
                    changes_json=json.dumps(log.changes),
                    actor_id=actor.user_id,
                )
            )
        self._remember(saved)
        return MilestoneResult(saved, log)

    @staticmethod
    async def _follow_recovery_in(
        session: AsyncSession,
        campaign_id: int,
        record: CharacterRecord,
        updated: Character,
        major: MajorMilestone,
    ) -> None:
        """Recovery begun at the milestone runs its clock; a cleared consequence stops its own."""
        started = [record.sheet.track(r.slot).key for r in major.start_recovery]
        finished = [record.sheet.track(key).key for key in major.finish_recovery]
        if not started and not finished:
            return
        play = await read_play_in(session, campaign_id)
        row, state = await load_recovery_in(session, record.id)
        state = recovery.follow_milestone(
            updated.tracks,
            state,
            started=started,
            finished=finished,
            during_session=play.milestones.in_session,
        )
        await save_recovery_in(session, row, state)

    async def milestone_log(
        self, actor: Actor, name: str | None
    ) -> tuple[CharacterRecord, list[MilestoneEntry], int]:
        """The character's latest milestones (newest first) and how many it took in all."""
        async with self.db.session() as session:
            _, record = await self._target_in(session, actor, name)
            self._check_may_view(actor, record)
            rows = await session.exec(
                select(MilestoneLog)
                .where(MilestoneLog.character_id == record.id)
                .order_by(col(MilestoneLog.id).desc())
                .limit(MILESTONE_LOG_SHOWN)
            )
            entries = [
                MilestoneEntry(r.kind, changes_of(r.changes_json), r.created_at, r.actor_id)
                for r in rows.all()
            ]
            total = len(entries)
            if total == MILESTONE_LOG_SHOWN:
                counted = await session.exec(
                    select(func.count()).where(MilestoneLog.character_id == record.id)
                )
                total = int(counted.one())
        return record, entries, total

    # ----- guided creation drafts -----

    async def open_draft(self, actor: Actor) -> DraftState:
        """The user's stored draft in this campaign, or a fresh one."""
        try:
            return await self._open_draft_once(actor)
        except IntegrityError:  # two /character create at once: the other one made it
            return await self._open_draft_once(actor)

    async def _open_draft_once(self, actor: Actor) -> DraftState:
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
            row = (
                await session.exec(
                    select(CharacterDraftRow).where(
                        CharacterDraftRow.campaign_id == campaign.id,
                        CharacterDraftRow.user_id == actor.user_id,
                    )
                )
            ).first()
            resumed = row is not None
            if row is None:
                draft = CreationDraft(stress_style=campaign.settings.stress_style)
                row = CharacterDraftRow(
                    campaign_id=campaign.id,
                    guild_id=actor.guild_id,
                    user_id=actor.user_id,
                    draft_json=draft.model_dump_json(),
                )
                session.add(row)
                await session.flush()
            return self._draft_state(row, campaign, resumed=resumed)

    @staticmethod
    def _draft_state(
        row: CharacterDraftRow, campaign: CampaignInfo, *, resumed: bool = False
    ) -> DraftState:
        assert row.id is not None
        return DraftState(row.id, row.user_id, campaign, _stored_draft(row), row.version, resumed)

    async def _draft_row_in(
        self, session: AsyncSession, draft_id: int, user_id: int, seen: int | None = None
    ) -> tuple[CharacterDraftRow, CampaignInfo]:
        """The draft's row for its owner; `seen`: the version the clicked step was drawn for
        (None: a form, or a button posted before buttons carried it)."""
        row = await session.get(CharacterDraftRow, draft_id)
        if row is None:
            raise RuleError(
                "That character draft is finished or was started over; run `/character create` "
                "to see where you are."
            )
        if row.user_id != user_id:
            raise NotYours("This is someone else's character draft; run `/character create`.")
        if seen is not None and row.version != seen:
            raise StaleError(EARLIER_STEP)
        campaign_row = await session.get(Campaign, row.campaign_id)
        if campaign_row is None:
            raise RuleError("That campaign no longer exists.")
        return row, CampaignInfo.of(campaign_row)

    async def get_draft(self, draft_id: int, user_id: int, seen: int | None = None) -> DraftState:
        async with self.db.session() as session:
            row, campaign = await self._draft_row_in(session, draft_id, user_id, seen)
            return self._draft_state(row, campaign)

    async def update_draft(
        self,
        draft_id: int,
        user_id: int,
        change: Callable[[CreationDraft, CampaignInfo, list[CustomEntry]], CreationDraft],
        seen: int | None = None,
    ) -> DraftState:
        """One step of the guided flow; the steps that ask nothing are passed on the way."""
        async with self.db.session() as session:
            row, campaign = await self._draft_row_in(session, draft_id, user_id, seen)
            custom = await self._custom_in(session, campaign.id)
            updated = change(_stored_draft(row), campaign, custom).past_confirmations()
            stale = StaleError("The draft changed in another window; run `/character create`.")
            values = {"draft_json": updated.model_dump_json(), "updated_at": utcnow()}
            version = await update_versioned_in(
                session, CharacterDraftRow, draft_id, row.version, values, stale
            )
            return DraftState(draft_id, user_id, campaign, updated, version)

    async def restart_draft(
        self, draft_id: int, user_id: int, seen: int | None = None
    ) -> DraftState:
        return await self.update_draft(
            draft_id,
            user_id,
            lambda _d, campaign, _c: CreationDraft(stress_style=campaign.settings.stress_style),
            seen,
        )

    async def finish_draft(
        self, draft_id: int, actor: Actor, seen: int | None = None
    ) -> CharacterRecord:
        async with self.db.session() as session:
            row, campaign = await self._draft_row_in(session, draft_id, actor.user_id, seen)
            sheet = _stored_draft(row).finish(campaign.settings.skill_list())
            # Claim the draft first: of two clicks on Finish, only one deletes the row.
            claimed = await session.exec(  # type: ignore[call-overload]
                delete(CharacterDraftRow).where(
                    col(CharacterDraftRow.id) == draft_id,
                    col(CharacterDraftRow.version) == row.version,
                )
            )
            if claimed.rowcount != 1:
                raise StaleError("That character is already finished; see `/character sheet`.")
            # A taken name is refused here (the claim above rolls back with it).
            taken = await session.exec(
                select(CharacterRow.id).where(
                    CharacterRow.campaign_id == campaign.id,
                    func.lower(CharacterRow.name) == sheet.name.lower(),
                )
            )
            if taken.first() is not None:
                raise SheetError(
                    f"There is already a character called '{sheet.name}' in this campaign; "
                    "press **Change name** and pick another."
                )
            record = await insert_character_in(session, campaign, actor.user_id, sheet)
            await set_active_in(session, actor.guild_id, actor.user_id, record.id, None)
        self._forget_names(campaign.id)
        self._forget_active(actor)
        self._remember(record)
        return record

    # ----- autocomplete (from memory; at most one quick query per half minute) -----

    async def campaign_cached(self, actor: Actor) -> CampaignInfo:
        key = (actor.guild_id, actor.channel_id)
        hit = self.cache.campaigns.get(key)
        if hit and self.cache.fresh(hit[0]):
            return hit[1]
        campaign = await self.campaigns.current(actor.guild_id, actor.channel_id)
        self.cache.campaigns[key] = (time.monotonic(), campaign)
        return campaign

    async def names_cached(self, actor: Actor, *, here: bool = False) -> list[CharacterName]:
        """The names the actor may know: the GM all; a player the PCs and their own NPCs and,
        with `here`, the GM's NPCs taking part in this channel's scene or encounter (the ones
        a player may name as a target: `character_known_here_in`)."""
        campaign = await self.campaign_cached(actor)
        names = await self.campaigns.character_names(campaign.id)
        if actor.is_gm:
            return names
        secret = {n.id for n in names if n.is_npc and n.owner_id != actor.user_id}
        if here and secret:
            secret -= await self._here_cached(campaign, actor.channel_id)
        return [n for n in names if n.id not in secret]

    async def _here_cached(self, campaign: CampaignInfo, channel_id: int) -> set[int]:
        """`characters_here_in`, read again only once the server's rows changed (or after
        HERE_SECONDS: a change another process made may go unheard): autocomplete asks at
        every keystroke."""
        key = (campaign.id, channel_id)
        stamp = self.db.changes.stamp(campaign.guild_id)
        hit = self.cache.here.get(key)
        if hit and hit[1] == stamp and time.monotonic() - hit[0] < HERE_SECONDS:
            return hit[2]
        async with self.db.read() as session:
            here = await characters_here_in(session, campaign, channel_id)
        self.cache.here[key] = (time.monotonic(), stamp, here)
        return here

    async def sheet_cached(self, actor: Actor, name: str | None = None) -> Character | None:
        """The named character (else the actor's active one) for autocomplete, or None."""
        campaign = await self.campaign_cached(actor)
        character_id: int | None = None
        if name and name.strip():
            wanted = name.strip()
            names = await self.campaigns.character_names(campaign.id)
            ref = character_ref(wanted)
            if ref is not None:
                found = [n for n in names if n.id == ref]
            else:
                found = [n for n in names if n.name.casefold() == wanted.casefold()]
            # An NPC's sheet (aspects, stunts, tracks) is only suggested to the GM.
            visible = [
                n for n in found if actor.is_gm or not n.is_npc or n.owner_id == actor.user_id
            ]
            character_id = visible[0].id if visible else None
        else:
            key = (actor.guild_id, actor.channel_id, actor.user_id)
            hit = self.cache.active.get(key)
            if hit and self.cache.fresh(hit[0]):
                character_id = hit[1]
            else:
                async with self.db.session() as session:
                    record = await active_character_in(
                        session, campaign, actor.channel_id, actor.user_id
                    )
                character_id = record.id if record else None
                self.cache.active[key] = (time.monotonic(), character_id)
                if record is not None:
                    self._remember(record)
        if character_id is None:
            return None
        cached = self.cache.sheets.get(character_id)
        sheet = cached[1] if cached and self.cache.fresh(cached[0]) else None
        if sheet is None:
            async with self.db.session() as session:
                try:
                    record = await get_character_in(session, character_id)
                except RuleError:
                    return None
            if record.campaign_id != campaign.id:
                return None
            self._remember(record)
            sheet = record.sheet
        return sheet

    async def skill_list_cached(self, actor: Actor) -> SkillList:
        return (await self.campaign_cached(actor)).settings.skill_list()

    async def campaign_names_cached(self, guild_id: int) -> list[str]:
        hit = self.cache.campaign_names.get(guild_id)
        if hit and self.cache.fresh(hit[0]):
            return hit[1]
        campaigns, _ = await self.campaigns.overview(guild_id)
        names = [c.name for c in campaigns]
        self.cache.campaign_names[guild_id] = (time.monotonic(), names)
        return names

    async def custom_entry_names_cached(self, actor: Actor, mantle_name: str) -> list[str]:
        """Names of this campaign's custom entries for a mantle (raises on an unknown mantle)."""
        mantle = get_mantle(mantle_name)
        campaign = await self.campaign_cached(actor)
        key = (campaign.id, mantle.key)
        hit = self.cache.mantle_entries.get(key)
        if hit and self.cache.fresh(hit[0]):
            return hit[1]
        async with self.db.session() as session:
            names = [e.name for e in await self._custom_in(session, campaign.id, mantle.key)]
        self.cache.mantle_entries[key] = (time.monotonic(), names)
        return names


# --------------------------------------------------------------------------- more parsing
def parse_skill_ratings(text: str) -> dict[str, int]:
    """'Fight +3, Athletics 2, Notice fair' -> {skill: rating} (names checked by the sheet)."""
    ratings: dict[str, int] = {}
    for part in parse_skill_names(text):
        words = part.rsplit(None, 1)
        if len(words) != 2:
            raise SheetError(
                f"'{part[:40]}' needs a rating: write skills like 'Fight +3, Notice +1'."
            )
        ratings[words[0].strip()] = parse_rating_text(words[1])
    return ratings


FATE_POINTS_NOTE = "set with /character edit fate-points"
EARLIER_STEP = (
    "That button belongs to an earlier step of your character draft, which has moved on since; "
    "use the newest step, or run `/character create` to see it here."
)


def _stored_draft(row: CharacterDraftRow) -> CreationDraft:
    """A stored draft, past the steps that ask nothing (one saved before they were passed
    automatically may still sit on one)."""
    return CreationDraft.model_validate_json(row.draft_json).past_confirmations()


def get_service(bot: Any) -> CharacterService:
    """The bot's one CharacterService (created on first use by whichever cog loads first)."""
    service = getattr(bot, "characters", None)
    if not isinstance(service, CharacterService):
        service = CharacterService(bot.db, bot.campaigns)
        bot.characters = service
    return service
