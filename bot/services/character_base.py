"""What the character services share: who is asking (Actor), the results they return, parsing
what players type (stunts, skills, ratings, milestone changes), and CharacterBase (the caches,
who may see or change a sheet). CharacterService (characters.py) builds on CharacterMantles
(character_mantles.py), which builds on this."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.bounded import Bounded
from bot.db.engine import Database
from bot.db.models.drafts import CustomMantleEntry
from bot.db.raw import RawUnit
from bot.db.repos.characters import target_raw_in
from bot.dfc.creation import CreationDraft
from bot.dfc.mantles import (
    Mantle,
    condition_tracks,
)
from bot.errors import RuleError
from bot.fate import recovery
from bot.fate.ladder import parse_rating
from bot.fate.milestones import (
    BuyStunt,
    MajorMilestone,
    MilestoneRecord,
    MinorChange,
    RecoveryStart,
    ReplaceAverageSkill,
    RewriteAspect,
    RewriteStunt,
    SwapSkills,
)
from bot.fate.sheet import (
    Character,
    SheetError,
    clean_text,
)
from bot.fate.skills import SkillList
from bot.fate.stress import StressStyle
from bot.fate.stunts import STUNT_NAME_MAX, STUNT_TEXT_MAX, Stunt
from bot.fate.tracks import Track
from bot.services.campaign_play import load_play_in, save_play_in
from bot.services.campaigns import (
    NO_ACTIVE_CHARACTER,
    CampaignInfo,
    CampaignService,
    CampaignSettings,
    CharacterRecord,
    character_ref,
    find_character_in,
    require_active_in,
    resolve_campaign_in,
    target_of_in,
    unknown_character,
)

CACHE_SECONDS = 30.0
MAX_CUSTOM_ENTRIES_PER_MANTLE = 20
MILESTONE_LOG_SHOWN = 50  # the latest ones; older ones are counted, not loaded
STUNT_LINE_SEPARATORS = (":", " - ", " — ")


class NotYours(RuleError):
    """A player tried to change (or look at) something that belongs to someone else."""

    offers_retry = False


@dataclass(frozen=True)
class Actor:
    """Who is asking, and where."""

    guild_id: int
    channel_id: int
    user_id: int
    is_gm: bool = False


@dataclass(frozen=True)
class DraftState:
    """A guided creation draft with its row id and version."""

    id: int
    user_id: int
    campaign: CampaignInfo
    draft: CreationDraft
    version: int
    resumed: bool = False


@dataclass(frozen=True)
class ImportResult:
    """What an imported sheet became, and what was left out of it."""

    record: CharacterRecord
    source: str
    unmapped: list[str]


@dataclass(frozen=True)
class MilestoneResult:
    """A milestone applied to a sheet, and the lines that describe it."""

    record: CharacterRecord
    milestone: MilestoneRecord


@dataclass(frozen=True)
class MilestoneEntry:
    """One recorded milestone: "minor" or "major", its changes, when, and who ran it."""

    kind: str
    changes: list[str]
    at: datetime
    actor_id: int


@dataclass(frozen=True)
class CustomEntry:
    """A skill or mantle entry the campaign added to the defaults."""

    id: int
    mantle_key: str
    kind: str  # "stunt" or "condition"
    name: str
    stunt: Stunt | None
    track: Track | None


@dataclass(frozen=True)
class MantleView:
    """A mantle as /mantle show presents it."""

    mantle: Mantle
    custom: list[CustomEntry]
    one_point_boxes: bool

    @property
    def condition_values(self) -> dict[str, int]:
        """Condition name -> shifts it absorbs under this campaign's stress style."""
        tracks = condition_tracks(self.mantle, one_point_boxes=self.one_point_boxes)
        return {t.label: t.absorb for t in tracks}


@dataclass
class _Cache:
    """Short-lived per-process memory for autocomplete (which must answer without waiting)."""

    campaigns: dict[tuple[int, int], tuple[float, CampaignInfo]] = field(default_factory=Bounded)
    active: dict[tuple[int, int, int], tuple[float, int | None]] = field(default_factory=Bounded)
    sheets: dict[int, tuple[float, Character]] = field(default_factory=Bounded)
    campaign_names: dict[int, tuple[float, list[str]]] = field(default_factory=Bounded)  # guild
    # (campaign id, mantle key) -> names of the campaign's custom entries for that mantle
    mantle_entries: dict[tuple[int, str], tuple[float, list[str]]] = field(default_factory=Bounded)
    # (campaign id, channel id) -> (when, the guild's change stamp, the characters taking part
    # in its scene or encounters)
    here: dict[tuple[int, int], tuple[float, tuple[int, int], set[int]]] = field(
        default_factory=Bounded
    )

    @staticmethod
    def fresh(stamp: float) -> bool:
        return time.monotonic() - stamp < CACHE_SECONDS


# --------------------------------------------------------------------------- parsing helpers
def parse_stunt_line(line: str, what: str = "stunt") -> Stunt:
    """'Name: what it does' (or 'Name - what it does', or just 'Name') to a Stunt."""
    cleaned = line.strip()
    if not cleaned:
        raise SheetError(f"The {what} is empty; write it as 'Name: what it does'.")
    name, text = cleaned, ""
    for separator in STUNT_LINE_SEPARATORS:
        if separator in cleaned:
            name, text = (part.strip() for part in cleaned.split(separator, 1))
            break
    return make_stunt(name, text)


def make_stunt(name: str, text: str = "") -> Stunt:
    """A stunt from its name and text, as a user typed them."""
    clean_name = clean_text(name, "stunt name", STUNT_NAME_MAX)
    clean_body = " ".join(text.split())
    if len(clean_body) > STUNT_TEXT_MAX:
        raise SheetError(
            f"The stunt text is {len(clean_body)} characters long; keep it to "
            f"{STUNT_TEXT_MAX} or fewer."
        )
    return Stunt(name=clean_name, text=clean_body)


def parse_skill_names(text: str) -> list[str]:
    """Skill names from a comma-separated list, cleaned and without repeats."""
    return [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]


def pyramid_ratings(rows: dict[int, str]) -> dict[str, int]:
    """{4: "Fight", 3: "Athletics, Will", ...} -> {skill: rating}; a skill twice is refused."""
    ratings: dict[str, int] = {}
    for rating, text in rows.items():
        for name in parse_skill_names(text):
            if name.casefold() in {k.casefold() for k in ratings}:
                raise SheetError(f"{name} appears twice; each skill sits at one rating.")
            ratings[name] = rating
    return ratings


def parse_rating_text(text: str) -> int:
    """A rating typed as a number or a ladder word; a sentence when it is neither."""
    try:
        return parse_rating(text)
    except ValueError as error:
        raise SheetError(str(error)) from None


def build_minor_change(
    change: str, old: str | None, new: str | None, text: str | None
) -> MinorChange:
    """The slash options of a minor milestone to the rules' change object."""

    def need(value: str | None, label: str) -> str:
        if not value or not value.strip():
            raise SheetError(f"This change needs the `{label}` option.")
        return value

    if change == "swap_skills":
        return SwapSkills(first=need(old, "old"), second=need(new, "new"))
    if change == "replace_average_skill":
        return ReplaceAverageSkill(old=need(old, "old"), new=need(new, "new"))
    if change == "rewrite_stunt":
        name = need(old, "old")
        return RewriteStunt(name=name, stunt=make_stunt(new or name, need(text, "text")))
    if change == "buy_stunt":
        return BuyStunt(stunt=make_stunt(need(new, "new"), text or ""))
    if change == "rewrite_aspect":
        return RewriteAspect(old=need(old, "old"), new=need(new, "new"))
    raise SheetError(
        "Pick a change: swap skills, replace an Average skill, rewrite a stunt, buy a stunt "
        "or rewrite an aspect."
    )


def build_major_milestone(
    *,
    raise_skills: list[str | None],
    high_concept: str | None = None,
    recover_slot: str | None = None,
    recover_as: str | None = None,
    finish_slot: str | None = None,
    change: str | None = None,
    old: str | None = None,
    new: str | None = None,
    text: str | None = None,
    bank: bool = False,
    gm_refresh: bool = False,
    gm_second_step: bool = False,
) -> MajorMilestone:
    """The slash options of a major milestone to the rules' choice object."""
    if recover_slot and not recover_as:
        raise RuleError("Give `recover_as`: the consequence's new name while it recovers.")
    if recover_as and not recover_slot:
        raise RuleError("Give `recover_slot`: the consequence that starts recovering.")
    if (old or new or text) and not change:
        raise RuleError("Pick the minor `change` that `old`, `new` and `text` belong to.")
    return MajorMilestone(
        minor=build_minor_change(change, old, new, text) if change else None,
        new_high_concept=high_concept or None,
        start_recovery=[RecoveryStart(slot=recover_slot, new_aspect=recover_as or "")]
        if recover_slot
        else [],
        finish_recovery=[finish_slot] if finish_slot else [],
        raise_skills=[s for s in raise_skills if s],
        bank_unused_skill_point=bank,
        gm_grants_refresh=gm_refresh,
        gm_grants_second_skill=gm_second_step,
    )


def settings_with(
    base: CampaignSettings,
    *,
    stress: str | None = None,
    skills: str | None = None,
    default_skills: bool = False,
    gm_channel: int | None = None,
    no_gm_channel: bool = False,
    turn_ping: bool | None = None,
) -> CampaignSettings:
    """New campaign settings from the options given (the rest kept); validates the skill list."""
    if skills and default_skills:
        raise RuleError("Give a custom `skills` list or `default_skills`, not both.")
    if gm_channel is not None and no_gm_channel:
        raise RuleError("Give a `gm_channel` or `no_gm_channel`, not both.")
    values = base.model_dump()
    if stress:
        values["stress_style"] = StressStyle(stress)
    if default_skills:
        values["skills"] = None
    elif skills:
        names = parse_skill_names(skills)
        SkillList.from_names(names)  # raises a sentence the user can act on
        values["skills"] = names
    if no_gm_channel:
        values["gm_channel_id"] = None
    elif gm_channel is not None:
        values["gm_channel_id"] = gm_channel
    if turn_ping is not None:
        values["turn_ping"] = turn_ping
    return CampaignSettings.model_validate(values)


def hide_npc(actor: Actor, record: CharacterRecord, name: str) -> CharacterRecord:
    """A player naming someone else's NPC hears what an unknown name gets: the GM's NPCs
    stay secret, their very existence included."""
    if record.is_npc and not actor.is_gm and record.owner_id != actor.user_id:
        raise NotYours(
            f"No character called '{name.strip()[:80]}' in this campaign. "
            "Pick one from the suggestions, or see `/character list`."
        )
    return record


def condensed_stress(settings: CampaignSettings) -> bool:
    """Whether the campaign's stress boxes are worth one point each (condensed stress)."""
    return settings.stress_style is StressStyle.CONDENSED


def changes_of(text: str) -> list[str]:
    """The stored change lines; a damaged row reads as one line saying so, not a crash."""
    try:
        value = json.loads(text)
    except ValueError:
        return ["(this entry could not be read)"]
    if not isinstance(value, list):
        return ["(this entry could not be read)"]
    return [str(v) for v in value]


def custom_entry_of(row: CustomMantleEntry) -> CustomEntry:
    """A campaign's custom mantle stunt or condition as stored."""
    assert row.id is not None
    stunt = Stunt.model_validate_json(row.entry_json) if row.kind == "stunt" else None
    track = Track.model_validate_json(row.entry_json) if row.kind == "condition" else None
    return CustomEntry(row.id, row.mantle_key, row.kind, row.name, stunt, track)


# --------------------------------------------------------------------------- the service
async def spend_grant_in(
    session: AsyncSession, campaign_id: int, record: CharacterRecord, major: bool
) -> None:
    """A milestone's changes need a milestone the GM awarded and the character has not used."""
    kind = recovery.MilestoneKind.MAJOR if major else recovery.MilestoneKind.MINOR
    row, play = await load_play_in(session, campaign_id)
    try:
        milestones = recovery.use_milestone(play.milestones, str(record.id), kind)
    except recovery.RecoveryError:
        raise RuleError(
            f"{record.name} has no {kind.value} milestone to spend. The GM awards them: a minor "
            "one to every PC with `/session end`, a major one with `/session arc-end`, or one "
            "to a single character with `/session award`."
        ) from None
    await save_play_in(session, row, play.model_copy(update={"milestones": milestones}))


class CharacterBase:
    """What every character step shares: the database, the campaigns, the caches, and who may
    see or change which sheet."""

    def __init__(self, db: Database, campaigns: CampaignService) -> None:
        self.db = db
        self.campaigns = campaigns
        self.cache = _Cache()

    # ----- small shared steps -----

    def _remember(self, record: CharacterRecord) -> None:
        self.cache.sheets[record.id] = (time.monotonic(), record.sheet)

    def _forget_names(self, campaign_id: int) -> None:
        self.campaigns.names.forget(campaign_id)

    def _forget_active(self, actor: Actor) -> None:
        for key in [
            k for k in self.cache.active if k[0] == actor.guild_id and k[2] == actor.user_id
        ]:
            self.cache.active.pop(key, None)

    @staticmethod
    def _check_may_edit(actor: Actor, record: CharacterRecord, doing: str) -> None:
        if record.owner_id != actor.user_id and not actor.is_gm:
            raise NotYours(
                f"{record.name} is not your character, so you cannot {doing}. Players change "
                "only their own characters; ask the GM."
            )

    @staticmethod
    def _check_may_view(actor: Actor, record: CharacterRecord) -> None:
        if record.is_npc and not actor.is_gm and record.owner_id != actor.user_id:
            raise NotYours(f"{record.name} is an NPC; only the GM can look at NPC sheets.")

    async def _target_raw_in(
        self, unit: RawUnit, actor: Actor, name: str | None
    ) -> tuple[CampaignInfo, CharacterRecord] | None:
        """`_target_in` as one raw statement; None when the ORM path must decide (the server
        has no campaign yet, or an "#id" that is not this campaign's)."""
        wanted = name.strip() if name and name.strip() else None
        ref = character_ref(wanted) if wanted else None
        found = await target_raw_in(
            unit,
            actor.guild_id,
            actor.channel_id,
            user_id=actor.user_id,
            name=wanted.lower() if wanted else None,
            ref=ref,
        )
        if found is None:
            return None
        campaign, record = target_of_in(unit, found)
        if wanted is None:
            if record is None:
                raise RuleError(NO_ACTIVE_CHARACTER)
            return campaign, record
        if record is None or (ref is not None and record.id != ref):
            if ref is not None:
                return None
            raise unknown_character(wanted)
        return campaign, hide_npc(actor, record, wanted)

    async def _target_in(
        self, session: AsyncSession, actor: Actor, name: str | None
    ) -> tuple[CampaignInfo, CharacterRecord]:
        campaign = await resolve_campaign_in(session, actor.guild_id, actor.channel_id)
        if name and name.strip():
            record = hide_npc(actor, await find_character_in(session, campaign.id, name), name)
        else:
            record = await require_active_in(session, campaign, actor.channel_id, actor.user_id)
        return campaign, record
