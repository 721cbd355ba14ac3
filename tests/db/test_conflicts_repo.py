"""The encounter rows and services without Discord: versions, payouts, boosts, contests, challenges."""

from __future__ import annotations

import random
from typing import Any

import pytest
from sqlmodel import select

from bot.db.engine import Database
from bot.db.models.campaigns import FatePointEntry
from bot.db.models.conflicts import EncounterRow
from bot.errors import RuleError
from bot.fate.conflict import ConflictKind, Phase
from bot.fate.sheet import AspectKind, NpcKind, new_character
from bot.services.campaigns import (
    CharacterRecord,
    StaleError,
    get_character_in,
    insert_character_in,
    resolve_campaign_in,
)
from bot.services.challenges import ChallengeService, parse_tasks
from bot.services.clicks import ClickContext
from bot.services.conflicts import ConflictService
from bot.services.contests import ContestService

GUILD, CHANNEL, GM, ALICE = 10**18 + 11, 10**18 + 12, 10**18 + 13, 10**18 + 14


class Dice(random.Random):
    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.queue = list(faces)

    def choice(self, seq: Any) -> Any:
        return self.queue.pop(0) if self.queue else 0


async def _people(db: Database) -> dict[str, CharacterRecord]:
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        harry = new_character("Harry", skills={"Fight": 2, "Athletics": 2, "Will": 3})
        harry = harry.set_aspect(AspectKind.HIGH_CONCEPT, "Wizard detective")
        brute = new_character("Brute", skills={"Fight": 3, "Athletics": 0}, npc_kind=NpcKind.MAJOR)
        return {
            "harry": await insert_character_in(s, campaign, ALICE, harry),
            "brute": await insert_character_in(s, campaign, GM, brute),
        }


def _service(db: Database, *faces: int) -> ConflictService:
    service = ConflictService(db)
    dice = Dice(*faces)
    service.dice.factory = lambda: dice
    return service


async def test_state_round_trips_and_one_conflict_per_channel(db: Database) -> None:
    people = await _people(db)
    service = _service(db)
    snap = await service.start(
        GUILD, CHANNEL, GM, ConflictKind.PHYSICAL, ["Harry", "Brute"], "Brute", ["Hall", "Stairs"]
    )
    assert snap.version == 1 and snap.conflict.current == str(people["brute"].id)
    assert snap.conflict.adjacency == {"Hall": ["Stairs"], "Stairs": ["Hall"]}
    again = await service.get(snap.id)
    assert again.state == snap.state
    assert set(again.sheets) == set(snap.state.members)
    light = await service.get(snap.id, with_sheets=False)  # state checks skip the sheet reads
    assert (light.state, light.version, light.sheets) == (snap.state, snap.version, {})
    with pytest.raises(RuleError, match="already running"):
        await service.start(
            GUILD, CHANNEL, GM, ConflictKind.MENTAL, ["Harry", "Brute"], "Harry", []
        )
    with pytest.raises(RuleError, match="not among the participants"):
        await service.start(GUILD, CHANNEL + 1, GM, ConflictKind.MENTAL, ["Harry"], "Brute", [])
    await service.set_tracker(snap.id, 555)
    assert (await service.in_channel(CHANNEL)).tracker_message_id == 555


async def test_double_click_applies_once(db: Database) -> None:
    people = await _people(db)
    service = _service(db)
    snap = await service.start(
        GUILD, CHANNEL, GM, ConflictKind.PHYSICAL, ["Harry", "Brute"], "Brute", []
    )
    harry = str(people["harry"].id)
    moved = await service.pick_next(ClickContext(snap.id, snap.version, GM, True), harry)
    assert moved.version == snap.version + 1
    with pytest.raises(StaleError):
        await service.pick_next(ClickContext(snap.id, snap.version, GM, True), harry)
    async with db.session() as s:
        row = await s.get(EncounterRow, snap.id)
        assert row is not None and row.version == moved.version
    with pytest.raises(RuleError, match="Only Harry's player or the GM"):
        await service.pick_next(
            ClickContext(snap.id, moved.version, GM + 99, False), str(people["brute"].id)
        )


async def test_hostile_invoke_boosts_and_payouts(db: Database) -> None:
    people = await _people(db)
    harry, brute = str(people["harry"].id), str(people["brute"].id)
    # brute: Fight 3 + [+][+][+][0] = 6; Harry Athletics 2 + [0][0][0][-] = 1: 5 shifts, with style
    service = _service(db, 1, 1, 1, 0, 0, 0, 0, -1)
    snap = await service.start(
        GUILD, CHANNEL, GM, ConflictKind.PHYSICAL, ["Harry", "Brute"], "Brute", []
    )
    snap = await service.attack(ClickContext(snap.id, snap.version, GM, True), harry, "Fight")
    assert snap.conflict.phase is Phase.DEFENDING
    snap = await service.defend(ClickContext(snap.id, snap.version, ALICE, False), "Athletics")
    with pytest.raises(RuleError, match="already rolled"):
        await service.defend(ClickContext(snap.id, snap.version, ALICE, False), "Athletics")
    snap = await service.resolve(ClickContext(snap.id, snap.version, ALICE, False))
    assert snap.conflict.pending is not None and snap.conflict.pending.shifts == 5
    # After the resolution the defender can still invoke (a fate point on his high concept).
    name, choices = await service.invoke_choices(ClickContext(snap.id, None, ALICE, False))
    assert name == "Harry"
    own = next(c for c in choices if c.label == "Fate point: Wizard detective")
    snap = await service.invoke(ClickContext(snap.id, snap.version, ALICE, False), own.value)
    assert snap.conflict.pending is not None and snap.conflict.pending.shifts == 3
    snap = await service.trade_for_boost(ClickContext(snap.id, snap.version, GM, True))
    assert snap.conflict.pending is not None and snap.conflict.pending.shifts == 2
    assert [a.text for a in snap.state.aspects if a.kind.value == "boost"] == ["Momentum for Brute"]
    version, shifts, options = await service.absorb_options(
        ClickContext(snap.id, None, ALICE, False)
    )
    assert shifts == 2 and options[-1].label.startswith("Taken out")
    moderate = next(o for o in options if o.label.startswith("Moderate"))
    with pytest.raises(RuleError, match="Name the"):
        await service.absorb(ClickContext(snap.id, version, ALICE, False), moderate.index, [""])
    snap = await service.absorb(
        ClickContext(snap.id, version, ALICE, False), moderate.index, ["Cracked ribs"]
    )
    snap = await service.pick_next(ClickContext(snap.id, snap.version, GM, True), harry)
    # Harry attacks: Fight 2 - 1 = 1 vs Brute Athletics 0 + [+][+][+][+] = 4: defended with style
    dice = Dice(0, 0, 0, -1, 1, 1, 1, 1)
    service.dice.factory = lambda: dice
    snap = await service.attack(ClickContext(snap.id, snap.version, ALICE, False), brute, "Fight")
    snap = await service.defend(ClickContext(snap.id, snap.version, GM, True), "Athletics")
    snap = await service.resolve(ClickContext(snap.id, snap.version, ALICE, False))
    assert snap.conflict.phase is Phase.ACTING
    assert "Sure footing for Brute" in [a.text for a in snap.state.aspects]
    snap = await service.pick_next(ClickContext(snap.id, snap.version, ALICE, False), brute)
    # Brute attacks again and pays a fate point to invoke Harry's consequence: a hostile invoke.
    dice.queue = [0, 0, 0, 0, 0, 0, 0, 0]
    snap = await service.attack(ClickContext(snap.id, snap.version, GM, True), harry, "Fight")
    _, offered = await service.invoke_choices(ClickContext(snap.id, None, GM, True))
    ribs = next(c for c in offered if c.label == "Fate point: Cracked ribs")
    snap = await service.invoke(ClickContext(snap.id, snap.version, GM, True), ribs.value)
    assert snap.conflict.pending is not None and snap.conflict.pending.attack_effort == 5
    snap = await service.defend(ClickContext(snap.id, snap.version, ALICE, False), "Athletics")
    snap = await service.resolve(ClickContext(snap.id, snap.version, GM, True))
    _, _, options = await service.absorb_options(ClickContext(snap.id, None, ALICE, False))
    snap = await service.absorb(
        ClickContext(snap.id, snap.version, ALICE, False), options[0].index, ["Dazed"]
    )
    snap = await service.pick_next(ClickContext(snap.id, snap.version, GM, True), harry)
    snap = await service.concede(ClickContext(snap.id, snap.version, ALICE, False), harry)
    assert snap.conflict.phase is Phase.ENDED
    async with db.session() as s:
        entries = (await s.exec(select(FatePointEntry))).all()
        harry_after = await get_character_in(s, people["harry"].id)
        brute_after = await get_character_in(s, people["brute"].id)
    got = sorted((e.who, e.delta, e.reason) for e in entries)
    consequences = sum(1 for t in harry_after.sheet.tracks if t.aspect)
    assert got == [
        ("Brute", -1, "invoke"),
        ("Harry", -1, "invoke"),
        ("Harry", 1, "hostile_invoke_payout"),
        ("Harry", 1 + consequences, "concession"),
    ]
    assert harry_after.sheet.fate_points == 3 - 1 + 1 + 1 + consequences
    assert brute_after.sheet.fate_points == 2
    with pytest.raises(RuleError, match="over"):
        await service.concede(ClickContext(snap.id, snap.version, ALICE, False), harry)


async def test_contest_and_challenge_services(db: Database) -> None:
    people = await _people(db)
    conflicts = _service(db, 1, 1, 1, 1, 0, 0, 0, 0)
    contests = ContestService(db, conflicts.dice)
    with pytest.raises(RuleError, match="by letter"):
        await contests.start(GUILD, CHANNEL, GM, [("Harry", ""), ("Brute", "")], 1, "c")
    snap = await contests.start(
        GUILD, CHANNEL, GM, [("Harry", "escape"), ("Brute", "")], 1, harming="a"
    )
    harry, brute = str(people["harry"].id), str(people["brute"].id)
    snap = await contests.roll(
        ClickContext(snap.id, snap.version, ALICE, False), harry, "Athletics"
    )
    with pytest.raises(StaleError):
        await contests.roll(ClickContext(snap.id, snap.version - 1, GM, True), brute, "Athletics")
    snap = await contests.roll(ClickContext(snap.id, snap.version, GM, True), brute, "Athletics")
    assert snap.state.contest.winner is None and snap.state.everyone_rolled()
    with pytest.raises(RuleError, match="Only the GM or someone"):
        await contests.resolve(ClickContext(snap.id, snap.version, GM + 99, False))
    snap = await contests.resolve(ClickContext(snap.id, snap.version, ALICE, False))
    assert snap.state.contest.winner == "s1"
    assert "Brute takes a 6-shift hit from Harry" in snap.message
    with pytest.raises(RuleError, match="First Brute takes the 6-shift hit"):
        await contests.roll(ClickContext(snap.id, snap.version, GM, True), brute, "Athletics")
    with pytest.raises(RuleError, match="their players or the GM"):
        await contests.absorb_options(ClickContext(snap.id, None, GM + 99, False))
    victim, shifts, options = await contests.absorb_options(ClickContext(snap.id, None, GM, True))
    assert (victim, shifts) == ("Brute", 6)
    out = next(o.index for o in options if o.label.startswith("Taken out"))
    snap = await contests.absorb(ClickContext(snap.id, snap.version, GM, True), out, [])
    assert snap.state.out == [brute] and not snap.state.hits
    with pytest.raises(RuleError, match="over"):
        await contests.roll(ClickContext(snap.id, snap.version, GM, True), brute, "Athletics")

    challenges = ChallengeService(db, conflicts.dice)
    assert parse_tasks("Lore:3, Will:Great:hold on") == [("Lore", 3, ""), ("Will", 4, "hold on")]
    with pytest.raises(RuleError, match="Difficulty"):
        parse_tasks("Lore:lots")
    made = await challenges.start(GUILD, CHANNEL, GM, parse_tasks("Will:2"), "Hold the door")
    made = await challenges.assign(CHANNEL, 1, "Harry")
    with pytest.raises(RuleError, match="Harry's"):
        await challenges.roll(ClickContext(made.id, made.version, GM + 99, False), "t1")
    rolled = await challenges.roll(ClickContext(made.id, made.version, ALICE, False), "t1")
    assert not rolled.state.complete and "t1" in rolled.state.rolls
    with pytest.raises(RuleError, match="keep it before reassigning"):
        await challenges.assign(CHANNEL, 1, "Harry")
    with pytest.raises(RuleError, match="Harry's"):
        await challenges.keep(ClickContext(made.id, rolled.version, GM + 99, False), "t1")
    done = await challenges.keep(ClickContext(made.id, rolled.version, ALICE, False), "t1")
    assert done.state.complete and not done.state.rolls
    async with db.session() as s:
        row = await s.get(EncounterRow, done.id)
        assert row is not None and not row.active


async def test_conflict_aspects_are_offered_to_other_features(db: Database) -> None:
    from bot.services import aspects_in_play

    people = await _people(db)
    # Harry: Fight 2 + [+][+][+][0] = 5 vs Fair (+2): an advantage with style, two free invokes.
    service = _service(db, 1, 1, 1, 0)
    snap = await service.start(
        GUILD, CHANNEL, GM, ConflictKind.PHYSICAL, ["Harry", "Brute"], "Harry", []
    )
    snap = await service.create_advantage(
        ClickContext(snap.id, snap.version, ALICE, False), "Fight", "Fair", "Pinned down"
    )
    snap = await service.resolve_action(ClickContext(snap.id, snap.version, ALICE, False))
    harry_holder = f"char:{people['harry'].id}"
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        found = [
            a
            for a in await aspects_in_play.aspects_in_play_in(
                s, campaign, CHANNEL, include_hidden=False
            )
            if a.key.startswith("cf:")
        ]
        assert [(a.name, a.free_invokes) for a in found] == [("Pinned down", {harry_holder: 2})]
        with pytest.raises(RuleError, match="no free invoke"):
            await aspects_in_play.spend_free_invoke_in(s, campaign, CHANNEL, found[0].key, "gm")
        await aspects_in_play.spend_free_invoke_in(s, campaign, CHANNEL, found[0].key, harry_holder)
    after = await service.get(snap.id)
    assert after.state.aspects[0].free_invokes == [str(people["harry"].id)]
    assert after.version == snap.version + 1


def test_trackers_stay_within_discord_limits() -> None:
    from bot.fate import challenge, contest
    from bot.fate.aspects import make_boost
    from bot.fate.conflict import Combatant, start_conflict
    from bot.services.challenges import ChallengeSnapshot, ChallengeState
    from bot.services.conflict_state import ConflictSnapshot, ConflictState
    from bot.services.contests import ContestSnapshot, ContestState
    from bot.services.encounters import Member
    from bot.ui.conflicts import (
        challenge_controls,
        challenge_tracker,
        conflict_controls,
        conflict_tracker,
        contest_tracker,
    )

    long = "W" * 80
    people = {
        str(i): Member(character_id=i, owner_id=i, name=f"{i}{long}"[:80], is_npc=i % 2 == 0)
        for i in range(1, 21)
    }
    zones = [f"{z}{'Z' * 39}"[:40] for z in range(10)]
    fighters = [
        Combatant(id=k, name=m.name, side="npcs" if m.is_npc else "pcs", zone=zones[0])
        for k, m in people.items()
    ]
    adjacency: dict[str, list[str]] = {z: [] for z in zones}
    state, _ = start_conflict("1", ConflictKind.PHYSICAL, fighters, "1", adjacency)
    sheets = {
        k: new_character(m.name[:80], skills={"Physique": 5, "Will": 5}) for k, m in people.items()
    }
    boosts = [make_boost(f"cf:1:{n}", "B" * 80, str(n)) for n in range(1, 30)]
    cs = ConflictState(
        conflict=state, members=people, zones=zones, aspects=boosts, log=["L" * 300] * 8
    )
    embed = conflict_tracker(ConflictSnapshot(1, 1, 1, 1, cs, sheets))
    assert len(embed) <= 6000 and len(embed.fields) <= 25
    controls = conflict_controls(ConflictSnapshot(1, 1, 1, 1, cs, sheets))
    assert len(controls.options) <= 25 and all(len(o.label) <= 100 for o in controls.options)
    # with a side's scale and a rolled advantage waiting for Resolve
    from bot.fate.rolls import Roller, make_roll
    from bot.services.conflict_state import PendingAdvantage

    waiting, _ = make_roll(random.Random(1), Roller(name="R" * 80), skill="S" * 40, difficulty=3)
    cs.scale = {"pcs": 4, "npcs": 0}
    cs.action = PendingAdvantage(actor="1", roll=waiting, aspect_text="A" * 80)
    busy = ConflictSnapshot(1, 1, 1, 1, cs, sheets)
    embed = conflict_tracker(busy)
    assert len(embed) <= 6000 and len(embed.fields) <= 25
    assert [b.label for b in conflict_controls(busy).buttons][0] == "Resolve the roll"

    sides = [
        contest.ContestSide(key=f"s{n}", name="S" * 60, intent="I" * 200, members=list(people)[:10])
        for n in range(3)
    ]
    race, _ = contest.start_contest("2", sides, 5)
    from bot.services.contests import ContestHit

    hurt = [ContestHit(victim=k, attacker="1", shifts=8) for k in people]
    snap = ContestSnapshot(
        2,
        1,
        1,
        1,
        ContestState(
            contest=race, members=people, log=["x" * 300] * 8, hits=hurt, out=list(people)
        ),
    )
    embed = contest_tracker(snap)
    assert len(embed) <= 6000 and len(embed.fields) <= 25

    tasks = [("S" * 40, 3, "D" * 200) for _ in range(10)]
    job, _ = challenge.start_challenge("3", tasks, "T" * 200)
    for task in job.tasks:
        job, _ = challenge.record_roll(job, task.id, "1", 3, "C" * 200)
    chs = ChallengeSnapshot(3, 1, 1, 1, ChallengeState(challenge=job, members=people))
    assert len(challenge_tracker(chs)) <= 6000
    assert challenge_controls(chs).buttons == ()
    open_job, _ = challenge.start_challenge("4", tasks, "T" * 200)
    pending = {t.id: waiting for t in open_job.tasks}
    chs = ChallengeSnapshot(
        4, 1, 1, 1, ChallengeState(challenge=open_job, members=people, rolls=pending)
    )
    assert len(challenge_tracker(chs)) <= 6000
    assert "Keep the roll" in [b.label for b in challenge_controls(chs).buttons]


async def test_a_side_taken_out_in_a_contest_forfeits_its_rolls(db: Database) -> None:
    people = await _people(db)
    # Harry Athletics 2 +4 = 6 against the Brute's Athletics 0 +0: a 6-shift hit, 2 victories.
    conflicts = _service(db, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0)
    contests = ContestService(db, conflicts.dice)
    snap = await contests.start(GUILD, CHANNEL, GM, [("Harry", ""), ("Brute", "")], 3, "a")
    harry, brute = str(people["harry"].id), str(people["brute"].id)
    snap = await contests.roll(
        ClickContext(snap.id, snap.version, ALICE, False), harry, "Athletics"
    )
    snap = await contests.roll(ClickContext(snap.id, snap.version, GM, True), brute, "Athletics")
    snap = await contests.resolve(ClickContext(snap.id, snap.version, ALICE, False))
    assert [h.shifts for h in snap.state.hits] == [6]
    _, _, options = await contests.absorb_options(ClickContext(snap.id, None, GM, True))
    out = next(o.index for o in options if o.label.startswith("Taken out"))
    snap = await contests.absorb(ClickContext(snap.id, snap.version, GM, True), out, [])
    assert "nobody left to roll" in snap.message
    assert [c.value for c in contests.members_for(snap, GM, True, rolling=True)] == [harry]
    # Harry rolls alone and marks the last victory.
    snap = await contests.roll(
        ClickContext(snap.id, snap.version, ALICE, False), harry, "Athletics"
    )
    snap = await contests.resolve(ClickContext(snap.id, snap.version, ALICE, False))
    assert snap.state.contest.winner == "s1"


async def test_an_advantage_on_a_full_aspect_spends_the_action_without_blocking(
    db: Database,
) -> None:
    from bot.fate.aspects import AspectKind as Kind
    from bot.fate.aspects import new_aspect
    from bot.services.conflict_state import ConflictState

    people = await _people(db)
    service = _service(db, 1, 1, 1, 0)
    snap = await service.start(
        GUILD, CHANNEL, GM, ConflictKind.PHYSICAL, ["Harry", "Brute"], "Harry", []
    )
    harry = str(people["harry"].id)
    full = new_aspect("cf:9:1", "Dust everywhere", Kind.SITUATION, free_invokes=["gm"] * 10)
    async with db.session() as s:
        row = await s.get(EncounterRow, snap.id)
        assert row is not None
        state = ConflictState.model_validate_json(row.state_json)
        state.aspects = [full]
        row.state_json = state.model_dump_json()
        s.add(row)
    targets = await service.advantage_targets(ClickContext(snap.id, None, ALICE, False))
    brute = str(people["brute"].id)  # a new aspect on the opponent: they would defend
    assert [t.value for t in targets] == ["new", f"on:{brute}", "cf:9:1"]
    snap = await service.create_advantage(
        ClickContext(snap.id, snap.version, ALICE, False), "Fight", "Fair", "", existing="cf:9:1"
    )
    assert snap.state.action is not None and snap.state.action.aspect_name == "Dust everywhere"
    with pytest.raises(RuleError, match="Resolve the roll"):
        await service.pick_next(
            ClickContext(snap.id, snap.version, ALICE, False), str(people["brute"].id)
        )
    snap = await service.resolve_action(ClickContext(snap.id, snap.version, ALICE, False))
    assert "at most 10 free invokes" in snap.message and "action is spent" in snap.message
    assert snap.state.action is None and snap.conflict.action_used
    assert snap.conflict.current == harry


async def test_next_names_read_the_row_for_autocomplete(db: Database) -> None:
    await _people(db)
    service = _service(db)
    await service.start(GUILD, CHANNEL, GM, ConflictKind.PHYSICAL, ["Harry", "Brute"], "Brute", [])
    assert await service.next_names(CHANNEL, "") == ["Harry"]
    assert await service.next_names(CHANNEL, " HAR ") == ["Harry"]
    assert await service.next_names(CHANNEL, "zz") == []
    assert await service.next_names(CHANNEL + 1, "") == []  # no conflict there
    await service.end(CHANNEL)
    assert await service.next_names(CHANNEL, "") == []


def test_invoke_menu_entries_for_aspects_in_play() -> None:
    from bot.services.aspects_in_play import AspectInPlay
    from bot.services.encounters import Choice, distinct_labels, in_play_choices

    found = [
        AspectInPlay("scene:1", "Rotten planks", "scene", free_invokes={"char:7": 1}),
        AspectInPlay("scene:2", "Dust", "scene", is_boost=True, free_invokes={"gm": 1}),
        AspectInPlay("char:7:0", "Rotten Planks", "Harry"),
    ]
    assert in_play_choices(found, "char:7", value_head="t1|", label_head="Lore: ") == [
        Choice("t1|free|scene:1", "Lore: Free invoke: Rotten planks", "scene"),
        Choice("t1|fp|scene:1", "Lore: Fate point: Rotten planks", "scene"),
        Choice("t1|fp|char:7:0", "Lore: Fate point: Rotten Planks", "Harry"),
    ]
    for_gm = in_play_choices(found, "gm", with_owner=False)
    assert [c.value for c in for_gm] == ["fp|scene:1", "free|scene:2", "fp|char:7:0"]
    assert {c.description for c in for_gm} == {""}
    # the same label twice (letter case aside) is offered once: the first one
    assert [c.value for c in distinct_labels(for_gm)] == ["fp|scene:1", "free|scene:2"]
    many = [Choice(str(n), f"Aspect {n}") for n in range(40)]
    assert len(distinct_labels(many)) == 25


async def test_an_encounter_comes_with_the_campaign_its_channel_resolves_to(db: Database) -> None:
    """The one-statement load of an encounter picks the campaign `resolve_campaign_in` picks:
    the channel's bound campaign, else the server's default."""
    from bot.db.models.campaigns import Campaign, ChannelCampaign
    from bot.services.encounters import encounter_with_campaign_in

    bound_channel = CHANNEL + 100
    async with db.session() as s:
        default = await resolve_campaign_in(s, GUILD, CHANNEL)
        other = Campaign(guild_id=GUILD, name="Side story", settings_json="{}")
        s.add(other)
        await s.flush()
        assert other.id is not None
        s.add(ChannelCampaign(channel_id=bound_channel, guild_id=GUILD, campaign_id=other.id))
        for channel, campaign_id in ((CHANNEL, default.id), (bound_channel, other.id)):
            s.add(
                EncounterRow(
                    campaign_id=campaign_id,
                    guild_id=GUILD,
                    channel_id=channel,
                    kind="conflict",
                    state_json="{}",
                    created_by=GM,
                )
            )
    async with db.read() as s:
        for channel in (CHANNEL, bound_channel):
            found = await encounter_with_campaign_in(s, "conflict", None, channel)
            assert found is not None and found[1] is not None
            row, campaign = found
            assert row.channel_id == channel
            assert campaign == await resolve_campaign_in(s, GUILD, channel)
            by_id = await encounter_with_campaign_in(s, "conflict", row.id)
            assert by_id is not None and by_id[1] == campaign
            assert await encounter_with_campaign_in(s, "contest", row.id) is None
    assert default.id != other.id


async def test_conflict_next_passes_the_turn_and_keeps_the_version_check(db: Database) -> None:
    """/conflict next (raw statements where it can) on each database: the turn passes, the
    version moves on, the sheets and skills come along, and the sentences stay the same."""
    people = await _people(db)
    service = _service(db)
    snap = await service.start(
        GUILD, CHANNEL, GM, ConflictKind.PHYSICAL, ["Harry", "Brute"], "Brute", ["Hall"]
    )
    await service.set_tracker(snap.id, 777)
    passed = await service.pass_turn(CHANNEL, GM, True, None)
    assert passed.message == "Harry acts next."
    assert passed.conflict.current == str(people["harry"].id)
    assert (passed.version, passed.tracker_message_id) == (snap.version + 1, 777)
    assert set(passed.sheets) == set(snap.state.members) and "Fight" in passed.skills
    assert passed.turn_ping is True
    with pytest.raises(RuleError, match="Only Harry's player or the GM"):
        await service.pass_turn(CHANNEL, GM + 999, False, "Brute")
    back = await service.pass_turn(CHANNEL, ALICE, False, "Brute")
    assert back.conflict.current == str(people["brute"].id) and back.version == snap.version + 2
    assert (await service.get(snap.id)).state == back.state  # what was stored
    with pytest.raises(RuleError, match="No conflict is running here"):
        await service.pass_turn(CHANNEL + 5, GM, True, None)
