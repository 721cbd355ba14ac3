"""The plumbing every conflict step shares: one versioned transaction, payouts at the end, who
controls whom, and the rolls with scale.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.changes import touched
from bot.db.models.conflicts import EncounterRow
from bot.db.repos.encounters import (
    RUNNING_WITH_CAMPAIGN,
    EncounterColumns,
    save_encounter_raw_in,
)
from bot.errors import RuleError
from bot.fate import conflict as rules
from bot.fate.aspects import Event as RuleEvent
from bot.fate.aspects import make_boost
from bot.fate.conflict import Conflict, Phase
from bot.fate.rolls import Action, Roll, ScaleLevel, ScaleMode, apply_scale, make_roll
from bot.services.campaigns import (
    CampaignInfo,
    CharacterRecord,
    campaign_of_raw,
    get_character_in,
    log_gm_points_in,
    move_fate_points_in,
)
from bot.services.conflict_state import (
    ConflictSnapshot,
    ConflictState,
    events_text,
    resolve_skill,
)
from bot.services.encounters import (
    EncounterService,
    Member,
    roller_of,
    sheets_raw_in,
)
from bot.services.scene_state import carry_gm_points_in


class _OrmPath(Exception):
    """A raw step that the ORM path must take after all (its unit is rolled back)."""


class ConflictBase(EncounterService[ConflictState, ConflictSnapshot]):
    """What every conflict step uses: the transaction, payouts, control and scaled rolls."""

    kind = "conflict"
    state_model = ConflictState
    snapshot_type = ConflictSnapshot

    def _is_open(self, state: ConflictState) -> bool:
        return state.conflict.phase is not Phase.ENDED

    async def _act_with_campaign(
        self,
        conflict_id: int | None,
        version: int | None,
        step: Callable[[AsyncSession, CampaignInfo, EncounterRow, ConflictState], Awaitable[str]],
        *,
        channel_id: int | None = None,
        keeps_failed_advantage: bool = False,
    ) -> ConflictSnapshot:
        """One conflict step in one transaction; when it ends the conflict, the payouts too.
        Without an id, on the conflict running in `channel_id`. The row and its channel's
        campaign come in one statement. A failed advantage waiting for its roller's choice is
        left not created by any step but that choice and the GM's bookkeeping
        (`keeps_failed_advantage`)."""
        async with self.db.session() as session:
            loaded, campaign = await self._load_in(session, conflict_id, channel_id)

            async def run(session: AsyncSession, row: EncounterRow, state: ConflictState) -> str:
                if not keeps_failed_advantage:
                    state.drop_failed_advantage()
                message = await step(session, campaign, row, state)
                if state.conflict.phase is Phase.ENDED:
                    await self._pay_in(session, campaign, row, state)
                return message

            return await self._act_on_in(session, loaded, version, run, campaign=campaign)

    async def _act_raw(
        self, channel_id: int, change: Callable[[ConflictState], str]
    ) -> ConflictSnapshot | None:
        """A step that needs nothing but the state (`change`) on the conflict running in
        `channel_id`, as one raw unit of work (bot/db/raw.py): the row with its channel's
        campaign, the versioned save, the sheets; three statements, no ORM. None when it is
        the ORM path's after all (rolled back): the server has no campaign yet, the channel's
        campaign is not the conflict's, or the step ended the conflict (payouts)."""
        try:
            async with self.db.raw() as unit:
                params = {"channel": channel_id, "kind": self.kind}
                found = await unit.row(RUNNING_WITH_CAMPAIGN, params)
                if found is None:
                    raise RuleError(
                        f"No {self.kind} is running here; start one with `/{self.kind} start`."
                    )
                if found[9] is None or found[9] != found[1]:
                    raise _OrmPath()
                row = EncounterColumns.of(found, self.kind)
                campaign = campaign_of_raw(unit, found[9:])
                state = self._state(row)
                state.drop_failed_advantage()  # as on the ORM path: the choice is passed up
                message = change(state)
                if not self._is_open(state):
                    raise _OrmPath()
                await save_encounter_raw_in(unit, row, state.model_dump_json(), active=True)
                touched(unit, {row.guild_id})
                sheets = await sheets_raw_in(unit, state.members)
        except _OrmPath:
            return None
        return self._snapshot_of(row, state, sheets, message, campaign)

    async def _pay_in(
        self, session: AsyncSession, campaign: CampaignInfo, row: EncounterRow, state: ConflictState
    ) -> None:
        note = f"conflict #{row.id}"
        for payout in rules.payouts_due(state.conflict):
            change = payout.change
            if payout.is_npc:
                # NPC payouts wait for the GM pool of the next scene that includes that NPC
                state.gm_carried += change.delta
                npc_id = state.members[change.who].character_id
                carried = await carry_gm_points_in(session, campaign.id, change.delta, npc_id)
                await log_gm_points_in(
                    session,
                    campaign.id,
                    change.delta,
                    carried,
                    reason=change.reason.value,
                    actor_id=row.created_by,
                    note=f"{note}: {state.name(change.who)}",
                    channel_id=row.channel_id,
                )
                continue
            member = state.members[change.who]
            record = await get_character_in(session, member.character_id)
            await move_fate_points_in(
                session,
                record,
                change.delta,
                reason=change.reason.value,
                actor_id=row.created_by,
                note=note,
                channel_id=row.channel_id,
            )

    @staticmethod
    def _member(state: ConflictState, combatant_id: str) -> Member:
        member = state.members.get(combatant_id)
        if member is None:
            raise RuleError("That character is not in this conflict.")
        return member

    def _require_control(
        self, state: ConflictState, combatant_id: str | None, user_id: int, is_gm: bool, doing: str
    ) -> Member:
        if combatant_id is None:
            raise RuleError("Nobody is acting right now; the GM picks who goes next.")
        member = self._member(state, combatant_id)
        if not member.controlled_by(user_id, is_gm):
            who = "the GM" if member.is_npc else f"{member.name}'s player or the GM"
            raise RuleError(f"Only {who} can {doing}.")
        return member

    async def _sheet_in(self, session: AsyncSession, member: Member) -> CharacterRecord:
        return await get_character_in(session, member.character_id)

    async def _running(self, channel_id: int) -> tuple[int, Conflict]:
        """The id and rules state of the conflict running here, without loading sheets."""
        async with self.db.read() as session:
            row = await self._running_in(session, channel_id)
            assert row.id is not None
            return row.id, self._state(row).conflict

    def _after_resolution(self, state: ConflictState, events: list[RuleEvent]) -> list[str]:
        """Turn boost events into boost aspects; describe the rest."""
        lines = []
        for event in events:
            if event.kind == "boost" and isinstance(event.data.get("boost_for"), str):
                holder = str(event.data["boost_for"])
                text = str(event.data.get("boost_name") or "Momentum")  # the rules name it
                boost = make_boost(
                    state.new_aspect_id(), f"{text} for {state.name(holder)}"[:80], holder
                )
                state.aspects = [*state.aspects, boost]
            if event.kind in ("defence",):
                continue
            lines.append(events_text(state, [event])[0])
        if state.conflict.phase is not Phase.ABSORBING and state.conflict.pending is None:
            state.attack_roll = state.defence_roll = None
        return lines

    async def _skill_roll_in(
        self,
        session: AsyncSession,
        state: ConflictState,
        roller: tuple[Member, str],
        skill: str,
        action: Action,
        against: list[str],
        difficulty: int | None = None,
    ) -> Roll:
        """A combatant's (member, combatant id) roll of a skill from their sheet, with the
        scale of their side against the sides in `against`."""
        member, combatant = roller
        sheet = (await self._sheet_in(session, member)).sheet
        name, rating = resolve_skill(sheet, skill)
        roll, _ = make_roll(
            self.dice(),
            roller_of(member),
            skill=name,
            skill_rating=rating,
            action=action,
            difficulty=difficulty,
        )
        return self._scaled(state, roll, combatant, against)

    def _scaled(self, state: ConflictState, roll: Roll, roller: str, against: list[str]) -> Roll:
        """The GM's scale per side: the higher side gets +1 per level before the roll; on a
        roll against a difficulty a higher opposing side raises what is to beat instead (unless
        the GM keeps scale to the rolls between the sides: no scale against a difficulty)."""
        c = state.conflict
        if roll.difficulty is not None and not state.scale_difficulties:
            return roll
        mine = state.scale.get(c.combatant(roller).side, 0)
        theirs = max((state.scale.get(side, 0) for side in against), default=0)
        if mine > theirs or (mine < theirs and roll.opposition() is not None):
            roll, _ = apply_scale(
                roll,
                roller_level=ScaleLevel(mine),
                opposition_level=ScaleLevel(theirs),
                mode=ScaleMode.BEFORE_ROLL,
            )
        return roll

    def _acting(
        self, state: ConflictState, user_id: int, is_gm: bool, doing: str
    ) -> tuple[Member, str]:
        c = state.conflict
        state.require_no_action()
        member = self._require_control(state, c.current, user_id, is_gm, doing)
        assert c.current is not None
        return member, c.current
