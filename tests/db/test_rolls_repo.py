"""Rolls as rows: make, invoke (fate point / free invoke), stale versions, closing, the log."""

from __future__ import annotations

import random

import pytest
from sqlmodel import select

from bot.db.engine import Database
from bot.db.models.campaigns import FatePointEntry
from bot.errors import RuleError
from bot.fate.rolls import InvokeMode
from bot.fate.sheet import AspectKind, new_character
from bot.services.campaigns import (
    CampaignService,
    CampaignSettings,
    StaleError,
    get_character_in,
    insert_character_in,
    resolve_campaign_in,
    set_active_in,
)
from bot.services.roll_base import RollChange, RollNotAllowed, RollRequest
from bot.services.rolls import RollService

GUILD, CHANNEL, ALICE, BOB, CAROL = 10**18 + 1, 10**18 + 2, 10**18 + 4, 10**18 + 5, 10**18 + 6


async def _setup(db: Database) -> tuple[int, int]:
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        harry = (
            new_character("Harry", skills={"Lore": 4, "Will": 3})
            .set_aspect(AspectKind.HIGH_CONCEPT, "Wizard Private Eye")
            .set_aspect(AspectKind.TROUBLE, "Trouble Magnet")
        )
        harry = harry.set_free_invokes("Wizard Private Eye", 2)
        h = await insert_character_in(s, campaign, ALICE, harry)
        m = await insert_character_in(s, campaign, BOB, new_character("Molly", skills={"Lore": 2}))
        await set_active_in(s, GUILD, ALICE, h.id, None)
        await set_active_in(s, GUILD, BOB, m.id, None)
        return h.id, m.id


def _key(picker_keys: list[str], prefix: str) -> str:
    return next(k for k in picker_keys if k.startswith(prefix))


async def _alice_invokes(
    service: RollService, roll_id: int, version: int, aspect_key: str, payment: str
) -> RollChange:
    """Alice invokes an aspect for +2 on a roll, paying as `payment` says."""
    return await service.invoke(
        roll_id,
        version=version,
        user_id=ALICE,
        user_name="alice",
        is_gm=False,
        aspect_key=aspect_key,
        mode=InvokeMode.BONUS,
        hostile=False,
        payment=payment,
    )


async def test_invoke_pays_once_and_stale_clicks_fail(db: Database) -> None:
    harry_id, _ = await _setup(db)
    service = RollService(db, random.Random(4))
    made = await service.start(
        RollRequest(
            guild_id=GUILD,
            channel_id=CHANNEL,
            user_id=ALICE,
            user_name="alice",
            skill="lore",
            difficulty="Fair",
        )
    )
    view = made.view
    assert view.roll.skill == "Lore" and view.roll.skill_rating == 4 and view.roll.difficulty == 2
    picker = await service.invoke_picker(view.id, user_id=ALICE, is_gm=False, hostile=False)
    keys = [a.key for a in picker.aspects]
    high = _key(keys, f"char:{harry_id}:a:0")
    _, _, options = await service.payment_options(
        view.id, user_id=ALICE, is_gm=False, aspect_key=high, hostile=False
    )
    assert {o.value for o in options} == {f"fp:char:{harry_id}", f"free:char:{harry_id}"}
    before = view.roll.effort()
    paid = await _alice_invokes(service, view.id, view.version, high, f"fp:char:{harry_id}")
    assert paid.view.roll.effort() == before + 2
    with pytest.raises(StaleError):  # the same picker clicked twice
        await _alice_invokes(service, view.id, view.version, high, f"free:char:{harry_id}")
    with pytest.raises(RuleError, match="already spent"):
        await _alice_invokes(service, view.id, paid.view.version, high, f"fp:char:{harry_id}")
    free = await _alice_invokes(service, view.id, paid.view.version, high, f"free:char:{harry_id}")
    assert free.view.roll.effort() == before + 4
    async with db.session() as s:
        harry = await get_character_in(s, harry_id)
        assert harry.sheet.fate_points == 2
        assert harry.sheet.find_aspect("Wizard Private Eye").free_invokes == 1
        entries = (await s.exec(select(FatePointEntry))).all()
        assert [(e.delta, e.reason, e.balance_after) for e in entries] == [(-1, "invoke", 2)]


async def test_permissions_teamwork_and_closing(db: Database) -> None:
    await _setup(db)
    service = RollService(db, random.Random(1))
    first = await service.start(
        RollRequest(
            guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, user_name="alice", skill="Lore"
        )
    )
    with pytest.raises(RollNotAllowed):
        await service.invoke_picker(first.view.id, user_id=CAROL, is_gm=False, hostile=False)
    with pytest.raises(RollNotAllowed, match="free invoke"):  # Molly holds none
        await service.invoke_picker(first.view.id, user_id=BOB, is_gm=False, hostile=False)
    helped = await service.teamwork(first.view.id, user_id=BOB, is_gm=False)
    assert helped.view.roll.teamwork_bonus == 1
    with pytest.raises(RuleError, match="already helping"):
        await service.teamwork(first.view.id, user_id=BOB, is_gm=False)
    second = await service.start(
        RollRequest(
            guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, user_name="alice", skill="Will"
        )
    )
    assert [v.id for v in second.others] == [first.view.id] and second.others[0].closed
    with pytest.raises(RuleError, match="closed"):
        await service.invoke_picker(first.view.id, user_id=ALICE, is_gm=False, hostile=False)
    plain = await service.start(
        RollRequest(
            guild_id=GUILD, channel_id=CHANNEL, user_id=CAROL, user_name="carol", skill="+3"
        )
    )
    assert (
        plain.view.roll.skill is None and plain.view.roll.effort() == 3 + plain.view.roll.dice_total
    )
    with pytest.raises(RuleError, match="no active character"):
        await service.start(
            RollRequest(
                guild_id=GUILD, channel_id=CHANNEL, user_id=CAROL, user_name="carol", skill="Lore"
            )
        )
    hidden = await service.start(
        RollRequest(
            guild_id=GUILD, channel_id=CHANNEL, user_id=CAROL, user_name="carol", hidden=True
        )
    )
    assert hidden.view.hidden
    public_log = await service.log(CHANNEL, is_gm=False)
    assert hidden.view.id not in {v.id for v in public_log}
    assert hidden.view.id in {v.id for v in await service.log(CHANNEL, is_gm=True)}


async def test_opposed_rolls_follow_each_other(db: Database) -> None:
    await _setup(db)
    service = RollService(db, random.Random(9))
    acting = await service.start(
        RollRequest(
            guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, user_name="alice", skill="Lore"
        )
    )
    defending = await service.start(
        RollRequest(
            guild_id=GUILD,
            channel_id=CHANNEL,
            user_id=BOB,
            user_name="bob",
            skill="Lore",
            against=acting.view.id,
        )
    )
    assert defending.view.roll.opposition_effort == acting.view.roll.effort()
    synced = next(v for v in defending.others if v.id == acting.view.id)
    assert synced.roll.opposition_effort == defending.view.roll.effort()
    with pytest.raises(RuleError, match="either"):
        await service.start(
            RollRequest(
                guild_id=GUILD,
                channel_id=CHANNEL,
                user_id=BOB,
                user_name="bob",
                difficulty="2",
                against=acting.view.id,
            )
        )


async def _gm_invokes_harrys_trouble(db: Database, service: RollService) -> None:
    """Alice rolls in a scene with Harry in it; the GM invokes Harry's trouble against her,
    paying from the GM pool (a hostile invoke: Harry is owed a fate point at the scene's end)."""
    from bot.services.scenes import SceneService

    made = await service.start(
        RollRequest(
            guild_id=GUILD,
            channel_id=CHANNEL,
            user_id=ALICE,
            user_name="alice",
            skill="Lore",
            difficulty="2",
        )
    )
    await SceneService(db).start(GUILD, CHANNEL, actor_id=CAROL, characters=["Harry"])
    picker = await service.invoke_picker(made.view.id, user_id=CAROL, is_gm=True, hostile=True)
    harry_id = made.view.roll.roller.character_id
    trouble = _key([a.key for a in picker.aspects], f"char:{harry_id}:a:1")
    _, _, options = await service.payment_options(
        made.view.id, user_id=CAROL, is_gm=True, aspect_key=trouble, hostile=True
    )
    assert [o.value for o in options] == ["fp:gm"]
    done = await service.invoke(
        made.view.id,
        version=made.view.version,
        user_id=CAROL,
        user_name="gm",
        is_gm=True,
        aspect_key=trouble,
        mode=InvokeMode.BONUS,
        hostile=True,
        payment="fp:gm",
    )
    assert done.view.roll.opposition() == 4


async def test_hostile_invokes_owe_the_aspect_owner(db: Database) -> None:
    from datetime import timedelta

    from bot.db.models.columns import utcnow
    from bot.db.repos.rolls import owed_fate_points_in

    harry_id, _ = await _setup(db)
    start = utcnow() - timedelta(seconds=1)
    await _gm_invokes_harrys_trouble(db, RollService(db, random.Random(2)))
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        assert await owed_fate_points_in(s, campaign.id, CHANNEL, start) == {harry_id: 1}
        later = utcnow() + timedelta(seconds=5)
        assert await owed_fate_points_in(s, campaign.id, CHANNEL, later) == {}
        pool = (await s.exec(select(FatePointEntry).where(FatePointEntry.who == "GM"))).all()
        assert pool[-1].delta == -1 and pool[-1].reason == "invoke"


async def test_owed_points_count_the_scene_s_rolls_among_the_channel_s_history(
    db: Database,
) -> None:
    """The scene's rolls are found among the channel's older ones, which are never parsed
    (here they could not be); rolls made after the invoked one do not hide it.
    (tests/db/test_history_plans.py checks that the older ones are not even walked.)"""
    from datetime import timedelta

    from sqlalchemy import insert

    from bot.db.models.columns import utcnow
    from bot.db.models.rolls import RollRow
    from bot.db.repos import rolls as repo

    harry_id, _ = await _setup(db)
    long_ago = utcnow() - timedelta(days=30)
    history = [
        {
            "campaign_id": 1,
            "guild_id": GUILD,
            "channel_id": CHANNEL,
            "user_id": ALICE,
            "closed": True,
            "roll_json": "{not a roll: parsing it fails",
            "created_at": long_ago,
            "updated_at": long_ago,
        }
        for _ in range(300)
    ]
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        for row in history:
            row["campaign_id"] = campaign.id
        await s.execute(insert(RollRow.__table__), history)  # type: ignore[attr-defined]
    start = utcnow() - timedelta(seconds=1)
    service = RollService(db, random.Random(2))
    await _gm_invokes_harrys_trouble(db, service)
    for _ in range(3):  # more rolls in the scene, newer than the invoked one
        await service.start(
            RollRequest(
                guild_id=GUILD, channel_id=CHANNEL, user_id=BOB, user_name="bob", skill="Lore"
            )
        )
    async with db.session() as s:
        assert await repo.owed_fate_points_in(s, campaign.id, CHANNEL, start) == {harry_id: 1}


async def test_scene_end_pays_pcs_and_carries_an_npcs_points(db: Database) -> None:
    from bot.fate.sheet import NpcKind, make_npc
    from bot.services.campaign_play import read_play_in
    from bot.services.campaigns import get_character_in, save_character_in
    from bot.services.scenes import SceneService

    harry_id, _ = await _setup(db)
    scenes = SceneService(db)
    service = RollService(db, random.Random(2))
    try:
        await scenes.start(GUILD, CHANNEL, actor_id=CAROL, characters=["Harry"], aspects=["Rain"])
        made = await service.start(
            RollRequest(
                guild_id=GUILD,
                channel_id=CHANNEL,
                user_id=ALICE,
                user_name="a",
                skill="Lore",
                difficulty="2",
            )
        )
        picker = await service.invoke_picker(made.view.id, user_id=CAROL, is_gm=True, hostile=True)
        trouble = _key([a.key for a in picker.aspects], f"char:{harry_id}:a:1")
        await service.invoke(
            made.view.id,
            version=made.view.version,
            user_id=CAROL,
            user_name="gm",
            is_gm=True,
            aspect_key=trouble,
            mode=InvokeMode.BONUS,
            hostile=True,
            payment="fp:gm",
        )
        async with db.session() as s:  # Harry turns out to be a major NPC
            record = await get_character_in(s, harry_id)
            await save_character_in(s, record, make_npc(record.sheet, NpcKind.MAJOR))
        ended = await scenes.end(GUILD, CHANNEL, keep=["Rain"], actor_id=CAROL)
        assert ended.paid == ["the GM carries 1 into the NPC's next scene"]
        assert ended.kept == ["Rain"]
        async with db.session() as s:
            campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
            play = await read_play_in(s, campaign.id)
        assert play.npc_carried == {str(harry_id): 1}
        assert [a.text for a in play.game_aspects] == ["Rain"]
    finally:
        scenes.close()


async def test_a_void_after_the_channel_moved_to_another_campaign_refunds_nothing(
    db: Database,
) -> None:
    """The points paid on a roll stay in the campaign that spent them: voiding the roll after
    its channel was bound to another campaign gives none back (and undoes no entry)."""
    harry_id, _ = await _setup(db)
    service = RollService(db, random.Random(4))
    request = RollRequest(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, user_name="alice", skill="lore"
    )
    view = (await service.start(request)).view
    picker = await service.invoke_picker(view.id, user_id=ALICE, is_gm=False, hostile=False)
    await _alice_invokes(
        service,
        view.id,
        view.version,
        _key([a.key for a in picker.aspects], f"char:{harry_id}:a:0"),
        f"fp:char:{harry_id}",
    )
    campaigns = CampaignService(db)
    await campaigns.create(GUILD, "Other", CampaignSettings())
    await campaigns.bind(GUILD, CHANNEL, "Other")
    async with db.read() as s:
        spent = (await get_character_in(s, harry_id)).sheet.fate_points
    done = await service.void(view.id, user_id=CAROL, is_gm=True)
    assert "nothing was spent on it" in done.note
    async with db.read() as s:
        assert (await get_character_in(s, harry_id)).sheet.fate_points == spent
        entries = (await s.exec(select(FatePointEntry))).all()
    assert [(e.reason, e.undone) for e in entries] == [("invoke", False)]
