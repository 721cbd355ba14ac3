"""A scene in one channel: situation and zone aspects, boosts, zones, who is where, the GM pool.

Character sheets are not stored here; scene end returns instructions (whose stress to clear)
and the pure `clear_stress` / `clear_fleeting` helpers the service applies to each sheet.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from bot.errors import RuleError
from bot.fate.aspects import Aspect, AspectKind, Event, new_aspect
from bot.fate.economy import gm_pool_at_scene_start
from bot.fate.tracks import Box, Recovery, Track, TrackKind

MAX_SITUATION_ASPECTS = 20
MAX_ZONES = 10
MAX_PARTICIPANTS = 25
MAX_NAME = 60


class SceneError(RuleError):
    """A scene action the rules or the bot's limits do not allow."""


class Zone(BaseModel):
    key: str
    name: str
    adjacent: list[str] = Field(default_factory=list)


class SceneParticipant(BaseModel):
    id: str
    name: str
    is_pc: bool = True
    zone: str | None = None


class Scene(BaseModel):
    channel_id: int
    title: str = ""
    aspects: list[Aspect] = Field(default_factory=list)  # situation, zone and boost aspects
    zones: list[Zone] = Field(default_factory=list)
    participants: list[SceneParticipant] = Field(default_factory=list)
    gm_pool: int = 0
    ended: bool = False
    next_aspect_number: int = 1

    def aspect(self, aspect_id: str) -> Aspect:
        for aspect in self.aspects:
            if aspect.id == aspect_id:
                return aspect
        raise SceneError("That aspect is not in this scene any more.")

    def participant(self, participant_id: str) -> SceneParticipant:
        for person in self.participants:
            if person.id == participant_id:
                return person
        raise SceneError("That character is not in this scene. Add them first.")

    def zone(self, key: str) -> Zone:
        for zone in self.zones:
            if zone.key == key:
                return zone
        raise SceneError(f"There is no zone '{key}' in this scene.")

    def visible_aspects(self, is_gm: bool) -> list[Aspect]:
        return [a for a in self.aspects if is_gm or not a.hidden]

    def pc_count(self) -> int:
        return sum(1 for p in self.participants if p.is_pc)


def _check_open(scene: Scene) -> None:
    if scene.ended:
        raise SceneError("This scene has ended. Start a new one with /scene start.")


def _zone_key(name: str) -> str:
    return "-".join(name.lower().split())[:32] or "zone"


def start_scene(
    channel_id: int,
    *,
    title: str = "",
    participants: list[SceneParticipant] | None = None,
    zone_names: list[str] | None = None,
    situation_aspects: list[str] | None = None,
    carried_points: int = 0,
) -> tuple[Scene, list[Event]]:
    """Open a scene; the GM pool is one point per PC plus carried points."""
    people = list(participants or [])
    if len(people) > MAX_PARTICIPANTS:
        raise SceneError(f"A scene holds at most {MAX_PARTICIPANTS} characters.")
    if len({p.id for p in people}) != len(people):
        raise SceneError("A character is listed twice.")
    scene = Scene(channel_id=channel_id, title=title[:MAX_NAME], participants=people)
    events: list[Event] = []
    for name in zone_names or []:
        scene, more = add_zone(scene, name)
        events += more
    for text in situation_aspects or []:
        scene, more = add_aspect(scene, text)
        events += more
    pool = gm_pool_at_scene_start(scene.pc_count(), carried_points)
    scene = scene.model_copy(update={"gm_pool": pool})
    events.insert(
        0,
        Event(
            kind="scene_started",
            text=f"The scene starts; the GM pool holds {pool}.",
            data={"gm_pool": pool},
        ),
    )
    return scene, events


def add_aspect(
    scene: Scene,
    text: str,
    kind: AspectKind = AspectKind.SITUATION,
    *,
    owner: str | None = None,
    hidden: bool = False,
    free_invokes: list[str] | None = None,
) -> tuple[Scene, list[Event]]:
    _check_open(scene)
    if kind not in (AspectKind.SITUATION, AspectKind.ZONE, AspectKind.BOOST, AspectKind.GAME):
        raise SceneError("Character aspects and consequences live on the character sheet.")
    if kind is AspectKind.ZONE:
        if owner is None:
            raise SceneError("Say which zone the aspect belongs to.")
        scene.zone(owner)
    if sum(
        1 for a in scene.aspects if a.kind is not AspectKind.BOOST
    ) >= MAX_SITUATION_ASPECTS and (kind is not AspectKind.BOOST):
        raise SceneError(
            f"A scene holds at most {MAX_SITUATION_ASPECTS} aspects; remove one first."
        )
    if any(a.text.lower() == " ".join(text.split()).lower() for a in scene.aspects):
        raise SceneError("That aspect is already in the scene; add invokes to it instead.")
    aspect = new_aspect(
        f"s{scene.next_aspect_number}",
        text,
        kind,
        owner=owner,
        hidden=hidden,
        free_invokes=free_invokes,
    )
    return put_aspect(scene, aspect, new=True)


def put_aspect(
    scene: Scene, aspect: Aspect | None, *, new: bool = False, old_id: str | None = None
) -> tuple[Scene, list[Event]]:
    """Store an aspect returned by the aspects module (None removes `old_id`, e.g. a used boost)."""
    _check_open(scene)
    if aspect is None:
        if old_id is None:
            raise SceneError("Say which aspect to remove.")
        return remove_aspect(scene, old_id)
    if new:
        if any(a.id == aspect.id for a in scene.aspects):
            raise SceneError("That aspect id is already used.")
        number = scene.next_aspect_number + 1
        updated = scene.model_copy(
            update={"aspects": [*scene.aspects, aspect], "next_aspect_number": number}
        )
        return updated, [
            Event(
                kind="aspect_added",
                text=f"{aspect.kind.value.capitalize()} aspect added.",
                data={"aspect": aspect.id, "hidden": aspect.hidden},
            )
        ]
    scene.aspect(aspect.id)
    aspects = [aspect if a.id == aspect.id else a for a in scene.aspects]
    return scene.model_copy(update={"aspects": aspects}), []


def next_aspect_id(scene: Scene) -> str:
    """An id for aspects built elsewhere (create an advantage) and then stored with put_aspect."""
    return f"s{scene.next_aspect_number}"


def remove_aspect(scene: Scene, aspect_id: str) -> tuple[Scene, list[Event]]:
    _check_open(scene)
    gone = scene.aspect(aspect_id)
    aspects = [a for a in scene.aspects if a.id != aspect_id]
    return scene.model_copy(update={"aspects": aspects}), [
        Event(kind="aspect_removed", text=f"{gone.text} is gone.", data={"aspect": aspect_id})
    ]


def add_zone(
    scene: Scene, name: str, adjacent_to: list[str] | None = None
) -> tuple[Scene, list[Event]]:
    _check_open(scene)
    clean = " ".join(name.split())[:MAX_NAME]
    if not clean:
        raise SceneError("Give the zone a name.")
    if len(scene.zones) >= MAX_ZONES:
        raise SceneError(f"A scene has at most {MAX_ZONES} zones.")
    key = _zone_key(clean)
    if any(z.key == key for z in scene.zones):
        raise SceneError(f"There is already a zone called {clean}.")
    neighbours = list(adjacent_to or [])
    for other in neighbours:
        scene.zone(other)
    zones = [
        z.model_copy(update={"adjacent": [*z.adjacent, key]}) if z.key in neighbours else z
        for z in scene.zones
    ]
    zones.append(Zone(key=key, name=clean, adjacent=neighbours))
    return scene.model_copy(update={"zones": zones}), [
        Event(kind="zone_added", text=f"Zone {clean} added.", data={"zone": key})
    ]


def add_participant(scene: Scene, person: SceneParticipant) -> tuple[Scene, list[Event]]:
    """Join mid-scene. The GM pool is set at scene start and does not grow here."""
    _check_open(scene)
    if any(p.id == person.id for p in scene.participants):
        raise SceneError(f"{person.name} is already in the scene.")
    if len(scene.participants) >= MAX_PARTICIPANTS:
        raise SceneError(f"A scene holds at most {MAX_PARTICIPANTS} characters.")
    if person.zone is not None:
        scene.zone(person.zone)
    return scene.model_copy(update={"participants": [*scene.participants, person]}), [
        Event(kind="joined", text=f"{person.name} joins the scene.", who=person.id)
    ]


def place(scene: Scene, participant_id: str, zone_key: str | None) -> Scene:
    """Put someone in a zone (the GM's setup, or a move the conflict already validated)."""
    _check_open(scene)
    scene.participant(participant_id)
    if zone_key is not None:
        scene.zone(zone_key)
    people = [
        p.model_copy(update={"zone": zone_key}) if p.id == participant_id else p
        for p in scene.participants
    ]
    return scene.model_copy(update={"participants": people})


def who_is_in(scene: Scene, zone_key: str) -> list[SceneParticipant]:
    return [p for p in scene.participants if p.zone == zone_key]


def change_gm_pool(scene: Scene, delta: int) -> Scene:
    if scene.gm_pool + delta < 0:
        raise SceneError("The GM pool is empty. GM compels are free; invokes need a point.")
    return scene.model_copy(update={"gm_pool": scene.gm_pool + delta})


class SceneEnd(BaseModel):
    """What the service must do to the rest of the world when a scene ends."""

    clear_stress_of: list[
        str
    ]  # participant ids: apply clear_stress / clear_fleeting to their tracks
    game_aspects: list[Aspect]  # aspects the GM kept, now campaign-long game aspects


def end_scene(
    scene: Scene, keep_as_game: list[str] | None = None
) -> tuple[Scene, SceneEnd, list[Event]]:
    """Close the scene: boosts and situation aspects go, except the ones kept as game aspects."""
    _check_open(scene)
    kept_ids = set(keep_as_game or [])
    kept: list[Aspect] = []
    for aspect_id in kept_ids:
        aspect = scene.aspect(aspect_id)
        if aspect.kind is AspectKind.BOOST:
            raise SceneError("Boosts never outlast their scene; they cannot become game aspects.")
        kept.append(aspect.model_copy(update={"kind": AspectKind.GAME, "owner": None}))
    ended = scene.model_copy(update={"ended": True, "aspects": []})
    result = SceneEnd(clear_stress_of=[p.id for p in scene.participants], game_aspects=kept)
    events = [
        Event(
            kind="scene_ended",
            text="The scene ends: stress clears, boosts and situation aspects go.",
            data={"kept": len(kept), "removed": len(scene.aspects) - len(kept)},
        )
    ]
    return ended, result, events


def clear_stress(tracks: list[Track]) -> list[Track]:
    """Every stress box empties at the end of a scene."""
    return [
        t.model_copy(update={"boxes": [Box(value=b.value) for b in t.boxes]})
        if t.kind is TrackKind.STRESS
        else t
        for t in tracks
    ]


def clear_fleeting(tracks: list[Track]) -> list[Track]:
    """Fleeting conditions pass once the character catches their breath (scene end)."""
    cleared = []
    for track in tracks:
        if track.kind is TrackKind.CONDITION and track.recovery is Recovery.FLEETING:
            track = track.model_copy(
                update={"boxes": [Box(value=b.value) for b in track.boxes], "aspect": None}
            )
        cleared.append(track)
    return cleared
