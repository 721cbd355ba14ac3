"""Web links against the database: the stored secret, scoping to one server and one campaign,
expiry, revocation; and the change hub that wakes open pages after a commit."""

from __future__ import annotations

import asyncio

import pytest

from bot.db.engine import Database
from bot.db.models.campaigns import Campaign, ChannelCampaign, CharacterRow
from bot.fate.sheet import new_character
from bot.services.campaigns import (
    CampaignService,
    CampaignSettings,
    insert_character_in,
    resolve_campaign_in,
)
from bot.services.web import DAY, LinkRefused, WebService
from bot.services.web_tokens import LinkClaims, LinkKind, sign

GUILD, OTHER_GUILD = 1_000_000_000_000_000_001, 1_000_000_000_000_000_002
CHANNEL, OTHER_CHANNEL = 10, 20
GM_ID, PLAYER_ID = 100, 200


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def _character(db: Database, guild: int, channel: int, owner: int, name: str) -> int:
    async with db.session() as session:
        campaign = await resolve_campaign_in(session, guild, channel)
        record = await insert_character_in(session, campaign, owner, new_character(name))
        return record.id


async def test_the_secret_is_made_once_and_shared_by_every_process(db: Database) -> None:
    first, second = WebService(db), WebService(db)
    assert await first.secret() == await second.secret()
    assert len(await first.secret()) == 64
    assert await WebService(db, secret="set by hand").secret() == b"set by hand"


async def test_a_gm_link_opens_its_campaign_and_nothing_of_another_server(db: Database) -> None:
    web = WebService(db)
    link = await web.campaign_link(GUILD, CHANNEL, revoke=False)
    scope = await web.open(link.token)
    assert (scope.kind, scope.guild_id) == (LinkKind.GM, GUILD)
    other = await web.campaign_link(OTHER_GUILD, OTHER_CHANNEL, revoke=False)
    other_scope = await web.open(other.token)
    assert other_scope.target_id != scope.target_id
    # Even a correctly signed link is refused when its campaign is not on the server it names.
    secret = await web.secret()
    forged = sign(secret, LinkClaims(LinkKind.GM, OTHER_GUILD, scope.target_id, (0,), 2**40))
    with pytest.raises(LinkRefused, match="no such campaign"):
        await web.open(forged)
    missing = sign(secret, LinkClaims(LinkKind.GM, GUILD, 999_999, (0,), 2**40))
    with pytest.raises(LinkRefused):
        await web.open(missing)


async def test_a_second_campaign_on_the_same_server_is_out_of_reach(db: Database) -> None:
    web = WebService(db)
    info = await CampaignService(db).create(GUILD, "Side Story", CampaignSettings())
    async with db.session() as session:
        session.add(ChannelCampaign(channel_id=OTHER_CHANNEL, guild_id=GUILD, campaign_id=info.id))
    main_link = await web.campaign_link(GUILD, CHANNEL, revoke=False)
    side_link = await web.campaign_link(GUILD, OTHER_CHANNEL, revoke=False)
    main, side = await web.open(main_link.token), await web.open(side_link.token)
    assert main.campaign_id != side.campaign_id == info.id
    await _character(db, GUILD, OTHER_CHANNEL, PLAYER_ID, "Side Hero")
    await _character(db, GUILD, CHANNEL, PLAYER_ID, "Main Hero")
    main_view = await web.table_view(main)
    assert [c.name for c in main_view.characters] == ["Main Hero"]
    # Revoking the side campaign leaves the main campaign's links alone.
    await web.campaign_link(GUILD, OTHER_CHANNEL, revoke=True)
    with pytest.raises(LinkRefused, match="revoked"):
        await web.open(side_link.token)
    assert await web.open(main_link.token) == main


async def test_links_expire(db: Database) -> None:
    clock = Clock()
    web = WebService(db, link_days=2, clock=clock)
    link = await web.campaign_link(GUILD, CHANNEL, revoke=False)
    clock.now += 2 * DAY - 1
    await web.open(link.token)
    clock.now += 1
    with pytest.raises(LinkRefused, match="expired"):
        await web.open(link.token)


async def test_revoking_a_campaign_ends_its_gm_and_player_links(db: Database) -> None:
    web = WebService(db)
    character = await _character(db, GUILD, CHANNEL, PLAYER_ID, "Molly")
    gm = await web.campaign_link(GUILD, CHANNEL, revoke=False)
    player = await web.character_link(GUILD, CHANNEL, PLAYER_ID, "Molly", revoke=False)
    assert (await web.open(player.token)).target_id == character
    renewed = await web.campaign_link(GUILD, CHANNEL, revoke=True)
    for old in (gm, player):
        with pytest.raises(LinkRefused, match="revoked"):
            await web.open(old.token)
    await web.open(renewed.token)
    # A character's own revoke ends only that character's links.
    mine = await web.character_link(GUILD, CHANNEL, PLAYER_ID, "Molly", revoke=False)
    await web.character_link(GUILD, CHANNEL, PLAYER_ID, "Molly", revoke=True)
    with pytest.raises(LinkRefused, match="revoked"):
        await web.open(mine.token)
    await web.open(renewed.token)


async def test_a_player_link_is_refused_once_its_character_is_gone(db: Database) -> None:
    web = WebService(db)
    character = await _character(db, GUILD, CHANNEL, PLAYER_ID, "Molly")
    link = await web.character_link(GUILD, CHANNEL, PLAYER_ID, "Molly", revoke=False)
    async with db.session() as session:
        row = await session.get(CharacterRow, character)
        await session.delete(row)
    with pytest.raises(LinkRefused):
        await web.open(link.token)


async def test_the_hub_hears_committed_writes_of_a_server_only(db: Database) -> None:
    hub = db.changes
    await _character(db, GUILD, CHANNEL, PLAYER_ID, "Molly")  # the hub learns the campaign
    with hub.subscribe(GUILD) as mine, hub.subscribe(OTHER_GUILD) as theirs:
        async with db.session() as session:  # reading in a writing unit publishes nothing
            await session.get(Campaign, 1)
        assert not await mine.wait(0.01)
        await _character(db, GUILD, CHANNEL, PLAYER_ID, "Dana")
        assert await mine.wait(0.5)
        assert not await theirs.wait(0.01)
        with pytest.raises(RuntimeError):
            async with db.session() as session:
                campaign = await resolve_campaign_in(session, GUILD, CHANNEL)
                await insert_character_in(session, campaign, PLAYER_ID, new_character("Lost"))
                raise RuntimeError("rolled back")
        assert not await mine.wait(0.01)  # a rollback tells nobody
    assert hub.listeners == 0


async def test_other_processes_hear_of_a_commit_on_postgresql(db: Database) -> None:
    if db.kind != "postgresql":
        pytest.skip("LISTEN/NOTIFY is PostgreSQL's; SQLite runs one process")
    await _character(db, GUILD, CHANNEL, PLAYER_ID, "Molly")
    other = Database(db.url, unit_timeout=db.unit_timeout)  # another process's database object
    try:
        listener = await other.listen_for_changes()
        assert listener is not None
        await asyncio.wait_for(listener.connected.wait(), 10)
        with other.changes.subscribe(GUILD) as heard, db.changes.subscribe(GUILD) as mine:
            await heard.wait(0.2)  # the catch-up notice sent on connecting
            await _character(db, GUILD, CHANNEL, PLAYER_ID, "Dana")
            assert await heard.wait(2.0)
            assert await mine.wait(0.5)
            assert listener.heard >= 1
            heard_before = listener.heard
            async with db.session() as session:  # a read in a writing unit: no notice
                await session.get(Campaign, 1)
            await asyncio.sleep(0.2)
            assert listener.heard == heard_before
    finally:
        await other.dispose()
