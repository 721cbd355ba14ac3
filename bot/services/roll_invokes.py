"""Invokes on a roll: the menu of aspects in play (the roller's own first), the ways to pay,
and the invoke itself (the roll is written first, then the fate point or free invoke is paid)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.campaigns import CharacterRow
from bot.db.models.rolls import RollRow
from bot.db.repos.rolls import invoke_note
from bot.errors import RuleError
from bot.fate import rolls as rules
from bot.fate.aspects import character_holder, holder_character_id
from bot.fate.rolls import (
    FatePointToSpend,
    FreeInvokeToSpend,
    InvokeMode,
    Payment,
    Roll,
    RollEvent,
)
from bot.fate.sheet import ASPECT_MAX
from bot.services.aspects_in_play import (
    AspectInPlay,
    aspects_in_play_in,
    spend_free_invoke_in,
)
from bot.services.campaigns import (
    CampaignInfo,
    CharacterRecord,
    StaleError,
    get_character_in,
    move_fate_points_in,
)
from bot.services.character_aspects import parse_key
from bot.services.roll_base import (
    GM_HOLDER,
    GM_PAYER,
    HIDDEN_NAME,
    PICKER_LIMIT,
    InvokePicker,
    PaymentOption,
    Role,
    RollBase,
    RollChange,
    RollNotAllowed,
    RollView,
    squeezed,
)
from bot.services.scene_state import (
    spend_gm_point_in,
)


class RollInvokes(RollBase):
    """Invokes on a roll: the menu of aspects, how to pay, and the invoke itself."""

    # ----------------------------------------------------------------- invokes
    async def invoke_picker(
        self, roll_id: int, *, user_id: int, is_gm: bool, hostile: bool
    ) -> InvokePicker:
        async with self._unit() as session:
            row = await self._row_in(session, roll_id)
            role, mine = await self._role_in(session, row, user_id, is_gm)
            self._require_open(row)
            if hostile and not is_gm:
                raise RollNotAllowed("Only the GM can make a hostile invoke.")
            campaign = await self._campaign_in(session, row)
            found = await aspects_in_play_in(
                session, campaign, row.channel_id, include_hidden=is_gm
            )
            if role is Role.ALLY and mine is not None:
                held = character_holder(mine.id)
                found = [a for a in found if a.free_invokes.get(held)]
                if not found:
                    raise RollNotAllowed(
                        f"{mine.name} holds no free invoke to pass on; help with Teamwork +1, "
                        "or create an advantage first."
                    )
            if not found:
                raise RuleError("There is no aspect in play to invoke yet.")
            found = _ordered(found, row, mine)[:PICKER_LIMIT]
            return InvokePicker(await self._view_in(session, row), found)

    def _require_open(self, row: RollRow) -> None:
        if row.closed:
            raise rules.RollClosedError(
                "This roll is closed and takes no more invokes; make a new roll instead."
            )

    async def _payments_in(
        self,
        session: AsyncSession,
        row: RollRow,
        user_id: int,
        is_gm: bool,
        aspect: AspectInPlay,
        hostile: bool,
    ) -> list[PaymentOption]:
        # the hostile flag comes back in a select's custom id: checked again at every step
        if hostile and not is_gm:
            raise RollNotAllowed("Only the GM can make a hostile invoke.")
        role, mine = await self._role_in(session, row, user_id, is_gm)
        options: list[PaymentOption] = []
        holders: list[str] = []
        if mine is not None:
            holders.append(character_holder(mine.id))
        if is_gm:
            holders.append(GM_HOLDER)
        for holder in holders:
            count = aspect.free_invokes.get(holder, 0)
            if count:
                who = "GM" if holder == GM_HOLDER else (mine.name if mine else "you")
                options.append(
                    PaymentOption(
                        f"free:{holder}",
                        f"Free invoke held by {who} ({count} left)",
                        "" if who == "you" else who,
                    )
                )
        if not aspect.is_boost:
            if hostile:
                options.append(PaymentOption("fp:gm", "A fate point from the GM pool", "GM"))
            elif role is Role.ROLLER and mine is not None and not mine.is_npc:
                options.append(
                    PaymentOption(
                        f"fp:{character_holder(mine.id)}",
                        f"A fate point of {mine.name} ({mine.sheet.fate_points} left)",
                        mine.name,
                    )
                )
            elif role is Role.ROLLER and is_gm:
                options.append(PaymentOption("fp:gm", "A fate point from the GM pool", "GM"))
        return options

    async def payment_options(
        self, roll_id: int, *, user_id: int, is_gm: bool, aspect_key: str, hostile: bool
    ) -> tuple[RollView, AspectInPlay, list[PaymentOption]]:
        async with self._unit() as session:
            row = await self._row_in(session, roll_id)
            self._require_open(row)
            aspect = await self._aspect_in(session, row, aspect_key, is_gm)
            options = await self._payments_in(session, row, user_id, is_gm, aspect, hostile)
            if not options:
                if aspect.is_boost:
                    raise RuleError(f"'{aspect.name}' is a boost and you hold no invoke on it.")
                raise RuleError(
                    f"You cannot pay for '{aspect.name}': you have no fate point to spend on "
                    "this roll and hold no free invoke on it."
                )
            return await self._view_in(session, row), aspect, options

    async def _aspect_in(
        self, session: AsyncSession, row: RollRow, key: str, is_gm: bool
    ) -> AspectInPlay:
        campaign = await self._campaign_in(session, row)
        for aspect in await aspects_in_play_in(
            session, campaign, row.channel_id, include_hidden=is_gm
        ):
            if aspect.key == key:
                return aspect
        raise RuleError("That aspect is no longer in play; click Invoke again and pick another.")

    async def invoke(
        self,
        roll_id: int,
        *,
        version: int,
        user_id: int,
        user_name: str,
        is_gm: bool,
        aspect_key: str,
        mode: InvokeMode,
        hostile: bool,
        payment: str,
    ) -> RollChange:
        async with self._unit() as session:
            row = await self._changing_row_in(session, roll_id)
            self._require_open(row)
            if row.version != version:
                raise StaleError(
                    "The roll changed since you opened this picker; click Invoke again."
                )
            aspect = await self._aspect_in(session, row, aspect_key, is_gm)
            options = await self._payments_in(session, row, user_id, is_gm, aspect, hostile)
            chosen = next((o for o in options if o.value == payment), None)
            if chosen is None:
                raise RuleError("You cannot pay that way any more; click Invoke again.")
            kind, _, holder = payment.partition(":")
            payer = GM_PAYER if holder == GM_HOLDER else holder_character_id(holder)
            assert payer is not None
            owner = await self._invoked_against_in(session, row, aspect, hostile, user_id, is_gm)
            campaign = await self._campaign_in(session, row)
            # a GM-hidden aspect (an NPC's) stays unnamed on every roll a player sees: a
            # player's hidden roll too (its roller sees it); named on the GM's own, and on the
            # GM channel's copy of a player's
            named = not aspect.hidden or (row.hidden and is_gm and row.user_id == user_id)
            name = aspect.name[:ASPECT_MAX]
            roll, events = rules.apply_invoke(
                Roll.model_validate_json(row.roll_json),
                self.rng,
                invoker_id=user_id,
                # the table knows its characters: the one who pays invokes (the GM for the pool)
                invoker_name=squeezed(chosen.who or user_name, 80) or "someone",
                aspect_key=aspect.key,
                aspect_name=name if named else HIDDEN_NAME,
                gm_aspect_name=None if named else name,
                mode=mode,
                payment=Payment.FATE_POINT if kind == "fp" else Payment.FREE_INVOKE,
                payer_id=payer,
                hostile=hostile,
                is_boost=aspect.is_boost,
                aspect_owner_id=owner,
            )
            row = await self._save_in(session, row, roll)
            await self._pay_in(session, campaign, row, events, user_id, aspect)
            others = await self._sync_partner_in(session, row)
            return RollChange(await self._view_in(session, row), others)

    async def _invoked_against_in(
        self,
        session: AsyncSession,
        row: RollRow,
        aspect: AspectInPlay,
        hostile: bool,
        user_id: int,
        is_gm: bool,
    ) -> int | None:
        """The character an invoke works against, owed its fate point at the scene's end (the
        rules' hostile invoke: someone else's aspect invoked against them); None when it helps
        its owner's side or the aspect is nobody's (the scene's)."""
        parsed = parse_key(aspect.key)
        if parsed is None:
            return None
        target = parsed.character_id
        if hostile:  # +2 to the opposition: against the roller only when it is theirs
            return target if target == row.character_id else None
        if target == row.character_id:
            return None
        # an opposed pair of rolls point at each other: the roll this one faces is theirs
        faced = await session.get(RollRow, row.opposes_id) if row.opposes_id else None
        if faced is not None and faced.character_id == target:
            return target
        owner = await session.get(CharacterRow, target)
        roller = await session.get(CharacterRow, row.character_id) if row.character_id else None
        # the GM's side: an NPC's roll, or the GM's own roll without a character
        gm_side = roller.is_npc if roller is not None else (is_gm and row.user_id == user_id)
        return target if owner is not None and owner.is_npc != gm_side else None

    async def _pay_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        row: RollRow,
        events: list[RollEvent],
        actor_id: int,
        aspect: AspectInPlay,
    ) -> None:
        for event in events:
            if isinstance(event, FatePointToSpend):
                note = invoke_note(aspect.name, row.id or 0)
                if event.payer_id == GM_PAYER:
                    await self._spend_gm_point_in(session, campaign, row, actor_id, note)
                else:
                    record = await get_character_in(session, event.payer_id)
                    await move_fate_points_in(
                        session,
                        record,
                        -1,
                        reason="invoke",
                        actor_id=actor_id,
                        note=note,
                        channel_id=row.channel_id,
                        roll_id=row.id,
                    )
            elif isinstance(event, FreeInvokeToSpend):
                holder = (
                    GM_HOLDER if event.holder_id == GM_PAYER else character_holder(event.holder_id)
                )
                await spend_free_invoke_in(
                    session, campaign, row.channel_id, event.aspect_key, holder
                )

    async def _spend_gm_point_in(
        self, session: AsyncSession, campaign: CampaignInfo, row: RollRow, actor_id: int, note: str
    ) -> None:
        """One point out of the GM pool of the channel's scene (with its ledger entry)."""
        await spend_gm_point_in(
            session,
            campaign,
            row.channel_id,
            reason="invoke",
            actor_id=actor_id,
            note=note,
            roll_id=row.id,
        )


def _ordered(
    found: list[AspectInPlay], row: RollRow, mine: CharacterRecord | None
) -> list[AspectInPlay]:
    """The roller's own aspects first, then the clicker's free invokes, then the rest."""
    own = f"{character_holder(row.character_id)}:" if row.character_id is not None else None
    held = character_holder(mine.id) if mine is not None else None

    def rank(aspect: AspectInPlay) -> int:
        if held is not None and aspect.free_invokes.get(held):
            return 0
        if own is not None and aspect.key.startswith(own):
            return 1
        if parse_key(aspect.key) is None:
            return 2
        return 3

    return sorted(found, key=rank)
