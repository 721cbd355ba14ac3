"""Rolls as database rows: make a roll, invoke on it, teamwork, scale, defend, close, the log.

Every public method is one transaction. Invokes check the roll's version (the one the clicker
saw), write the roll first (so that a second identical click finds a newer version and stops)
and then pay: a fate point through the ledger, or a free invoke through its aspect source.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import text
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.changes import touched
from bot.db.models.columns import utcnow
from bot.db.models.rolls import OPEN_ROLL, RollRow
from bot.db.raw import RawUnit
from bot.db.repos.characters import NEW_DEFAULT_CAMPAIGN
from bot.db.repos.encounters import active_encounter_in
from bot.db.repos.rolls import OPEN_PLAIN_ROLLS as RAW_OPEN_PLAIN
from bot.db.repos.rolls import OPEN_ROLLS_OF_CHARACTER as RAW_OPEN_OF_CHARACTER
from bot.db.repos.rolls import ROLL_CONTEXT as RAW_CONTEXT
from bot.db.repos.rolls import invoke_entries_in, new_roll_raw_in
from bot.db.repos.versioned import update_versioned_raw_in
from bot.errors import RuleError
from bot.fate import rolls as rules
from bot.fate.aspects import character_holder
from bot.fate.ladder import parse_rating
from bot.fate.rolls import (
    Action,
    AdvantageTarget,
    Roll,
    Roller,
    RollEvent,
    ScaleLevel,
    ScaleMode,
)
from bot.services.aspects_in_play import (
    return_free_invoke_in,
)
from bot.services.campaigns import (
    DEFAULT_CAMPAIGN_NAME,
    CampaignInfo,
    CharacterRecord,
    StaleError,
    active_character_in,
    get_character_in,
    parsed_campaign_in,
    parsed_character_in,
    resolve_campaign_in,
)
from bot.services.economy import undo_entry_in, why_not_reversed
from bot.services.roll_base import (
    CONFLICT_HINT,
    DESCRIPTION_MAX,
    GM_HOLDER,
    GM_PAYER,
    LOG_LIMIT,
    MODIFIER_RANGE,
    OPEN_PLAIN_ROLLS,
    OPEN_ROLLS_OF_CHARACTER,
    PENDING_LIMIT,
    PICKER_LIMIT,
    RESULT_MAX,
    SAME_MOMENT,
    Role,
    RollChange,
    RollNotAllowed,
    RollRequest,
    RollView,
    check_advantage_choice,
    roll_context_in,
    squeezed,
    stunt_options,
)
from bot.services.roll_invokes import (
    RollInvokes,
)
from bot.services.scene_advantage import advantage_target_in, apply_advantage_in
from bot.services.scene_state import named_character_in, retry_stale


def hidden_from(row: RollRow, user_id: int, is_gm: bool) -> bool:
    """Whether the roll is someone else's hidden one: for a player, a roll that is not there
    (the roller and the GM see it)."""
    return row.hidden and not is_gm and row.user_id != user_id


def aspect_free(request: RollRequest) -> bool:
    """Whether a roll asks for no advantage aspect (nor a zone for one)."""
    return request.advantage_aspect is None and request.zone is None


class RollService(RollInvokes):
    """Rolls: make one, invoke, teamwork, defend, scale, close, the log."""

    # ----------------------------------------------------------------- making a roll
    async def start(self, request: RollRequest) -> RollChange:
        """Make a roll. With `advantage_aspect` it is a create-an-advantage roll on that aspect
        (new or in play); its message gets a button that applies the outcome to the scene."""
        low, high = MODIFIER_RANGE
        if request.advantage_aspect is not None:
            if request.action not in (None, Action.CREATE_ADVANTAGE):
                raise RuleError(
                    "An aspect goes with the create-an-advantage action; drop `aspect` or pick "
                    "`action:Create an advantage`."
                )
            request = replace(request, action=Action.CREATE_ADVANTAGE)
        elif request.zone is not None:
            raise RuleError("A zone only goes with an aspect to create; add `aspect` too.")
        if not low <= request.modifier <= high:
            raise RuleError(f"Modifiers run from {low} to +{high}; pick one in that range.")
        target: int | None = None
        if request.difficulty is not None and request.difficulty.strip():
            try:
                target = parse_rating(request.difficulty)
            except ValueError as error:
                raise RuleError(str(error)) from None
            if not -10 <= target <= 20:
                raise RuleError("Difficulties run from -10 to +20; pick one on the ladder.")
        if target is not None and request.against is not None:
            raise RuleError("Give either a difficulty or a roll to oppose, not both.")
        if request.character is None and request.against is None and aspect_free(request):
            change = await self._start_raw(request, target)  # the usual roll: no ORM
            if change is not None:
                return change
        async with self._unit() as session:
            return await self._start_in(session, request, target)

    async def _start_raw(self, request: RollRequest, target: int | None) -> RollChange | None:
        """The usual roll (one's own active character, no aspect, nobody opposed) as one raw
        unit of work: the waiting message ids (SQLite), the context (a new server's default
        campaign made first), the open rolls, their closing and the new roll."""
        async with self.db.raw() as unit:
            written = await self._message_ids.write_raw_in(unit)
            context = {
                "guild": request.guild_id,
                "channel": request.channel_id,
                "user": request.user_id,
            }
            found = await unit.row(RAW_CONTEXT, context)
            if found is None:  # the server's first command
                await unit.run(
                    NEW_DEFAULT_CAMPAIGN,
                    {
                        "guild": request.guild_id,
                        "name": DEFAULT_CAMPAIGN_NAME,
                        "flag": True,
                        "now": unit.timestamp(utcnow()),
                    },
                )
                found = await unit.row(RAW_CONTEXT, context)
            change = (
                None if found is None else await self._roll_raw_in(unit, request, target, found)
            )
        self._message_ids.done(written)
        return change

    async def _roll_raw_in(
        self, unit: RawUnit, request: RollRequest, target: int | None, found: Any
    ) -> RollChange:
        campaign = parsed_campaign_in(unit, (*found[:3], bool(found[3]), *found[4:6]))
        character = parsed_character_in(unit, found[6:12]) if found[6] is not None else None
        roll = self._made(request, campaign, character, target, None, request.hidden)
        if character is not None:
            query, params = RAW_OPEN_OF_CHARACTER, {"character": character.id}
        else:
            query = RAW_OPEN_PLAIN
            params = {"user": request.user_id, "channel": request.channel_id}
        closed = []
        for open_row in await unit.rows(query, {"campaign": campaign.id, **params}):
            view = self._message_ids.overlay(RollView.of_columns(open_row))
            done, _ = rules.close_roll(view.roll)
            version = await update_versioned_raw_in(
                unit,
                "roll",
                view.id,
                view.version,
                {
                    "roll_json": done.model_dump_json(),
                    "closed": done.closed,
                    "updated_at": unit.timestamp(utcnow()),
                },
                StaleError(SAME_MOMENT),
            )
            closed.append(replace(view, roll=done, closed=done.closed, version=version))
        touched(unit, {request.guild_id})
        gm_channel = campaign.settings.gm_channel_id if request.hidden else None
        character_id = character.id if character else None
        values = {
            "campaign": campaign.id,
            "guild": request.guild_id,
            "channel": request.channel_id,
            "user": request.user_id,
            "character": character_id,
            "gm_channel": gm_channel,
            "hidden": request.hidden,
            "closed": False,
            "roll_json": roll.model_dump_json(),
        }
        key = await new_roll_raw_in(unit, values)
        view = RollView(
            id=key,
            channel_id=request.channel_id,
            user_id=request.user_id,
            character_id=character_id,
            message_id=None,
            gm_channel_id=gm_channel,
            gm_message_id=None,
            opposes_id=None,
            hidden=request.hidden,
            closed=False,
            version=1,
            roll=roll,
            stunts=stunt_options(roll, character),
            guild_id=request.guild_id,
        )
        return RollChange(view, closed, CONFLICT_HINT if found[12] else "")

    def _made(
        self,
        request: RollRequest,
        campaign: CampaignInfo,
        character_record: CharacterRecord | None,
        target: int | None,
        opposition_effort: int | None,
        hidden: bool,
    ) -> Roll:
        """The new roll's dice and numbers (pure; nothing stored yet)."""
        skill_name, rating, modifier = self._skill(
            character_record, campaign, request.skill, request.modifier
        )
        modifiers = [rules.Modifier(label="modifier", value=modifier)] if modifier else []
        roller = Roller(
            character_id=character_record.id if character_record else None,
            user_id=request.user_id,
            name=character_record.name
            if character_record
            else squeezed(request.user_name, 80) or "someone",
        )
        roll, _ = rules.make_roll(
            self.rng,
            roller,
            skill=skill_name,
            skill_rating=rating,
            modifiers=modifiers,
            difficulty=target,
            opposition_effort=opposition_effort,
            action=request.action,
            description=squeezed(request.description, DESCRIPTION_MAX),
            hidden=hidden,
        )
        return roll

    async def defend(
        self,
        roll_id: int,
        *,
        guild_id: int,
        user_id: int,
        user_name: str,
        skill: str | None,
        is_gm: bool,
    ) -> RollChange:
        """Defend against a roll: a new roll in its channel that opposes it. A hidden roll is
        opposed in secret (the defence is hidden too)."""
        async with self._unit() as session:
            acting = await self._row_in(session, roll_id)
            if acting.hidden:
                await self._role_in(session, acting, user_id, is_gm)  # the roller and the GM only
            request = RollRequest(
                guild_id=guild_id,
                channel_id=acting.channel_id,
                user_id=user_id,
                user_name=user_name,
                skill=skill,
                hidden=acting.hidden,
                against=roll_id,
                action=Action.DEFEND,
                is_gm=is_gm,
            )
            return await self._start_in(session, request, None)

    async def _start_in(
        self, session: AsyncSession, request: RollRequest, target: int | None
    ) -> RollChange:
        """The roll itself, once the options are checked: in the caller's transaction."""
        campaign, character_record, conflict = await self._context_in(session, request)
        aim = await self._aim_in(session, campaign, request, character_record)
        hidden = request.hidden or (aim is not None and aim.hidden)  # a GM-hidden aspect
        self._skill(character_record, campaign, request.skill, request.modifier)  # checked first
        opposed_row = await self._opposed_in(session, campaign, request, hidden, character_record)
        opposition_effort = (
            Roll.model_validate_json(opposed_row.roll_json).effort() if opposed_row else None
        )
        roll = self._made(request, campaign, character_record, target, opposition_effort, hidden)
        if aim is not None:
            roll = roll.model_copy(update={"advantage": aim})
        closed = await self._close_previous_in(
            session, campaign, request.channel_id, request.user_id, character_record
        )
        row = RollRow(
            campaign_id=campaign.id,
            guild_id=request.guild_id,
            channel_id=request.channel_id,
            user_id=request.user_id,
            character_id=character_record.id if character_record else None,
            gm_channel_id=campaign.settings.gm_channel_id if hidden else None,
            opposes_id=opposed_row.id if opposed_row else None,
            hidden=hidden,
            roll_json=roll.model_dump_json(),
        )
        session.add(row)
        await session.flush()
        others = list(closed)
        if opposed_row is not None:
            others.append(await self._oppose_in(session, opposed_row, row, roll))
        if conflict is None:
            conflict = await active_encounter_in(session, row.channel_id, "conflict") is not None
        note = CONFLICT_HINT if conflict else ""
        return RollChange(RollView.of(row, stunt_options(roll, character_record)), others, note)

    async def _context_in(
        self, session: AsyncSession, request: RollRequest
    ) -> tuple[CampaignInfo, CharacterRecord | None, bool | None]:
        """The campaign, who rolls and whether a conflict runs here (None: not known yet); for
        the usual roll of one's own active character, all three in one statement."""
        if request.character is None:
            return await roll_context_in(
                session, request.guild_id, request.channel_id, request.user_id
            )
        campaign = await resolve_campaign_in(session, request.guild_id, request.channel_id)
        return campaign, await self._roller_in(session, campaign, request), None

    async def _roller_in(
        self, session: AsyncSession, campaign: CampaignInfo, request: RollRequest
    ) -> CharacterRecord | None:
        """The character who rolls: the one named (others' only for the GM), else the active."""
        if request.character is None:
            return await active_character_in(session, campaign, request.channel_id, request.user_id)
        return await named_character_in(
            session,
            campaign,
            request.character,
            request.user_id,
            request.is_gm,
            "rolls for other characters",
            RollNotAllowed,
        )

    async def _aim_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        request: RollRequest,
        character_record: CharacterRecord | None,
    ) -> AdvantageTarget | None:
        """The aspect a create-an-advantage roll aims at, if it is one."""
        if request.advantage_aspect is None:
            return None
        if character_record is None:
            raise RuleError(
                "Creating an advantage needs a character: pick one with "
                "`/character switch` (the GM may name one with `character`)."
            )
        return await advantage_target_in(
            session,
            campaign,
            request.channel_id,
            aspect=request.advantage_aspect,
            zone=request.zone,
            is_gm=request.is_gm,
            enemy_on_fail=request.enemy_on_fail,
            not_created_on_fail=request.not_created_on_fail,
        )

    async def _opposed_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        request: RollRequest,
        hidden: bool,
        character_record: CharacterRecord | None,
    ) -> RollRow | None:
        """The pending roll this one opposes, if it opposes one."""
        if request.against is None:
            return None
        opposed = await self._pending_row_in(session, campaign, request, request.against)
        if opposed.hidden and not hidden:
            raise RuleError("A hidden roll can only be opposed by another hidden roll.")
        if character_record is not None and opposed.character_id == character_record.id:
            raise RuleError("A character cannot oppose their own roll; pick another roll.")
        return opposed

    async def _oppose_in(
        self, session: AsyncSession, opposed_row: RollRow, row: RollRow, roll: Roll
    ) -> RollView:
        """Link the opposed roll to the new one: it now faces this roll's effort."""
        opposed_roll = Roll.model_validate_json(opposed_row.roll_json).model_copy(
            update={"opposition_effort": roll.effort(), "difficulty": None}
        )
        opposed_row.opposes_id = row.id
        session.add(opposed_row)
        await session.flush()
        opposed_row = await self._save_in(session, opposed_row, opposed_roll)
        return await self._view_in(session, opposed_row)

    def _skill(
        self,
        character: CharacterRecord | None,
        campaign: CampaignInfo,
        skill: str | None,
        modifier: int,
    ) -> tuple[str | None, int, int]:
        """(skill name, rating, modifier) from the skill option: a skill name or a number."""
        text = (skill or "").strip()
        if not text:
            return None, 0, modifier
        try:
            number = int(text)
        except ValueError:
            number = None
        if number is not None:
            low, high = MODIFIER_RANGE
            if not low <= number <= high:
                raise RuleError(f"A plain bonus runs from {low} to +{high}.")
            return None, 0, modifier + number
        if character is None:
            raise RuleError(
                "You have no active character here, so there is no skill to roll. Roll a plain "
                "number instead (`/roll skill:+2`), or pick a character with `/character switch`."
            )
        wanted = text.casefold()
        for name, rating in character.sheet.skills.items():
            if name.casefold() == wanted:
                return name, rating, modifier
        for name in campaign.settings.skill_list().names:
            if name.casefold() == wanted:
                return name, 0, modifier
        raise RuleError(
            f"{character.name} has no skill called '{text[:40]}'. Pick one from the suggestions "
            "or roll a plain number."
        )

    async def _pending_row_in(
        self, session: AsyncSession, campaign: CampaignInfo, request: RollRequest, roll_id: int
    ) -> RollRow:
        """The open roll `roll_id` of the request's channel (someone else's hidden one is not
        there for a player: its result stays secret)."""
        row = await session.get(RollRow, roll_id)
        if (
            row is None
            or row.campaign_id != campaign.id
            or row.channel_id != request.channel_id
            or hidden_from(row, request.user_id, request.is_gm)
        ):
            raise RuleError(
                f"There is no roll #{roll_id} in this channel; pick one from the suggestions."
            )
        if row.closed:
            raise RuleError(f"Roll #{roll_id} is closed; it cannot be opposed any more.")
        return row

    async def _close_previous_in(
        self,
        session: AsyncSession,
        campaign: CampaignInfo,
        channel_id: int,
        user_id: int,
        character: CharacterRecord | None,
    ) -> list[RollView]:
        """A character's (or a plain roller's) new roll closes their open ones."""
        if character is not None:
            query, params = OPEN_ROLLS_OF_CHARACTER, {"character": character.id}
        else:
            query, params = OPEN_PLAIN_ROLLS, {"user": user_id, "channel": channel_id}
        closed = []
        found = await session.exec(query, params={"campaign": campaign.id, **params})
        for row in found.all():
            roll, _ = rules.close_roll(Roll.model_validate_json(row.roll_json))
            row = await self._save_in(session, row, roll)
            closed.append(self._message_ids.overlay(RollView.of(row)))
        return closed

    async def set_messages(
        self,
        roll_id: int,
        *,
        message_id: int | None,
        gm_message_id: int | None = None,
        guild_id: int = 0,
    ) -> None:
        """Remember where a new roll's messages are: written at once on PostgreSQL, with the next
        roll or in a moment on SQLite (see `_MessageIds`)."""
        await self._message_ids.put(roll_id, message_id, gm_message_id, guild_id)

    async def flush(self) -> None:
        """Write the message ids still waiting (when the bot stops)."""
        await self._message_ids.flush()

    async def get(self, roll_id: int) -> RollView:
        async with self.db.read() as session:
            return await self._view_in(session, await self._row_in(session, roll_id))

    # ----------------------------------------------------------------- other buttons
    async def teamwork(self, roll_id: int, *, user_id: int, is_gm: bool) -> RollChange:
        async with self._unit() as session:
            row = await self._changing_row_in(session, roll_id)
            role, mine = await self._role_in(session, row, user_id, is_gm)
            self._require_open(row)
            if role is Role.ROLLER:
                raise RuleError("You are making this roll; teamwork comes from the others.")
            if mine is None:
                raise RollNotAllowed(
                    "You need an active character here to help; pick one with `/character switch`."
                )
            roll = Roll.model_validate_json(row.roll_json)
            if roll.skill is None:
                raise RuleError("Teamwork needs a skill roll; this one has no skill.")
            rating = mine.sheet.rating(roll.skill)
            roll, events = rules.add_teamwork(
                roll, helper_id=mine.id, helper_name=mine.name, helper_rating=rating
            )
            row = await self._save_in(session, row, roll)
            others = await self._sync_partner_in(session, row)
            capped = any(isinstance(e, rules.TeamworkAdded) and e.capped for e in events)
            # the roll message shows the help; only a capped bonus needs a word to the helper
            note = f"{mine.name} helps, but the team bonus is already at its cap." if capped else ""
            return RollChange(await self._view_in(session, row), others, note)

    async def close(self, roll_id: int, *, user_id: int, is_gm: bool) -> RollChange:
        async with self._unit() as session:
            row = await self._row_in(session, roll_id)
            role, _ = await self._role_in(session, row, user_id, is_gm)
            if role is Role.ALLY:
                raise RollNotAllowed("Only the roller or the GM can close this roll.")
            roll, _ = rules.close_roll(Roll.model_validate_json(row.roll_json))
            if not row.closed:
                row = await self._save_in(session, row, roll)
            return RollChange(await self._view_in(session, row))

    async def void(
        self, roll_id: int, *, user_id: int, is_gm: bool, channel_id: int | None = None
    ) -> RollChange:
        """Take a mistaken roll back, once: the GM any time, its roller while it is open. The
        fate points paid on it come back through the ledger, its free invokes to their holders
        (a used boost, or an aspect gone from play, stays gone: the note says so)."""
        async with self._unit() as session:
            row = await self._row_in(session, roll_id)
            unseen = hidden_from(row, user_id, is_gm)
            if unseen or (channel_id is not None and row.channel_id != channel_id):
                raise RuleError(f"There is no roll #{roll_id} here; pick one from the suggestions.")
            roll, events = rules.void_roll(Roll.model_validate_json(row.roll_json))
            role, _ = await self._role_in(session, row, user_id, is_gm)
            if not is_gm and (role is not Role.ROLLER or row.closed):
                raise RollNotAllowed(
                    "Only the GM can void this roll (its roller can, until it is closed)."
                )
            campaign = await self._campaign_in(session, row)
            back = await self._refund_points_in(session, campaign, row, user_id)
            back += await self._refund_invokes_in(session, campaign, row, events)
            note = "Void: " + ("; ".join(back) if back else "nothing was spent on it") + "."
            roll = roll.model_copy(update={"void_note": note[:RESULT_MAX]})
            # one versioned write: a second void at the same moment finds a newer version and
            # rolls back with its refunds (each ledger entry is also claimed only once)
            row = await self._save_in(session, row, roll)
            return RollChange(await self._view_in(session, row), [], note)

    async def _refund_points_in(
        self, session: AsyncSession, campaign: CampaignInfo, row: RollRow, actor_id: int
    ) -> list[str]:
        """Reverse the ledger entries of the fate points paid on this roll."""
        assert row.id is not None
        back = []
        for entry in await invoke_entries_in(session, campaign.id, row.id):
            inverse = await undo_entry_in(
                session, campaign, entry, actor_id, reason="void", note=f"void roll #{row.id}"
            )
            who = "the GM pool" if entry.who == "GM" else entry.who
            if inverse is None:
                back.append(f"the point of {who} stays spent ({why_not_reversed(entry)})")
            else:
                back.append(f"1 fate point back to {who} (ledger #{inverse.id})")
        return back

    async def _refund_invokes_in(
        self, session: AsyncSession, campaign: CampaignInfo, row: RollRow, events: list[RollEvent]
    ) -> list[str]:
        """Give the free invokes spent on this roll back to their holders, where still possible."""
        back = []
        for event in events:
            if not isinstance(event, rules.FreeInvokeToReturn):
                continue
            holder = GM_HOLDER if event.holder_id == GM_PAYER else character_holder(event.holder_id)
            if event.is_boost:
                back.append(f"the boost *{event.aspect_name}* is gone once used")
                continue
            try:
                await return_free_invoke_in(
                    session, campaign, row.channel_id, event.aspect_key, holder
                )
            except RuleError:
                back.append(f"the free invoke on *{event.aspect_name}* cannot come back")
                continue
            back.append(f"a free invoke on *{event.aspect_name}* back")
        return back

    @retry_stale
    async def resolve_advantage(
        self,
        roll_id: int,
        *,
        user_id: int,
        is_gm: bool,
        enemy_on_fail: bool = False,
        declined: bool = False,
    ) -> RollChange:
        """Apply a create-an-advantage roll's outcome to the scene, once; this closes the roll.
        On a failed new aspect whose roller chooses, `declined` (not created) or
        `enemy_on_fail` says the choice; a click made on a copy of the roll from before it
        changed (a scale, a hostile invoke) raises `AdvantageChanged`.

        A roll closed by its character's next roll can still be resolved."""
        async with self._unit() as session:
            row = await self._row_in(session, roll_id)
            role, _ = await self._role_in(session, row, user_id, is_gm)
            if role is Role.ALLY:  # the seed: the roller chooses what a failure does
                raise RollNotAllowed("Only the roller or the GM resolves this advantage.")
            roll = Roll.model_validate_json(row.roll_json)
            aim = roll.advantage
            if aim is None:
                raise RuleError("This roll creates no advantage; start one with `/advantage`.")
            if aim.resolved:
                raise RuleError(f"This advantage is already resolved: {aim.result}")
            if roll.voided:
                raise RuleError("This roll is void: its advantage changes nothing.")
            result = roll.result()
            if result is None:
                raise RuleError(
                    "This roll has nothing to beat yet: let someone oppose it with Defend, or "
                    "roll again with a difficulty (`/advantage difficulty:2`)."
                )
            check_advantage_choice(roll, enemy_on_fail=enemy_on_fail, declined=declined)
            if row.character_id is None:
                raise RuleError("This roll's character is gone; make a new roll.")
            roller = await get_character_in(session, row.character_id)
            campaign = await self._campaign_in(session, row)
            extra = roll.extra_free_invokes()
            events = await apply_advantage_in(
                session,
                campaign,
                row.channel_id,
                aim,
                result.kind,
                actor=character_holder(row.character_id),
                extra_invokes=extra,
                enemy_on_fail=enemy_on_fail,
                actor_is_npc=roller.is_npc,
                opponent=await self._pc_opponent_in(session, row) if roller.is_npc else None,
            )
            text = " ".join(e.text for e in events) or "Nothing changes."
            if extra:
                text += f" Scale added {extra} of them."
            resolved = aim.model_copy(update={"resolved": True, "result": text[:RESULT_MAX]})
            roll = roll.model_copy(update={"advantage": resolved, "closed": True})
            row = await self._save_in(session, row, roll)
            return RollChange(await self._view_in(session, row), [], text)

    async def scalable(self, roll_id: int, *, is_gm: bool) -> RollView:
        """The roll the GM is about to set scale on (still open)."""
        if not is_gm:
            raise RollNotAllowed("Only the GM sets scale.")
        async with self._unit() as session:
            row = await self._row_in(session, roll_id)
            if row.closed:
                raise RuleError("This roll is closed; scale can no longer change it.")
            return await self._view_in(session, row)

    async def scale(
        self,
        roll_id: int,
        *,
        version: int,
        is_gm: bool,
        roller_level: ScaleLevel,
        opposition_level: ScaleLevel,
        mode: ScaleMode,
    ) -> RollChange:
        if not is_gm:
            raise RollNotAllowed("Only the GM sets scale.")
        async with self._unit() as session:
            row = await self._changing_row_in(session, roll_id)
            self._require_open(row)
            if row.version != version:
                raise StaleError("The roll changed since you opened this; click Scale again.")
            roll, _ = rules.apply_scale(
                Roll.model_validate_json(row.roll_json),
                roller_level=roller_level,
                opposition_level=opposition_level,
                mode=mode,
            )
            row = await self._save_in(session, row, roll)
            others = await self._sync_partner_in(session, row)
            return RollChange(await self._view_in(session, row), others)

    async def add_stunt(
        self, roll_id: int, *, user_id: int, is_gm: bool, stunt_index: int
    ) -> RollChange:
        async with self._unit() as session:
            row = await self._changing_row_in(session, roll_id)
            role, _ = await self._role_in(session, row, user_id, is_gm)
            if role is Role.ALLY:
                raise RollNotAllowed("Only the roller or the GM can add the roller's stunts.")
            self._require_open(row)
            view = await self._view_in(session, row)
            chosen = next((s for s in view.stunts if s.index == stunt_index), None)
            if chosen is None:
                raise RuleError("That stunt does not apply to this roll (or is already added).")
            roll, _ = rules.add_modifier(view.roll, chosen.name, chosen.bonus)
            row = await self._save_in(session, row, roll)
            others = await self._sync_partner_in(session, row)
            return RollChange(await self._view_in(session, row), others)

    async def defend_skills(
        self, roll_id: int, *, user_id: int, is_gm: bool
    ) -> tuple[RollView, list[str]]:
        """The roll to defend against, and the clicker's skills best first for the Defend select."""
        async with self._unit() as session:
            row = await self._row_in(session, roll_id)
            role, mine = await self._role_in(session, row, user_id, is_gm)
            self._require_open(row)
            if role is Role.ROLLER:
                raise RuleError("You cannot defend against your own roll.")
            if mine is None:
                return RollView.of(row), []
            ordered = sorted(mine.sheet.skills.items(), key=lambda kv: (-kv[1], kv[0]))
            return RollView.of(row), [name for name, _ in ordered][: PICKER_LIMIT - 1]

    # ----------------------------------------------------------------- reading
    async def log(self, channel_id: int, *, is_gm: bool, limit: int = LOG_LIMIT) -> list[RollView]:
        async with self.db.read() as session:
            query = select(RollRow).where(RollRow.channel_id == channel_id)
            if not is_gm:
                query = query.where(col(RollRow.hidden).is_(False))
            rows = await session.exec(query.order_by(col(RollRow.id).desc()).limit(limit))
            return [self._message_ids.overlay(RollView.of(r)) for r in rows.all()]

    async def pending(self, channel_id: int, *, is_gm: bool) -> list[RollView]:
        async with self.db.read() as session:
            query = select(RollRow).where(RollRow.channel_id == channel_id, text(OPEN_ROLL))
            if not is_gm:
                query = query.where(col(RollRow.hidden).is_(False))
            rows = await session.exec(query.order_by(col(RollRow.id).desc()).limit(PENDING_LIMIT))
            return [self._message_ids.overlay(RollView.of(r)) for r in rows.all()]

    async def roller_name(self, guild_id: int, channel_id: int, user_id: int) -> str | None:
        """The name of the user's active character here (None without one): who a plain dice
        roll is made by (a first command on a new server creates its campaign, so it writes)."""
        async with self.db.session() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            character = await active_character_in(session, campaign, channel_id, user_id)
            return None if character is None else character.name

    async def skills_for(
        self, guild_id: int, channel_id: int, user_id: int
    ) -> list[tuple[str, int]]:
        """The user's active character's skills here (best first), then the campaign's others."""
        async with self._unit() as session:
            campaign = await resolve_campaign_in(session, guild_id, channel_id)
            character = await active_character_in(session, campaign, channel_id, user_id)
            if character is None:
                return []
            own = sorted(character.sheet.skills.items(), key=lambda kv: (-kv[1], kv[0]))
            known = {name.casefold() for name, _ in own}
            rest = [
                (n, 0) for n in campaign.settings.skill_list().names if n.casefold() not in known
            ]
            return own + rest
