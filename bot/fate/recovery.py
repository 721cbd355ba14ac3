"""Recovering from consequences and conditions, and the session/arc milestones.

Tracks only say whether recovery has started (`healing`); how long is left lives in a small
`RecoveryState` per character that the service stores next to the sheet.
"""

from __future__ import annotations

from collections import Counter
from enum import StrEnum

from pydantic import BaseModel, Field

from bot.errors import RuleError
from bot.fate.aspects import MAX_ASPECT_TEXT, Event, OutcomeKind, classify
from bot.fate.tracks import Box, Recovery, Track, TrackKind
from bot.fate.words import plural

LASTING_RECOVERY_DIFFICULTY = 4  # Great (+4) overcome before a lasting condition starts healing
SELF_TREATMENT_PENALTY = 2


class RecoveryError(RuleError):
    """A recovery step the rules do not allow."""


class Severity(StrEnum):
    MILD = "mild"
    MODERATE = "moderate"
    SEVERE = "severe"


TREATMENT_DIFFICULTY = {Severity.MILD: 2, Severity.MODERATE: 4, Severity.SEVERE: 6}


def severity_of(track: Track) -> Severity:
    if track.kind is not TrackKind.CONSEQUENCE:
        raise RecoveryError(f"{track.label} is not a consequence.")
    if track.absorb <= 2:
        return Severity.MILD
    if track.absorb <= 4:
        return Severity.MODERATE
    return Severity.SEVERE


def treatment_difficulty(severity: Severity, treating_self: bool = False) -> int:
    """Fair / Great / Fantastic for mild / moderate / severe; two harder on yourself."""
    return TREATMENT_DIFFICULTY[severity] + (SELF_TREATMENT_PENALTY if treating_self else 0)


class HealingClock(BaseModel):
    track_key: str
    scene_ends_left: int = 0  # mild: one full scene after treatment
    session_ends_left: int = 0  # moderate, lasting conditions: one full session
    needs_major_milestone: bool = False  # severe


class RecoveryState(BaseModel):
    clocks: list[HealingClock] = Field(default_factory=list)


def _find(tracks: list[Track], key: str) -> Track:
    for track in tracks:
        if track.key == key:
            return track
    raise RecoveryError(f"There is no track called '{key}'.")


def _replace(tracks: list[Track], new: Track) -> list[Track]:
    return [new if t.key == new.key else t for t in tracks]


def _full_periods(during: bool) -> int:
    """The period in progress does not count as a full one."""
    return 2 if during else 1


def healing_clock(
    track_key: str, severity: Severity, during_scene: bool, during_session: bool
) -> HealingClock:
    """Once recovery starts: mild clears after a full scene, moderate after a full session,
    severe at the next major milestone."""
    clock = HealingClock(track_key=track_key)
    if severity is Severity.MILD:
        clock.scene_ends_left = _full_periods(during_scene)
    elif severity is Severity.MODERATE:
        clock.session_ends_left = _full_periods(during_session)
    else:
        clock.needs_major_milestone = True
    return clock


def _with_clock(state: RecoveryState, clock: HealingClock) -> RecoveryState:
    return RecoveryState(
        clocks=[c for c in state.clocks if c.track_key != clock.track_key] + [clock]
    )


def follow_milestone(
    tracks: list[Track],
    state: RecoveryState,
    *,
    started: list[str],
    finished: list[str],
    during_session: bool,
) -> RecoveryState:
    """A character's own major milestone renamed `started` consequences (recovery begins, the
    clock runs as after a treatment) and cleared `finished` ones (their clocks stop)."""
    clocks = [c for c in state.clocks if c.track_key not in finished]
    state = RecoveryState(clocks=clocks)
    for key in started:
        track = _find(tracks, key)
        state = _with_clock(state, healing_clock(key, severity_of(track), False, during_session))
    return state


def treat(
    tracks: list[Track],
    state: RecoveryState,
    track_key: str,
    *,
    effort: int,
    healing_text: str,
    treating_self: bool = False,
    during_scene: bool = True,
    during_session: bool = True,
) -> tuple[list[Track], RecoveryState, list[Event]]:
    """The treatment overcome roll. On success the consequence is renamed and starts healing;
    a tie is an overcome's success at a minor cost (the GM names the cost)."""
    track = _find(tracks, track_key)
    severity = severity_of(track)
    if track.is_free:
        raise RecoveryError(f"{track.label} holds no consequence to treat.")
    if track.healing:
        raise RecoveryError(f"{track.aspect or track.label} is already healing.")
    text = " ".join(healing_text.split())
    if not text or len(text) > MAX_ASPECT_TEXT:
        raise RecoveryError(f"Give the healing form a name of 1 to {MAX_ASPECT_TEXT} characters.")
    difficulty = treatment_difficulty(severity, treating_self)
    outcome = classify(effort, difficulty)
    if outcome is OutcomeKind.FAIL:
        return (
            tracks,
            state,
            [
                Event(
                    kind="treatment_failed",
                    text="The treatment does not take; recovery has not started.",
                    data={"difficulty": difficulty, "effort": effort},
                )
            ],
        )
    healed = track.model_copy(update={"aspect": text, "healing": True})
    clock = healing_clock(track_key, severity, during_scene, during_session)
    return (
        _replace(tracks, healed),
        _with_clock(state, clock),
        [
            Event(
                kind="treatment_succeeded",
                text=f"A tie: treated at a minor cost (the GM names it), now {text}."
                if outcome is OutcomeKind.TIE
                else f"Treated: now {text}.",
                data={"difficulty": difficulty, "effort": effort, "severity": severity.value},
            )
        ],
    )


def _clear(track: Track) -> Track:
    return track.model_copy(
        update={
            "boxes": [Box(value=b.value) for b in track.boxes],
            "aspect": None,
            "healing": False,
        }
    )


def _tick(
    tracks: list[Track], state: RecoveryState, field: str
) -> tuple[list[Track], RecoveryState, list[Event]]:
    events: list[Event] = []
    clocks: list[HealingClock] = []
    for clock in state.clocks:
        left = getattr(clock, field)
        if left <= 0:
            clocks.append(clock)
            continue
        clock = clock.model_copy(update={field: left - 1})
        if left - 1 > 0:
            clocks.append(clock)
            continue
        track = _find(tracks, clock.track_key)
        tracks = _replace(tracks, _clear(track))
        events.append(
            Event(
                kind="recovered",
                text=f"{track.aspect or track.label} has cleared.",
                data={"track": track.key},
            )
        )
    return tracks, RecoveryState(clocks=clocks), events


def after_scene(
    tracks: list[Track], state: RecoveryState
) -> tuple[list[Track], RecoveryState, list[Event]]:
    """Scene end: treated mild consequences count a full scene."""
    return _tick(tracks, state, "scene_ends_left")


def after_session(
    tracks: list[Track], state: RecoveryState
) -> tuple[list[Track], RecoveryState, list[Event]]:
    """Session end: treated moderate consequences and healing lasting conditions count a session."""
    return _tick(tracks, state, "session_ends_left")


def after_major_milestone(
    tracks: list[Track], state: RecoveryState, renames: dict[str, str] | None = None
) -> tuple[list[Track], RecoveryState, list[Event]]:
    """A major milestone clears everything already healing (moderate and severe).

    Moderate and severe consequences not yet healing may begin recovery: pass their new names
    in `renames` (track key -> healing text). They then clear at the next major milestone
    (moderate ones sooner, after a full session).
    """
    events: list[Event] = []
    healing_keys = {c.track_key for c in state.clocks}
    kept: list[HealingClock] = []
    for clock in state.clocks:
        track = _find(tracks, clock.track_key)
        if clock.needs_major_milestone or (
            track.kind is TrackKind.CONSEQUENCE and severity_of(track) is Severity.MODERATE
        ):
            tracks = _replace(tracks, _clear(track))
            events.append(
                Event(
                    kind="recovered",
                    text=f"{track.aspect or track.label} has cleared.",
                    data={"track": track.key},
                )
            )
        else:
            kept.append(clock)
    for key, text in (renames or {}).items():
        track = _find(tracks, key)
        if key in healing_keys or track.is_free or severity_of(track) is Severity.MILD:
            raise RecoveryError(f"{track.label} cannot begin recovery at this milestone.")
        clean = " ".join(text.split())
        if not clean or len(clean) > MAX_ASPECT_TEXT:
            raise RecoveryError(
                f"Give the healing form a name of 1 to {MAX_ASPECT_TEXT} characters."
            )
        tracks = _replace(tracks, track.model_copy(update={"aspect": clean, "healing": True}))
        severe = severity_of(track) is Severity.SEVERE
        kept.append(
            HealingClock(
                track_key=key, session_ends_left=0 if severe else 1, needs_major_milestone=severe
            )
        )
        events.append(Event(kind="recovery_started", text=f"Now {clean}.", data={"track": key}))
    return tracks, RecoveryState(clocks=kept), events


# --- conditions -----------------------------------------------------------------------


def begin_lasting_recovery(
    tracks: list[Track],
    state: RecoveryState,
    track_key: str,
    *,
    effort: int,
    during_session: bool = True,
) -> tuple[list[Track], RecoveryState, list[Event]]:
    """Lasting condition: a Great (+4) overcome; one box goes now, the other after a session."""
    track = _find(tracks, track_key)
    if track.kind is not TrackKind.CONDITION or track.recovery is not Recovery.LASTING:
        raise RecoveryError(f"{track.label} is not a lasting condition.")
    if track.healing or track.is_free:
        raise RecoveryError(f"{track.label} is not waiting to start recovery.")
    if classify(effort, LASTING_RECOVERY_DIFFICULTY) in (OutcomeKind.FAIL, OutcomeKind.TIE):
        return (
            tracks,
            state,
            [
                Event(
                    kind="treatment_failed",
                    text="Recovery has not started.",
                    data={"effort": effort},
                )
            ],
        )
    boxes = list(track.boxes)
    first_marked = next(i for i, b in enumerate(boxes) if b.marked)
    boxes[first_marked] = Box(value=boxes[first_marked].value)
    clock = HealingClock(track_key=track_key, session_ends_left=_full_periods(during_session))
    healing = track.model_copy(update={"boxes": boxes, "healing": True})
    return (
        _replace(tracks, healing),
        RecoveryState(clocks=[*state.clocks, clock]),
        [
            Event(
                kind="recovery_started",
                text=f"{track.label} starts to heal.",
                data={"track": track_key},
            )
        ],
    )


def clear_condition(tracks: list[Track], track_key: str) -> tuple[list[Track], list[Event]]:
    """A sticky condition clears when the story fixes it (sleep, a good meal): the GM says so."""
    track = _find(tracks, track_key)
    if track.kind is not TrackKind.CONDITION:
        raise RecoveryError(f"{track.label} is not a condition.")
    return _replace(tracks, _clear(track)), [
        Event(kind="recovered", text=f"{track.label} has cleared.", data={"track": track_key})
    ]


# --- sessions, arcs, milestones ------------------------------------------------------------


class MilestoneKind(StrEnum):
    MINOR = "minor"  # end of a session: move things around
    MAJOR = "major"  # end of an arc: grow


MINOR_MILESTONE_OPTIONS = (
    "Swap the ratings of two skills, or trade an Average (+1) skill for one not on the sheet.",
    "Rewrite one stunt.",
    "Buy a new stunt for 1 refresh (refresh cannot drop below 1).",
    "Rewrite one aspect other than the high concept.",
)
MAJOR_MILESTONE_EXTRAS = (
    "One choice from the minor milestone list.",
    "Rewrite the high concept if you like.",
    "Start recovery on moderate or severe consequences; clear those already recovering.",
    "Raise one skill by one step, keeping the skill columns valid.",
)
MIN_REFRESH = 1
MAX_UNUSED_GRANTS = 20  # per character: the GM cannot pile up milestones without end


class MilestoneGrant(BaseModel):
    character_id: str
    kind: MilestoneKind
    session: int
    used: bool = False  # states stored before used grants were dropped still have them


class Campaign(BaseModel):
    """Session and arc counters with the milestones handed out and not yet used."""

    session_number: int = 0
    arc_number: int = 1
    in_session: bool = False
    grants: list[MilestoneGrant] = Field(default_factory=list)


def start_session(campaign: Campaign) -> tuple[Campaign, list[Event]]:
    if campaign.in_session:
        raise RecoveryError("A session is already running; end it with /session end first.")
    number = campaign.session_number + 1
    return campaign.model_copy(update={"session_number": number, "in_session": True}), [
        Event(
            kind="session_started",
            text=f"Session {number} starts; everyone refreshes.",
            data={"session": number},
        )
    ]


def end_session(campaign: Campaign, pc_ids: list[str]) -> tuple[Campaign, list[Event]]:
    """Each PC earns a minor milestone."""
    if not campaign.in_session:
        raise RecoveryError("No session is running; start one with /session start.")
    grants = [
        MilestoneGrant(character_id=pc, kind=MilestoneKind.MINOR, session=campaign.session_number)
        for pc in pc_ids
    ]
    return campaign.model_copy(
        update={"in_session": False, "grants": _granted(campaign, grants)}
    ), [
        Event(
            kind="minor_milestone",
            text=f"{plural(len(grants), 'character')} earn a minor milestone.",
        )
    ]


def end_arc(campaign: Campaign, pc_ids: list[str]) -> tuple[Campaign, list[Event]]:
    """The GM closes an arc: each PC earns a major milestone."""
    grants = [
        MilestoneGrant(character_id=pc, kind=MilestoneKind.MAJOR, session=campaign.session_number)
        for pc in pc_ids
    ]
    return campaign.model_copy(
        update={"arc_number": campaign.arc_number + 1, "grants": _granted(campaign, grants)}
    ), [
        Event(
            kind="major_milestone",
            text=f"The arc ends; {plural(len(grants), 'character')} earn a major milestone.",
        )
    ]


def award_milestone(campaign: Campaign, character_id: str, kind: MilestoneKind) -> Campaign:
    """The GM gives one character a milestone outside a session's or an arc's end."""
    waiting = [g for g in unused_milestones(campaign) if g.character_id == character_id]
    if len(waiting) >= MAX_UNUSED_GRANTS:
        raise RecoveryError(
            f"That character already has {MAX_UNUSED_GRANTS} unused milestones; let them spend "
            "some with `/character milestone` first."
        )
    grant = MilestoneGrant(character_id=character_id, kind=kind, session=campaign.session_number)
    return campaign.model_copy(update={"grants": _granted(campaign, [grant])})


def _granted(campaign: Campaign, new: list[MilestoneGrant]) -> list[MilestoneGrant]:
    """The grants waiting once `new` are handed out: a character keeps at most
    MAX_UNUSED_GRANTS, letting its oldest minor ones go first (a major one goes only when
    nothing else is left to let go), so that a campaign's state does not grow with every
    session of a player who never spends them. Used ones are not kept at all: the milestone
    log remembers them."""
    waiting = [*unused_milestones(campaign), *new]
    over = Counter(g.character_id for g in waiting)
    for kind in (MilestoneKind.MINOR, MilestoneKind.MAJOR):
        kept = []
        for grant in waiting:  # oldest first
            if grant.kind is kind and over[grant.character_id] > MAX_UNUSED_GRANTS:
                over[grant.character_id] -= 1
                continue
            kept.append(grant)
        waiting = kept
    return waiting


def unused_milestones(campaign: Campaign) -> list[MilestoneGrant]:
    return [g for g in campaign.grants if not g.used]


def use_milestone(campaign: Campaign, character_id: str, kind: MilestoneKind) -> Campaign:
    """The character spends its oldest waiting grant of this kind; it is gone from the state."""
    for index, grant in enumerate(campaign.grants):
        if grant.character_id == character_id and grant.kind is kind and not grant.used:
            left = [g for k, g in enumerate(campaign.grants) if k != index and not g.used]
            return campaign.model_copy(update={"grants": left})
    raise RecoveryError(f"There is no unused {kind.value} milestone for that character.")
