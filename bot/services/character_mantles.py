"""Mantles on a character: what one gives a sheet (with the campaign's own stunts and
conditions), applying it, writing and removing those custom entries, and the creation step
that picks one."""

from __future__ import annotations

from collections.abc import Callable

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.drafts import CustomMantleEntry
from bot.dfc.creation import CreationDraft
from bot.dfc.mantles import (
    Mantle,
    condition_tracks,
    core_stunts,
    get_mantle,
    incomplete_conditions,
    stress_for_style,
)
from bot.fate.sheet import (
    SheetError,
    apply_mantle,
    clean_text,
    condition_track,
)
from bot.fate.stunts import Stunt
from bot.fate.tracks import Recovery, Track
from bot.services.campaigns import (
    CampaignInfo,
    CampaignSettings,
    CharacterRecord,
    resolve_campaign_in,
    save_character_in,
)
from bot.services.character_base import (
    MAX_CUSTOM_ENTRIES_PER_MANTLE,
    Actor,
    CharacterBase,
    CustomEntry,
    MantleView,
    NotYours,
    condensed_stress,
    custom_entry_of,
)


class CharacterMantles(CharacterBase):
    """Mantles: what one gives a sheet, applying it, and a campaign's own stunts and conditions."""

    # ----- mantles -----

    async def _custom_in(
        self, session: AsyncSession, campaign_id: int, mantle_key: str | None = None
    ) -> list[CustomEntry]:
        query = select(CustomMantleEntry).where(CustomMantleEntry.campaign_id == campaign_id)
        if mantle_key is not None:
            query = query.where(CustomMantleEntry.mantle_key == mantle_key)
        rows = await session.exec(query.order_by(col(CustomMantleEntry.id)))
        return [custom_entry_of(r) for r in rows.all()]

    async def mantle_view(self, actor: Actor, mantle_name: str) -> MantleView:
        mantle = get_mantle(mantle_name)
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
            custom = await self._custom_in(session, campaign.id, mantle.key)
        return MantleView(mantle, custom, condensed_stress(campaign.settings))

    @staticmethod
    def mantle_parts(
        mantle: Mantle, custom: list[CustomEntry], settings: CampaignSettings
    ) -> tuple[list[Stunt], list[Track]]:
        """Core stunts and condition tracks of a mantle, the campaign's custom ones included
        (a custom entry with the same name as a data one replaces it)."""
        stunts = core_stunts(mantle)
        tracks = condition_tracks(mantle, one_point_boxes=condensed_stress(settings))
        for entry in custom:
            if entry.stunt is not None:
                stunts = [s for s in stunts if s.name.casefold() != entry.name.casefold()]
                stunts.append(entry.stunt.model_copy(update={"core": True, "cost": 0}))
            if entry.track is not None:
                tracks = [t for t in tracks if t.label.casefold() != entry.name.casefold()]
                tracks.append(entry.track)
        return stunts, tracks

    async def apply_mantle(
        self, actor: Actor, name: str | None, mantle_name: str
    ) -> tuple[CharacterRecord, list[str]]:
        """Add the mantle's core stunts and conditions; returns the names of conditions the
        data only names (the GM completes them in the editor)."""
        mantle = get_mantle(mantle_name)
        async with self.db.session() as session:
            campaign, record = await self._target_in(session, actor, name)
            self._check_may_edit(actor, record, "give it a mantle")
            if record.sheet.mantle:
                raise SheetError(
                    f"{record.name} already carries the {record.sheet.mantle} mantle; a "
                    "character has one mantle."
                )
            custom = await self._custom_in(session, campaign.id, mantle.key)
            stunts, tracks = self.mantle_parts(mantle, custom, campaign.settings)
            updated = apply_mantle(record.sheet, stunts, tracks, mantle.name)
            saved = await save_character_in(session, record, updated)
        self._remember(saved)
        covered = {e.name.casefold() for e in custom if e.track is not None}
        missing = [
            c.name for c in incomplete_conditions(mantle) if c.name.casefold() not in covered
        ]
        return saved, missing

    async def add_custom_stunt(
        self, actor: Actor, mantle_name: str, stunt: Stunt
    ) -> tuple[Mantle, CustomEntry]:
        return await self._add_custom(
            actor, mantle_name, "stunt", stunt.name, stunt.model_dump_json()
        )

    async def add_custom_condition(
        self,
        actor: Actor,
        mantle_name: str,
        name: str,
        recovery: Recovery,
        boxes: int | None,
        stress: int,
    ) -> tuple[Mantle, CustomEntry]:
        mantle = get_mantle(mantle_name)
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
        if not 1 <= stress <= 20:
            raise SheetError("A condition absorbs 1 to 20 shifts.")
        if recovery is Recovery.LASTING and boxes not in (None, 2):
            raise SheetError("A lasting condition has two boxes.")
        value = stress_for_style(stress, one_point_boxes=condensed_stress(campaign.settings))
        label = clean_text(name, "condition name", 60)
        key = f"{mantle.key}:{'_'.join(label.casefold().split())}"
        track = condition_track(key, label, recovery, value, boxes)
        return await self._add_custom(
            actor, mantle.name, "condition", label, track.model_dump_json()
        )

    async def _add_custom(
        self, actor: Actor, mantle_name: str, kind: str, name: str, payload: str
    ) -> tuple[Mantle, CustomEntry]:
        if not actor.is_gm:
            raise NotYours("Only the GM edits the campaign's mantles.")
        mantle = get_mantle(mantle_name)
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
            existing = await self._custom_in(session, campaign.id, mantle.key)
            if len(existing) >= MAX_CUSTOM_ENTRIES_PER_MANTLE:
                raise SheetError(
                    f"A mantle holds at most {MAX_CUSTOM_ENTRIES_PER_MANTLE} custom entries; "
                    "remove one first."
                )
            same = [e for e in existing if e.kind == kind and e.name.casefold() == name.casefold()]
            for old in same:
                row = await session.get(CustomMantleEntry, old.id)
                if row is not None:
                    await session.delete(row)
            await session.flush()
            row = CustomMantleEntry(
                campaign_id=campaign.id,
                mantle_key=mantle.key,
                kind=kind,
                name=name[:80],
                entry_json=payload,
                author_id=actor.user_id,
            )
            session.add(row)
            await session.flush()
            self.cache.mantle_entries.pop((campaign.id, mantle.key), None)
            return mantle, custom_entry_of(row)

    async def remove_custom(self, actor: Actor, mantle_name: str, name: str) -> Mantle:
        if not actor.is_gm:
            raise NotYours("Only the GM edits the campaign's mantles.")
        mantle = get_mantle(mantle_name)
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
            entries = await self._custom_in(session, campaign.id, mantle.key)
            found = [e for e in entries if e.name.casefold() == name.strip().casefold()]
            if not found:
                raise SheetError(
                    f"The {mantle.name} mantle has no custom entry '{name.strip()[:80]}' in this "
                    "campaign; see `/mantle show`."
                )
            for entry in found:
                row = await session.get(CustomMantleEntry, entry.id)
                if row is not None:
                    await session.delete(row)
        self.cache.mantle_entries.pop((campaign.id, mantle.key), None)
        return mantle


def mantle_step(
    key: str | None,
) -> Callable[[CreationDraft, CampaignInfo, list[CustomEntry]], CreationDraft]:
    """The guided flow's mantle choice: the mantle's core stunts and conditions, the
    campaign's custom ones included, go on the draft (None: plain Fate Condensed)."""

    def apply(d: CreationDraft, campaign: CampaignInfo, custom: list[CustomEntry]) -> CreationDraft:
        if key is None:
            return d.choose_mantle(None)
        mantle = get_mantle(key)
        mine = [e for e in custom if e.mantle_key == mantle.key]
        stunts, tracks = CharacterMantles.mantle_parts(mantle, mine, campaign.settings)
        return d.choose_mantle(mantle.name, stunts, tracks)

    return apply
