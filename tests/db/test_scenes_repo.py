"""Scene, compel, recovery and ledger services on a real database (SQLite, and PostgreSQL when set)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from bot.db.engine import Database
from bot.db.models.scenes import CompelOfferRow, SceneRow
from bot.errors import RuleError
from bot.fate.sheet import NpcKind, make_npc, new_character
from bot.services.aspects_in_play import aspects_in_play_in
from bot.services.campaigns import (
    StaleError,
    get_character_in,
    insert_character_in,
    move_fate_points_in,
    resolve_campaign_in,
    set_active_in,
)
from bot.services.compels import CompelService
from bot.services.economy import LOG_PAGE_SIZE, EconomyService
from bot.services.scene_state import (
    board_listeners,
    carry_gm_points_in,
    scene_of,
    spend_gm_point_in,
)
from bot.services.scenes import SceneService

GUILD, CHANNEL, OTHER = 10**18 + 11, 10**18 + 12, 10**18 + 13
GM, ALICE, BOB = 10**18 + 21, 10**18 + 22, 10**18 + 23


class Dice(random.Random):
    def __init__(self, face: int) -> None:
        super().__init__(0)
        self.face = face

    def choice(self, seq: Any) -> Any:
        return self.face


async def _people(db: Database) -> dict[str, int]:
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        harry = await insert_character_in(s, campaign, ALICE, new_character("Harry"))
        molly = await insert_character_in(s, campaign, BOB, new_character("Molly"))
        await set_active_in(s, GUILD, ALICE, harry.id, None)
        await set_active_in(s, GUILD, BOB, molly.id, None)
        return {"harry": harry.id, "molly": molly.id}


async def test_scene_row_roundtrip_with_big_ids_and_board_message(db: Database) -> None:
    people = await _people(db)
    service = SceneService(db)
    try:
        started = await service.start(
            GUILD,
            CHANNEL,
            actor_id=GM,
            title="Docks",
            aspects=["Fog"],
            zones=["Pier"],
            characters=["Harry", "Molly"],
            carried=1,
        )
        assert started.scene.gm_pool == 3
        await service.set_board_message(CHANNEL, 10**18 + 99)
        board = await service.board(CHANNEL)
        assert board is not None and board.message_id == 10**18 + 99 and board.active
        assert board.fate_points == {f"char:{people['harry']}": 3, f"char:{people['molly']}": 3}
        with pytest.raises(RuleError, match="already running"):
            await service.start(GUILD, CHANNEL, actor_id=GM)
        assert await service.board(OTHER) is None
    finally:
        service.close()


async def test_gm_pool_spend_carry_and_ledger(db: Database) -> None:
    await _people(db)
    service = SceneService(db)
    try:
        async with db.session() as s:
            campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
            alice = await insert_character_in(
                s, campaign, GM, make_npc(new_character("Alice"), NpcKind.MAJOR)
            )
            assert await carry_gm_points_in(s, campaign.id, 2, alice.id) == 2
        await service.start(GUILD, CHANNEL, actor_id=GM, characters=["Harry", "Alice"])
        async with db.session() as s:
            row = await s.get(SceneRow, CHANNEL)
            assert row is not None and scene_of(row).gm_pool == 3  # 1 PC + 2 Alice carried
            for left in (2, 1, 0):
                assert (
                    await spend_gm_point_in(s, campaign, CHANNEL, reason="invoke", actor_id=GM)
                    == left
                )
            with pytest.raises(RuleError, match="GM pool is empty"):
                await spend_gm_point_in(s, campaign, CHANNEL, reason="invoke", actor_id=GM)
        economy = EconomyService(db)
        page = await economy.log(GUILD, CHANNEL, character="GM")
        assert [line.delta for line in page.lines] == [-1, -1, -1, 3]
        undone, inverse = await economy.undo(GUILD, CHANNEL, actor_id=GM)
        assert undone.delta == -1 and inverse.delta == 1 and inverse.balance_after == 1
    finally:
        service.close()


async def test_stale_scene_save_is_refused(db: Database) -> None:
    await _people(db)
    service = SceneService(db)
    try:
        await service.start(GUILD, CHANNEL, actor_id=GM, aspects=["Fog"])
        from bot.services.scene_state import save_scene_in

        async with db.session() as s:
            old = await s.get(SceneRow, CHANNEL)
            assert old is not None
            stale = SceneRow(**old.model_dump())
        await service.add_aspect(GUILD, CHANNEL, text="Smoke")
        with pytest.raises(StaleError):
            async with db.session() as s:
                await save_scene_in(s, stale, scene_of(stale))
        board = await service.board(CHANNEL)
        assert board is not None and [a.text for a in board.scene.aspects] == ["Fog", "Smoke"]
    finally:
        service.close()


async def test_board_listeners_fire_only_after_commit(db: Database) -> None:
    people = await _people(db)
    service = SceneService(db)
    seen: list[int] = []
    board_listeners.append(seen.append)
    try:
        await service.start(GUILD, CHANNEL, actor_id=GM, characters=["Harry"])
        assert seen.count(CHANNEL) >= 1
        seen.clear()
        with pytest.raises(RuntimeError):
            async with db.session() as s:
                record = await get_character_in(s, people["harry"])
                await move_fate_points_in(
                    s, record, 1, reason="gm_edit", actor_id=GM, channel_id=CHANNEL
                )
                raise RuntimeError("rolled back")
        assert seen == []
        async with db.session() as s:
            record = await get_character_in(s, people["harry"])
            await move_fate_points_in(
                s, record, 1, reason="gm_edit", actor_id=GM, channel_id=CHANNEL
            )
        assert seen == [CHANNEL]  # any fate point movement in the channel refreshes its board
    finally:
        board_listeners.remove(seen.append)
        service.close()


async def test_advantage_outcomes_on_new_and_existing_aspects(db: Database) -> None:
    from bot.fate.rolls import ScaleLevel, ScaleMode
    from bot.services.roll_base import RollRequest
    from bot.services.rolls import RollService

    people = await _people(db)
    service = SceneService(db)
    rolls = RollService(db, rng=Dice(1))
    where: dict[str, Any] = {"guild_id": GUILD, "channel_id": CHANNEL}

    async def advantage(user: int, aspect: str, difficulty: str, **more: Any) -> Any:
        made = await rolls.start(
            RollRequest(
                **where,
                user_id=user,
                user_name="x",
                skill="Notice",
                difficulty=difficulty,
                advantage_aspect=aspect,
                **more,
            )
        )
        return made.view

    try:
        await service.start(GUILD, CHANNEL, actor_id=GM, aspects=["Fog"], characters=["Harry"])
        harry = f"char:{people['harry']}"
        # Notice is Mediocre (+0) on a blank sheet: +4 on the dice against Average is style
        style = await advantage(ALICE, "Fog", "1")
        assert style.roll.advantage is not None and style.roll.advantage.key is not None
        done = await rolls.resolve_advantage(style.id, user_id=ALICE, is_gm=False)
        assert done.view.closed and "gains 2 free invoke" in done.note
        with pytest.raises(RuleError, match="already resolved"):
            await rolls.resolve_advantage(style.id, user_id=ALICE, is_gm=False)
        rolls.rng = Dice(-1)
        failed = await advantage(ALICE, "Fog", "0")
        with pytest.raises(RuleError, match="Only a failed roll on a new aspect"):
            await rolls.resolve_advantage(failed.id, user_id=ALICE, is_gm=False, enemy_on_fail=True)
        await rolls.resolve_advantage(failed.id, user_id=ALICE, is_gm=False)
        # scale: one level up, extra free invokes on a success
        rolls.rng = Dice(0)
        scaled = await advantage(ALICE, "Hidden Door", "-1")
        scaled = (
            await rolls.scale(
                scaled.id,
                version=scaled.version,
                is_gm=True,
                roller_level=ScaleLevel.SUPERNATURAL,
                opposition_level=ScaleLevel.MUNDANE,
                mode=ScaleMode.EXTRA_FREE_INVOKES,
            )
        ).view
        scaled_done = await rolls.resolve_advantage(scaled.id, user_id=GM, is_gm=True)
        assert "Scale added 1" in scaled_done.note
        async with db.session() as s:
            campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
            found = {
                a.name: a
                for a in await aspects_in_play_in(s, campaign, CHANNEL, include_hidden=True)
            }
        assert found["Fog"].free_invokes == {harry: 2, "gm": 1}
        assert found["Hidden Door"].free_invokes == {harry: 2}
        with pytest.raises(RuleError, match="no skill called"):
            await rolls.start(
                RollRequest(
                    **where, user_id=ALICE, user_name="x", skill="Cooking", advantage_aspect="x"
                )
            )
        with pytest.raises(RuleError, match="needs a character"):
            await rolls.start(
                RollRequest(
                    **where, user_id=GM, user_name="x", skill="Notice", advantage_aspect="x"
                )
            )
    finally:
        service.close()


async def test_concurrent_compel_answers_apply_once(db: Database) -> None:
    people = await _people(db)
    scenes = SceneService(db)
    compels = CompelService(db)
    try:
        await scenes.start(GUILD, CHANNEL, actor_id=GM, aspects=["Fog"], characters=["Harry"])
        offer = await compels.offer(
            GUILD,
            CHANNEL,
            user_id=GM,
            is_gm=True,
            target="Harry",
            aspect="Fog",
            complication="You get lost.",
        )
        results = await asyncio.gather(
            *(compels.answer(offer.id, user_id=ALICE, is_gm=False, accept=True) for _ in range(3)),
            return_exceptions=True,
        )
        assert sum(1 for r in results if not isinstance(r, BaseException)) == 1
        assert all(isinstance(r, RuleError) for r in results if isinstance(r, BaseException))
        async with db.session() as s:
            assert (await get_character_in(s, people["harry"])).sheet.fate_points == 4
            row = await s.get(CompelOfferRow, offer.id)
            assert row is not None and row.state == "accepted" and row.version == 2
        with pytest.raises(RuleError, match="not an aspect"):
            await compels.offer(
                GUILD,
                CHANNEL,
                user_id=GM,
                is_gm=True,
                target="Harry",
                aspect="Sunshine",
                complication="x",
            )
    finally:
        scenes.close()


async def test_ledger_pages_and_undo_skips_nothing_it_can_reverse(db: Database) -> None:
    people = await _people(db)
    economy = EconomyService(db)
    for _ in range(LOG_PAGE_SIZE + 2):
        await economy.edit(GUILD, CHANNEL, actor_id=GM, target="Molly", delta=1, note="")
    first = await economy.log(GUILD, CHANNEL)
    assert first.older and len(first.lines) == LOG_PAGE_SIZE
    second = await economy.log_page(GUILD, CHANNEL, first.campaign_id, 1, None)
    assert second.page == 1 and len(second.lines) == 2 and not second.older
    assert {x.id for x in first.lines}.isdisjoint(x.id for x in second.lines)
    last = await economy.log_page(
        GUILD, CHANNEL, first.campaign_id, 5, None
    )  # past the end: the last page
    assert last.page == 1 and last.lines == second.lines and not last.older
    await economy.edit(GUILD, CHANNEL, actor_id=GM, target="Harry", delta=-3, note="spent")
    undone, _ = await economy.undo(GUILD, CHANNEL, actor_id=GM)
    assert undone.who == "Harry" and undone.delta == -3
    async with db.session() as s:
        assert (await get_character_in(s, people["harry"])).sheet.fate_points == 3
    with pytest.raises(RuleError, match="1 to 10"):
        await economy.edit(GUILD, CHANNEL, actor_id=GM, target="Harry", delta=11, note="")


async def test_two_simultaneous_starts_make_one_scene(db: Database) -> None:
    await _people(db)
    service = SceneService(db)
    try:
        results = await asyncio.gather(
            *(service.start(GUILD, CHANNEL, actor_id=GM, aspects=[f"Fog {n}"]) for n in range(3)),
            return_exceptions=True,
        )
        assert sum(1 for r in results if not isinstance(r, BaseException)) == 1
        errors = [r for r in results if isinstance(r, BaseException)]
        assert all(isinstance(e, RuleError) and "already running" in str(e) for e in errors)
    finally:
        service.close()


async def test_a_move_reads_the_scene_with_its_campaign_and_the_board_follows(db: Database) -> None:
    """The move's one-statement read of the scene and campaign, and the board's of the scene
    and play state, on each database; no scene here is the usual sentence."""
    await _people(db)
    service = SceneService(db)
    try:
        await service.start(GUILD, CHANNEL, actor_id=GM, zones=["Pier", "Roof"])
        await service.join(GUILD, CHANNEL, user_id=ALICE, is_gm=False, zone="Pier")
        name, zone = await service.move(GUILD, CHANNEL, user_id=ALICE, is_gm=False, zone="Roof")
        assert (name, zone) == ("Harry", "Roof")
        board = await service.board(CHANNEL)
        assert board is not None
        assert [
            (p.name, board.scene.zone(p.zone).name if p.zone else None)
            for p in board.scene.participants
        ] == [("Harry", "Roof")]
        with pytest.raises(RuleError, match="No scene is running"):
            await service.move(GUILD, OTHER, user_id=ALICE, is_gm=False, zone="Roof")
    finally:
        service.close()
