"""Campaign resolution, active characters, optimistic saves and the fate point ledger."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.errors import RuleError
from bot.fate.sheet import new_character
from bot.services.campaigns import (
    CampaignService,
    CampaignSettings,
    StaleError,
    active_character_in,
    find_character_in,
    insert_character_in,
    move_fate_points_in,
    resolve_campaign_in,
    save_character_in,
    set_active_in,
)

GUILD, CHANNEL, OTHER, USER = 10**18 + 1, 10**18 + 2, 10**18 + 3, 10**18 + 4


async def test_default_campaign_and_binding(db: Database) -> None:
    service = CampaignService(db)
    default = await service.current(GUILD, CHANNEL)
    assert default.is_default and (await service.current(GUILD, OTHER)).id == default.id
    noir = await service.create(GUILD, "Noir", CampaignSettings())
    await service.bind(GUILD, CHANNEL, "noir")
    assert (await service.current(GUILD, CHANNEL)).id == noir.id
    assert (await service.current(GUILD, OTHER)).id == default.id
    with pytest.raises(RuleError, match="already"):
        await service.create(GUILD, "NOIR", CampaignSettings())
    campaigns, channels = await service.overview(GUILD)
    assert [c.name for c in campaigns] == ["Main campaign", "Noir"]
    assert channels[noir.id] == [CHANNEL]


async def test_active_character_channel_before_server(db: Database) -> None:
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        harry = await insert_character_in(s, campaign, USER, new_character("Harry"))
        molly = await insert_character_in(s, campaign, USER, new_character("Molly"))
        with pytest.raises(RuleError, match="already"):
            await insert_character_in(s, campaign, USER, new_character("harry"))
        await set_active_in(s, GUILD, USER, harry.id, None)
        await set_active_in(s, GUILD, USER, molly.id, CHANNEL)
    async with db.session() as s:
        here = await active_character_in(s, campaign, CHANNEL, USER)
        there = await active_character_in(s, campaign, OTHER, USER)
        assert here is not None and here.name == "Molly"
        assert there is not None and there.name == "Harry"
        assert (await find_character_in(s, campaign.id, "HARRY")).id == harry.id


async def test_stale_save_is_refused_and_ledger_written(db: Database) -> None:
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        record = await insert_character_in(s, campaign, USER, new_character("Harry"))
    async with db.session() as s:
        updated, entry = await move_fate_points_in(
            s, record, -1, reason="invoke", actor_id=USER, note="Wizard for hire"
        )
        assert updated.sheet.fate_points == record.sheet.fate_points - 1
        assert entry.balance_after == updated.sheet.fate_points
    with pytest.raises(StaleError):
        async with db.session() as s:
            await save_character_in(s, record, record.sheet.rename("Harold"))
    async with db.session() as s:
        spent = await find_character_in(s, campaign.id, "Harry")
        with pytest.raises(RuleError, match="no fate point"):
            await move_fate_points_in(
                s, spent, -spent.sheet.fate_points - 1, reason="invoke", actor_id=USER
            )
