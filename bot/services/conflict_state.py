"""A conflict's stored state (the pure rules state plus who plays whom, the rolls waiting and the
log), the snapshot a call returns, and the conflict's aspects as a source for /roll.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.conflicts import EncounterRow
from bot.db.models.scenes import SceneRow
from bot.db.repos.encounters import active_encounter_in, save_encounter_in
from bot.errors import RuleError
from bot.fate.aspects import GM, Aspect, AspectKind
from bot.fate.aspects import Event as RuleEvent
from bot.fate.aspects import return_free_invoke as give_back_invoke
from bot.fate.aspects import spend_free_invoke as spend_own_invoke
from bot.fate.conflict import Conflict, Phase
from bot.fate.rolls import Roll
from bot.fate.sheet import Character
from bot.fate.tracks import Track
from bot.services import aspects_in_play
from bot.services.campaigns import CampaignInfo
from bot.services.encounters import (
    HIDDEN_NAME,
    EncounterState,
    Member,
    NextUp,
    without_spent,
)

MAX_ZONES = 10
HIDDEN_TAG = "hidden: only the GM sees it"
VOID_LINE = "The aspect left play before the roll was resolved; the action is spent for nothing."
ZONE_NAME_MAX = 40
SOURCE_PREFIX = "cf"
IMPEDED = "imp|"  # a move choice's value prefix: the move takes the action and a roll
# an advantage choice's value prefix: aimed at an opponent ("on:<combatant>" for a new aspect on
# them, "on:<combatant>|<aspect key>" for one of theirs in play), who rolls to defend against it
DEFENDED = "on:"


class PendingBase(BaseModel):
    """What every rolled action waiting for invokes, stunts and teamwork has: who rolled, and
    the roll."""

    actor: str
    roll: Roll


class PendingOvercome(PendingBase):
    """An overcome, rolled and waiting to be resolved."""

    kind: Literal["overcome"] = "overcome"


class PendingAdvantage(PendingBase):
    """A create-an-advantage, rolled and waiting: on a new aspect (`aspect_text`) or on one in
    play (`aspect_key`, a conflict "cf:..." or scene "scene:..." key, shown as `aspect_name`)."""

    kind: Literal["advantage"] = "advantage"
    aspect_text: str = ""
    aspect_key: str = ""
    aspect_name: str = ""
    # aimed at an opponent (a new aspect goes on them): they roll to defend, and the roll is
    # resolved against that defence (the conflict's `defence_roll`), not a difficulty
    defender: str = ""

    def defended(self) -> bool:
        return bool(self.defender)


class PendingMove(PendingBase):
    """An impeded or long move to `zone`: an overcome, rolled and waiting."""

    kind: Literal["move"] = "move"
    zone: str


# The rolled action a conflict waits on, tagged by `kind` in the stored JSON.
PendingAction = Annotated[
    PendingOvercome | PendingAdvantage | PendingMove, Field(discriminator="kind")
]


class FailedAdvantage(BaseModel):
    """A failed create-an-advantage on a new aspect, waiting for its roller's choice: not
    created, or created with its free invoke for `enemy` (success at a cost). Any other step
    on the conflict first leaves it not created."""

    actor: str
    aspect_text: str
    owner: str | None = None  # the opponent the aspect would go on (None: the scene)
    enemy: str  # who would hold the free invoke (a combatant, or the GM)


ROLL_SLOTS = ("attack", "defence", "action")


class AbsorbUndo(BaseModel):
    """What the last absorb changed, kept so that it can be put back while nothing else has
    happened in the conflict since (`version` is the conflict's version right after it)."""

    version: int
    defender: str
    character_id: int
    tracks: list[Track]  # the defender's tracks before the hit
    # ... and as the absorb left them: the undo puts `tracks` back only over these, so that an
    # edit of the sheet since (`/character edit box`) is never overwritten (None: stored by an
    # older version, which did not keep them)
    after: list[Track] | None = None
    conflict: Conflict
    aspects: list[Aspect]
    next_aspect: int
    attack_roll: Roll | None = None
    defence_roll: Roll | None = None


class ConflictState(EncounterState):
    """A conflict's stored state: the rules state, who plays whom, rolls waiting, the log."""

    conflict: Conflict
    members: dict[str, Member]
    zones: list[str] = Field(default_factory=list)
    aspects: list[Aspect] = Field(default_factory=list)  # boosts, advantages, consequences
    attack_roll: Roll | None = None
    defence_roll: Roll | None = None
    gm_carried: int = 0  # fate points NPC payouts gave the GM for later scenes
    next_aspect: int = 1
    action: PendingAction | None = None  # a rolled action waiting to be resolved
    scale: dict[str, int] = Field(default_factory=dict)  # side -> ScaleLevel set by the GM
    # Whether scale also counts on rolls against a set difficulty (overcome, advantage, move):
    # the seed gives scale "on any rolled action against their lesser" and leaves open whether
    # a difficulty in a conflict stands for the higher side; the GM decides (/conflict scale).
    scale_difficulties: bool = True
    last_absorb: AbsorbUndo | None = None
    failed_advantage: FailedAdvantage | None = None  # waiting: created for the enemy or not

    def drop_failed_advantage(self) -> None:
        """Something else happens before the roller chose: the failed aspect is not created."""
        failed = self.failed_advantage
        if failed is not None:
            self.failed_advantage = None
            self.add_log(f"{self.name(failed.actor)}: {failed.aspect_text} is not created.")

    def remember_absorb(
        self, version: int, defender: str, character_id: int, tracks: list[Track]
    ) -> None:
        """Keep what an absorb is about to change (call it before the absorb)."""
        self.last_absorb = AbsorbUndo(
            version=version,
            defender=defender,
            character_id=character_id,
            tracks=tracks,
            after=tracks,
            conflict=self.conflict,
            aspects=self.aspects,
            next_aspect=self.next_aspect,
            attack_roll=self.attack_roll,
            defence_roll=self.defence_roll,
        )

    def undoable_absorb(self, version: int) -> AbsorbUndo | None:
        """The last absorb, while the conflict is still at the version it left."""
        undo = self.last_absorb
        return undo if undo is not None and undo.version == version else None

    def restore_absorb(self, undo: AbsorbUndo) -> None:
        """Put the conflict back as it was before the absorb: the hit waits again."""
        self.conflict = undo.conflict
        self.aspects = undo.aspects
        self.next_aspect = undo.next_aspect
        self.attack_roll = undo.attack_roll
        self.defence_roll = undo.defence_roll
        self.last_absorb = None

    def open_rolls(self) -> list[tuple[str, str]]:
        """(slot, roller) of the rolls that still take invokes, stunts and teamwork."""
        if self.action is not None:
            found = [("action", self.action.actor)]
            if isinstance(self.action, PendingAdvantage) and self.action.defended():
                if self.defence_roll is not None:
                    found.append(("defence", self.action.defender))
            return found
        c = self.conflict
        if c.phase is Phase.DEFENDING and c.pending is not None and self.attack_roll is not None:
            found = [("attack", c.pending.attacker)]
            if self.defence_roll is not None:
                found.append(("defence", c.pending.defender))
            return found
        return []

    def roll_in(self, slot: str) -> Roll:
        roll = {
            "attack": self.attack_roll,
            "defence": self.defence_roll,
            "action": self.action.roll if self.action else None,
        }.get(slot)
        if roll is None:
            raise RuleError("That roll is already resolved; look at the tracker again.")
        return roll

    def put_roll(self, slot: str, roll: Roll) -> None:
        if slot == "attack":
            self.attack_roll = roll
            pending = self.conflict.pending
            if pending is not None and self.conflict.phase is Phase.DEFENDING:
                pending = pending.model_copy(update={"attack_effort": roll.effort()})
                self.conflict = self.conflict.model_copy(update={"pending": pending})
        elif slot == "defence":
            self.defence_roll = roll
        elif slot == "action" and self.action is not None:
            self.action = self.action.model_copy(update={"roll": roll})

    def require_no_action(self) -> None:
        action = self.action
        if isinstance(action, PendingAdvantage) and action.defended() and self.defence_roll is None:
            raise RuleError(
                f"{self.name(action.actor)}'s advantage waits for {self.name(action.defender)}'s "
                "defence: press Defend, then Resolve the roll."
            )
        if self.action is not None:
            raise RuleError(
                f"{self.name(self.action.actor)}'s roll is waiting: invoke, add stunts or "
                "teamwork, then press Resolve the roll."
            )

    def next_up(self) -> NextUp | None:
        """Who takes their turn now (a new key each exchange); None while an attack is
        resolved, the GM picks, or the conflict is over."""
        conflict = self.conflict
        if conflict.phase is not Phase.ACTING or conflict.current is None:
            return None
        who = conflict.current
        return NextUp((conflict.exchange, who), self.name(who), self.player_of(who))

    def name(self, combatant_id: str | None) -> str:
        if combatant_id is None:
            return "nobody"
        if combatant_id == GM:
            return "the GM"
        member = self.members.get(combatant_id)
        return member.name if member else combatant_id

    def new_aspect_id(self) -> str:
        key = f"{SOURCE_PREFIX}:{self.conflict.id}:{self.next_aspect}"
        self.next_aspect += 1
        return key


@dataclass
class ConflictSnapshot:
    """What the tracker and the replies need after a call."""

    id: int
    version: int
    channel_id: int
    tracker_message_id: int | None
    state: ConflictState
    sheets: dict[str, Character] = field(default_factory=dict)
    message: str = ""
    skills: tuple[str, ...] = ()  # the campaign's skill list, for the skill menus
    turn_ping: bool | None = None  # the campaign's setting when the unit read it

    @property
    def conflict(self) -> Conflict:
        return self.state.conflict


def events_text(state: ConflictState, events: list[RuleEvent]) -> list[str]:
    """The log lines of rule events (turn changes are left out, the tracker shows them)."""
    lines = []
    for event in events:
        if event.kind in ("turn", "conflict_started"):
            continue
        who = state.name(event.who) if event.who and event.who in state.members else None
        named = who is not None and event.text.startswith(f"{who} ")  # "Ghoul concedes ..."
        lines.append(f"{who}: {event.text}" if who and not named else event.text)
    return lines


def resolve_skill(sheet: Character, skill: str) -> tuple[str, int]:
    """A skill as the sheet spells it and its rating (Mediocre when the sheet lacks it)."""
    wanted = " ".join(skill.split())
    if not wanted or len(wanted) > 40:
        raise RuleError("Pick a skill from the list (or type its name, up to 40 characters).")
    for name, rating in sheet.skills.items():
        if name.casefold() == wanted.casefold():
            return name, rating
    return wanted, 0


def shown_text(aspect: Aspect) -> str:
    """An aspect's text as the public log may show it."""
    return HIDDEN_NAME.capitalize() if aspect.hidden else aspect.text


async def scene_zones_in(session: AsyncSession, channel_id: int) -> dict[str, list[str]] | None:
    """The zones (and what touches what) of the channel's running scene, if there is one."""
    from bot.fate.scene import Scene

    row = await session.get(SceneRow, channel_id)
    if row is None or not row.active:
        return None
    scene = Scene.model_validate_json(row.scene_json)
    names = {z.key: z.name for z in scene.zones}
    if not names:
        return None
    return {z.name: [names[k] for k in z.adjacent if k in names] for z in scene.zones[:MAX_ZONES]}


class ConflictAspectSource:
    """The conflict's boosts, advantages and consequence invokes, for /roll and other features.

    Holders: a PC's invokes show as "char:<id>", those of NPCs as "gm" (the GM plays them).
    """

    prefix = SOURCE_PREFIX

    async def aspects_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int
    ) -> list[aspects_in_play.AspectInPlay]:
        row = await active_encounter_in(session, channel_id, "conflict")
        if row is None or row.campaign_id != campaign.id:
            return []
        state = ConflictState.model_validate_json(row.state_json)
        found = []
        for aspect in state.aspects:
            holders: dict[str, int] = {}
            for holder in aspect.free_invokes:
                key = self._holder(state, holder)
                holders[key] = holders.get(key, 0) + 1
            found.append(
                aspects_in_play.AspectInPlay(
                    key=aspect.id,
                    name=aspect.text,
                    owner=state.name(aspect.owner) if aspect.owner else "conflict",
                    is_boost=aspect.kind is AspectKind.BOOST,
                    hidden=aspect.hidden,
                    free_invokes=holders,
                )
            )
        return found

    @staticmethod
    def _holder(state: ConflictState, combatant_id: str) -> str:
        member = state.members.get(combatant_id)
        return GM if member is None else member.holder

    async def spend_free_invoke_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
    ) -> None:
        row, state, aspect = await self._aspect_in(session, campaign, channel_id, key)
        who = next((h for h in aspect.free_invokes if self._holder(state, h) == holder), None)
        if who is None:
            raise RuleError(
                f"There is no free invoke of yours left on '{aspect.text}'; pay a fate point."
            )
        spent, _ = spend_own_invoke(aspect, who)
        state.aspects = without_spent(state.aspects, key, spent)
        state.add_log(f"{state.name(who)} uses a free invoke on {shown_text(aspect)}.")
        await save_encounter_in(session, row, state.model_dump_json(), active=row.active)

    async def return_free_invoke_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
    ) -> None:
        row, state, aspect = await self._aspect_in(session, campaign, channel_id, key)
        who = next((m for m in state.members if self._holder(state, m) == holder), None)
        if who is None:
            raise RuleError("Nobody left in this conflict can get that free invoke back.")
        back = give_back_invoke(aspect, who)
        state.aspects = without_spent(state.aspects, key, back)
        state.add_log(f"{state.name(who)} gets back a free invoke on {shown_text(aspect)}.")
        await save_encounter_in(session, row, state.model_dump_json(), active=row.active)

    @staticmethod
    async def _aspect_in(
        session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str
    ) -> tuple[EncounterRow, ConflictState, Aspect]:
        row = await active_encounter_in(session, channel_id, "conflict")
        if row is None or row.campaign_id != campaign.id:
            raise RuleError("That aspect is no longer in play; pick another one.")
        state = ConflictState.model_validate_json(row.state_json)
        aspect = next((a for a in state.aspects if a.id == key), None)
        if aspect is None:
            raise RuleError("That aspect is no longer in play; pick another one.")
        return row, state, aspect


aspects_in_play.register_source(ConflictAspectSource())
