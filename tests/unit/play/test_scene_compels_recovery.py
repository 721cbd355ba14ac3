from __future__ import annotations

import pytest

from bot.errors import RuleError
from bot.fate.aspects import GM, AspectKind, OutcomeKind, create_advantage_new, spend_free_invoke
from bot.fate.compels import CompelState, accept, can_answer, offer_compel, refuse, withdraw
from bot.fate.economy import Reason
from bot.fate.recovery import (
    Campaign,
    MilestoneKind,
    RecoveryState,
    Severity,
    after_major_milestone,
    after_scene,
    after_session,
    begin_lasting_recovery,
    clear_condition,
    end_arc,
    end_session,
    start_session,
    treat,
    treatment_difficulty,
    unused_milestones,
    use_milestone,
)
from bot.fate.scene import (
    MAX_SITUATION_ASPECTS,
    MAX_ZONES,
    Scene,
    SceneParticipant,
    add_aspect,
    add_zone,
    change_gm_pool,
    clear_fleeting,
    clear_stress,
    end_scene,
    next_aspect_id,
    place,
    put_aspect,
    start_scene,
    who_is_in,
)
from bot.fate.tracks import Box, Recovery, Track, TrackKind

from .conftest import condensed_tracks

PCS = [
    SceneParticipant(id="charles", name="Charles"),
    SceneParticipant(id="ruth", name="Ruth"),
    SceneParticipant(id="cass", name="Cassandra"),
    SceneParticipant(id="ethan", name="Ethan"),
    SceneParticipant(id="alice", name="Alice Westforth", is_pc=False),
]


def test_scene_start_gm_pool_alice_example() -> None:
    # Alice conceded earlier after a moderate consequence: she brings 2 points.
    scene, events = start_scene(
        1,
        participants=PCS,
        zone_names=["Hall", "Vault"],
        situation_aspects=["Dim Light"],
        carried_points=2,
    )
    assert scene.gm_pool == 6
    assert events[0].kind == "scene_started"
    assert [a.text for a in scene.aspects] == ["Dim Light"]
    assert Scene.model_validate_json(scene.model_dump_json()) == scene


def test_scene_limits_and_zones() -> None:
    scene, _ = start_scene(1)
    for i in range(MAX_SITUATION_ASPECTS):
        scene, _ = add_aspect(scene, f"Aspect {i}")
    with pytest.raises(RuleError, match="at most"):
        add_aspect(scene, "One too many")
    with pytest.raises(RuleError, match="already"):
        add_aspect(start_scene(1, situation_aspects=["Fog"])[0], "fog")
    scene, _ = start_scene(1, participants=PCS[:1])
    for i in range(MAX_ZONES):
        scene, _ = add_zone(scene, f"Zone {i}", adjacent_to=[f"zone-{i - 1}"] if i else None)
    assert scene.zone("zone-0").adjacent == ["zone-1"]
    with pytest.raises(RuleError):
        add_zone(scene, "Extra")
    scene = place(scene, "charles", "zone-3")
    assert [p.id for p in who_is_in(scene, "zone-3")] == ["charles"]
    with pytest.raises(RuleError):
        add_aspect(scene, "Smoke", AspectKind.ZONE, owner="nowhere")


def test_create_advantage_with_style_and_boost_lifecycle() -> None:
    scene, _ = start_scene(1, participants=PCS[:2])
    aspect, _ = create_advantage_new(
        OutcomeKind.SUCCESS_WITH_STYLE,
        aspect_id=next_aspect_id(scene),
        text="Distracted",
        actor="cass",
    )
    scene, _ = put_aspect(scene, aspect, new=True)
    stored = scene.aspect(aspect.id)  # type: ignore[union-attr]
    assert stored.free_invokes == ["cass", "cass"]
    boost, _ = create_advantage_new(
        OutcomeKind.TIE, aspect_id=next_aspect_id(scene), text="Off Balance", actor="ruth"
    )
    scene, _ = put_aspect(scene, boost, new=True)
    assert boost is not None
    used, _ = spend_free_invoke(scene.aspect(boost.id), "ruth")
    scene, events = put_aspect(scene, used, old_id=boost.id)
    assert all(a.id != boost.id for a in scene.aspects)
    scene, _ = add_aspect(scene, "Stale Boost", AspectKind.BOOST, free_invokes=["ruth"])
    scene, _ = add_aspect(scene, "Burning Warehouse")
    keep = next(a.id for a in scene.aspects if a.text == "Burning Warehouse")
    ended, result, _ = end_scene(scene, keep_as_game=[keep])
    assert ended.ended and ended.aspects == []
    assert [a.kind for a in result.game_aspects] == [AspectKind.GAME]
    assert set(result.clear_stress_of) == {"charles", "ruth"}
    with pytest.raises(RuleError, match="ended"):
        add_aspect(ended, "Late")
    boost_id = next(a.id for a in scene.aspects if a.kind is AspectKind.BOOST)
    with pytest.raises(RuleError, match="Boosts"):
        end_scene(scene, keep_as_game=[boost_id])


def test_gm_pool_spending() -> None:
    scene, _ = start_scene(1, participants=PCS[:1])
    scene = change_gm_pool(scene, -1)
    with pytest.raises(RuleError):
        change_gm_pool(scene, -1)


def test_clear_stress_and_fleeting() -> None:
    tracks = condensed_tracks()
    tracks[0].boxes = [Box(marked=True), Box(marked=True), Box()]
    tracks[2].boxes = [Box(value=2, marked=True)]
    angry = Track(
        key="angry",
        label="Angry",
        kind=TrackKind.CONDITION,
        recovery=Recovery.FLEETING,
        boxes=[Box(marked=True)],
    )
    cleared = clear_fleeting(clear_stress([*tracks, angry]))
    assert cleared[0].is_free
    assert not cleared[2].is_free  # consequences stay
    assert cleared[-1].is_free


def test_compels_gm_accept_and_player_refuse() -> None:
    offer, cost, _ = offer_compel(
        "c1",
        offered_by=GM,
        target="ruth",
        aspect_id="a",
        aspect_text="Reckless",
        complication="She charges in.",
    )
    assert cost == []
    accepted, changes, _ = accept(offer)
    assert (
        accepted.state is CompelState.ACCEPTED
        and changes[0].delta == 1
        and changes[0].who == "ruth"
    )
    with pytest.raises(RuleError, match="already"):
        refuse(accepted, 3)
    offer, cost, _ = offer_compel(
        "c2",
        offered_by="ethan",
        target="ruth",
        aspect_id="a",
        aspect_text="Reckless",
        complication="x",
        offerer_points=1,
    )
    assert [(c.who, c.delta, c.reason) for c in cost] == [("ethan", -1, Reason.COMPEL_OFFERED)]
    with pytest.raises(RuleError, match="none"):
        refuse(offer, 0)
    refused, changes, _ = refuse(offer, 1)
    assert refused.state is CompelState.REFUSED and changes[0].delta == -1
    with pytest.raises(RuleError, match="costs a fate point"):
        offer_compel(
            "c3",
            offered_by="ethan",
            target="ruth",
            aspect_id="a",
            aspect_text="R",
            complication="x",
        )
    with pytest.raises(RuleError, match="complication"):
        offer_compel(
            "c4", offered_by=GM, target="ruth", aspect_id="a", aspect_text="R", complication="  "
        )


def test_compel_on_npc_uses_gm_pool_and_withdraw_refunds() -> None:
    offer, _, _ = offer_compel(
        "c5",
        offered_by="ruth",
        target="alice",
        target_is_npc=True,
        aspect_id="a",
        aspect_text="Proud",
        complication="She gloats.",
        offerer_points=2,
    )
    assert offer.target_wallet == GM
    assert can_answer(offer, None, is_gm=True) and not can_answer(offer, "alice", is_gm=False)
    gone, changes, _ = withdraw(offer, "ruth")
    assert (
        gone.state is CompelState.WITHDRAWN and changes[0].who == "ruth" and changes[0].delta == 1
    )
    with pytest.raises(RuleError):
        withdraw(offer, "ethan")


def test_treatment_difficulties() -> None:
    assert treatment_difficulty(Severity.MILD) == 2
    assert treatment_difficulty(Severity.MODERATE) == 4
    assert treatment_difficulty(Severity.SEVERE) == 6
    assert treatment_difficulty(Severity.MODERATE, treating_self=True) == 6


def wounded_tracks() -> list[Track]:
    tracks = condensed_tracks()
    for t in tracks:
        if t.kind is TrackKind.CONSEQUENCE:
            t.boxes = [Box(value=t.absorb, marked=True)]
            t.aspect = f"{t.label} hurt"
    return tracks


def test_mild_clears_after_one_full_scene() -> None:
    tracks, state = wounded_tracks(), RecoveryState()
    same, _, events = treat(tracks, state, "mild", effort=1, healing_text="Bandaged")
    assert same == tracks and events[0].kind == "treatment_failed"  # Average against Fair
    _, _, events = treat(tracks, state, "mild", effort=2, healing_text="Bandaged")
    assert events[0].kind == "treatment_succeeded" and "minor cost" in events[0].text  # a tie
    tracks, state, _ = treat(tracks, state, "mild", effort=3, healing_text="Bandaged")
    mild = next(t for t in tracks if t.key == "mild")
    assert mild.healing and mild.aspect == "Bandaged"
    with pytest.raises(RuleError, match="already healing"):
        treat(tracks, state, "mild", effort=9, healing_text="x")
    tracks, state, events = after_scene(tracks, state)
    assert events == []  # the scene of the treatment does not count
    tracks, state, events = after_scene(tracks, state)
    assert next(t for t in tracks if t.key == "mild").is_free and events[0].kind == "recovered"


def test_moderate_needs_a_session_and_self_treatment_is_harder() -> None:
    tracks, state = wounded_tracks(), RecoveryState()
    tracks2, _, events = treat(
        tracks, state, "moderate", effort=5, healing_text="Stitched", treating_self=True
    )
    assert events[0].kind == "treatment_failed"  # needs beats 6
    tracks, state, _ = treat(tracks, state, "moderate", effort=5, healing_text="Stitched")
    tracks, state, _ = after_session(tracks, state)
    assert not next(t for t in tracks if t.key == "moderate").is_free
    tracks, state, _ = after_session(tracks, state)
    assert next(t for t in tracks if t.key == "moderate").is_free


def test_severe_clears_at_major_milestone_and_milestone_starts_recovery() -> None:
    tracks, state = wounded_tracks(), RecoveryState()
    tracks, state, _ = treat(tracks, state, "severe", effort=7, healing_text="Crutches")
    tracks, state, _ = after_session(tracks, state)
    assert not next(t for t in tracks if t.key == "severe").is_free
    tracks, state, _ = after_major_milestone(tracks, state, renames={"moderate": "Healing Ribs"})
    assert next(t for t in tracks if t.key == "severe").is_free
    moderate = next(t for t in tracks if t.key == "moderate")
    assert moderate.healing and moderate.aspect == "Healing Ribs"
    with pytest.raises(RuleError):
        after_major_milestone(tracks, state, renames={"mild": "x"})


def test_lasting_and_sticky_conditions() -> None:
    wounded = Track(
        key="wounded",
        label="Wounded",
        kind=TrackKind.CONDITION,
        recovery=Recovery.LASTING,
        boxes=[Box(value=4, marked=True), Box(value=4, marked=True)],
        absorb=4,
    )
    hungry = Track(
        key="hungry",
        label="Hungry",
        kind=TrackKind.CONDITION,
        recovery=Recovery.STICKY,
        boxes=[Box(value=2, marked=True)],
    )
    tracks, state = [wounded, hungry], RecoveryState()
    _, _, events = begin_lasting_recovery(tracks, state, "wounded", effort=4)
    assert events[0].kind == "treatment_failed"
    tracks, state, _ = begin_lasting_recovery(tracks, state, "wounded", effort=5)
    assert tracks[0].marked_count == 1
    tracks, state, _ = after_session(tracks, state)
    tracks, state, _ = after_session(tracks, state)
    assert tracks[0].is_free
    tracks, _ = clear_condition(tracks, "hungry")
    assert tracks[1].is_free


def test_sessions_and_milestones() -> None:
    campaign, _ = start_session(Campaign())
    with pytest.raises(RuleError):
        start_session(campaign)
    campaign, _ = end_session(campaign, ["ruth", "ethan"])
    assert {g.character_id for g in unused_milestones(campaign)} == {"ruth", "ethan"}
    campaign = use_milestone(campaign, "ruth", MilestoneKind.MINOR)
    assert [g.character_id for g in unused_milestones(campaign)] == ["ethan"]
    with pytest.raises(RuleError):
        use_milestone(campaign, "ruth", MilestoneKind.MINOR)
    campaign, _ = end_arc(campaign, ["ruth"])
    assert campaign.arc_number == 2
    assert Campaign.model_validate_json(campaign.model_dump_json()) == campaign


def test_the_gm_awards_a_milestone_and_it_is_spent_once() -> None:
    from bot.fate import recovery as rec

    campaign = rec.award_milestone(rec.Campaign(), "7", rec.MilestoneKind.MAJOR)
    assert [(g.character_id, g.kind) for g in rec.unused_milestones(campaign)] == [
        ("7", rec.MilestoneKind.MAJOR)
    ]
    campaign = rec.use_milestone(campaign, "7", rec.MilestoneKind.MAJOR)
    assert not rec.unused_milestones(campaign)
    with pytest.raises(rec.RecoveryError):
        rec.use_milestone(campaign, "7", rec.MilestoneKind.MAJOR)
    for _ in range(rec.MAX_UNUSED_GRANTS):
        campaign = rec.award_milestone(campaign, "8", rec.MilestoneKind.MINOR)
    with pytest.raises(rec.RecoveryError, match="unused milestones"):
        rec.award_milestone(campaign, "8", rec.MilestoneKind.MINOR)


def test_a_long_campaign_keeps_only_the_milestones_still_waiting() -> None:
    """A hundred sessions of four players: the state holds the grants still waiting, never
    the spent ones, and at most MAX_UNUSED_GRANTS a character, the oldest dropped first
    (a player who never spends them no longer makes every later read slower); minor ones
    are let go before a major one."""
    from bot.fate import recovery as rec

    campaign = rec.Campaign()
    for number in range(100):
        campaign, _ = start_session(campaign)
        campaign, _ = end_session(campaign, ["ruth", "ethan", "hoarder", "vera"])
        for spender in ("ruth", "ethan", "vera"):
            campaign = use_milestone(campaign, spender, MilestoneKind.MINOR)
        if number == 49:
            campaign, _ = end_arc(campaign, ["ruth", "hoarder"])
    waiting = [(g.character_id, g.kind, g.session) for g in campaign.grants]
    hoarded = [(kind, session) for who, kind, session in waiting if who == "hoarder"]
    assert len(hoarded) == rec.MAX_UNUSED_GRANTS
    # the arc's major milestone (session 50) and the newest nineteen minor ones: 82-100
    assert hoarded == [(MilestoneKind.MAJOR, 50)] + [
        (MilestoneKind.MINOR, n) for n in range(82, 101)
    ]
    assert [(who, kind) for who, kind, _ in waiting if who != "hoarder"] == [
        ("ruth", MilestoneKind.MAJOR)
    ]
    assert all(not g.used for g in campaign.grants)


def test_a_state_stored_with_spent_milestones_forgets_them_at_the_next_change() -> None:
    from bot.fate import recovery as rec

    stored = rec.Campaign(
        grants=[
            rec.MilestoneGrant(character_id="7", kind=MilestoneKind.MINOR, session=1, used=True),
            rec.MilestoneGrant(character_id="7", kind=MilestoneKind.MINOR, session=2),
        ]
    )
    assert [g.session for g in unused_milestones(stored)] == [2]
    spent = use_milestone(stored, "7", MilestoneKind.MINOR)
    assert spent.grants == []
    campaign, _ = start_session(stored)
    campaign, _ = end_session(campaign, ["8"])
    assert [(g.character_id, g.session) for g in campaign.grants] == [("7", 2), ("8", 1)]
