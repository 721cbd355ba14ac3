"""The scope check of a click (ScopeService): refusals always read; a found row of a kind that is
never deleted is remembered per server and channel; deletable kinds are read every time."""

from __future__ import annotations

import pytest
from sqlalchemy import event
from sqlmodel import col, delete

from bot.db.engine import Database
from bot.db.models.campaigns import Campaign, CharacterRow
from bot.services.games import GameService
from bot.services.scope import KEPT_KINDS, NotHere, ScopeService, Where

GUILD = 7_001
OTHER_GUILD = 7_002
CHANNEL = 7_101
OTHER_CHANNEL = 7_102
HOST = 7_201


def _count_selects(db: Database) -> list[str]:
    seen: list[str] = []

    def note(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    for engine in {db.engine, db._read_engine}:  # reads may have an engine of their own
        event.listen(engine.sync_engine, "before_cursor_execute", note)
    db.raw_trace = lambda statement: note(None, None, statement)  # and raw units (the check's)
    return seen


async def test_a_game_found_here_is_remembered_and_elsewhere_still_refused(db: Database) -> None:
    info = await GameService(db).create_lobby(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=HOST,
        host_name="host",
        engine_key="dfccg",
        options={},
    )
    scope = ScopeService(db)
    selects = _count_selects(db)
    here = Where(GUILD, CHANNEL)
    await scope.require("game", info.id, here)
    await scope.require("game", info.id, here)
    assert len(selects) == 1  # the second click on the same board needs no read
    for where in (Where(OTHER_GUILD, CHANNEL), Where(GUILD, OTHER_CHANNEL), Where(None, CHANNEL)):
        for _ in range(2):  # a refusal is never remembered: it is read (and refused) again
            with pytest.raises(NotHere):
                await scope.require("game", info.id, where)
    with pytest.raises(NotHere):
        await scope.require("game", info.id + 1, here)


async def test_a_deleted_character_is_refused_after_it_was_found(db: Database) -> None:
    assert "character" not in KEPT_KINDS and "game" in KEPT_KINDS
    async with db.session() as session:
        campaign = Campaign(guild_id=GUILD, name="Chicago", is_default=True)
        session.add(campaign)
        await session.flush()
        assert campaign.id is not None
        character = CharacterRow(
            campaign_id=campaign.id, guild_id=GUILD, owner_id=HOST, name="Harry", sheet_json="{}"
        )
        session.add(character)
        await session.flush()
        key = character.id
    assert key is not None
    scope = ScopeService(db)
    await scope.require("character", key, Where(GUILD, CHANNEL))
    async with db.session() as session:
        await session.exec(delete(CharacterRow).where(col(CharacterRow.id) == key))
    with pytest.raises(NotHere):
        await scope.require("character", key, Where(GUILD, CHANNEL))
