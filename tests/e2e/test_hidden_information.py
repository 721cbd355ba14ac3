"""What only the GM may know stays the GM's: the GM's NPCs (their names, hidden aspects and
wounds) outside the scenes they are in, hidden scene and game aspects, the results of hidden
rolls, another campaign's ledger. Each case is a way a player could learn one of them through
the fake Discord (found by an audit), and each asserts the player now hears what a thing that
does not exist gets."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.fate.sheet import AspectKind, NpcKind, make_npc, new_character
from bot.games.base import get_engine
from bot.services.campaigns import CampaignService, insert_character_in, resolve_campaign_in
from bot.testing.harness import Table, message_text
from tests.e2e.test_game_table import _game_id, _row
from tests.e2e.test_hot_path_statements import counted
from tests.e2e.test_rolls import FixedDice, harry, invoke
from tests.e2e.test_vampire_empire import _open, _state
from tests.e2e.test_web import web_table  # noqa: F401 - the fixture


async def ghoul(table: Table, consequence: str | None = None) -> int:
    """The GM's major NPC "Ghoul", high concept Hungry For Flesh (hidden from players)."""
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        sheet = new_character("Ghoul", skills={"Fight": 2})
        sheet = make_npc(
            sheet.set_aspect(AspectKind.HIGH_CONCEPT, "Hungry For Flesh"), NpcKind.MAJOR
        )
        if consequence:
            sheet = sheet.take_consequence("mild", consequence)
        record = await insert_character_in(s, campaign, table.gm, sheet)
        assert record.id is not None
        return record.id


async def gm_channel_is_the_other_channel(table: Table) -> None:
    assert table.bot is not None
    service: CampaignService = table.bot.campaigns  # type: ignore[attr-defined]
    campaign = await service.current(table.guild_id, table.channel)
    settings = campaign.settings.model_copy(update={"gm_channel_id": table.other_channel})
    await service.update_settings(campaign.id, settings)


async def test_a_hostile_invoke_on_a_players_hidden_roll_does_not_name_the_npcs_aspect(
    table: Table,
) -> None:
    """A player's hidden roll is seen by its roller too: the GM's hostile invoke of an NPC's
    hidden aspect on it stays "a hidden aspect" on the player's copy, and is named on the GM
    channel's copy (and in the GM's own answer)."""
    await gm_channel_is_the_other_channel(table)
    await harry(table)
    await ghoul(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    mine = await table.slash(
        "roll", user=table.player, skill="Lore", hidden=True, difficulty="Fair"
    )
    copy = next(
        m for m in table.channel_messages(table.other_channel) if "Harry rolls" in message_text(m)
    )
    hostile = await invoke(table, copy, "Hungry", "GM pool", user=table.gm, button="Hostile invoke")
    assert "Invoked *Hungry For Flesh*" in hostile.text, hostile.text
    done = await invoke(table, mine, "Wizard Private Eye", "fate point", user=table.player)
    assert "hostile +2" in done.text and "a hidden aspect" in done.text, done.text
    assert "Hungry" not in done.text
    gm_copy = message_text(table.fake.messages[int(copy["id"])])
    assert "hostile +2 to the opposition with *Hungry For Flesh*" in gm_copy, gm_copy
    assert "Wizard Private Eye" in gm_copy  # redrawn after the player's invoke, still named


async def test_passing_an_invoke_never_names_a_hidden_aspect(table: Table) -> None:
    """Scene and game aspect keys are numbered: a player trying them with `/aspect pass`
    hears that there is no such aspect, never its text."""
    await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    await table.slash("aspect add", user=table.gm, text="Trap Door", hidden=True)
    await table.slash(
        "aspect add", user=table.gm, text="Cult Owns The Mayor", kind="game", hidden=True
    )
    for key in (f"scene:{table.channel}:s1", "scene:game:g1", "trap door"):
        tried = await table.slash("aspect pass", user=table.player, aspect=key, to="GM")
        assert tried.ephemeral and "There is no aspect" in tried.text, tried.text
        assert "Trap Door" not in tried.text and "Cult Owns" not in tried.text


async def test_the_compel_list_leaves_out_the_gms_npc_compels_made_elsewhere(
    table: Table,
) -> None:
    await gm_channel_is_the_other_channel(table)
    await harry(table)
    await ghoul(table)
    offered = await table.slash(
        "compel offer",
        user=table.gm,
        channel=table.other_channel,
        target="Ghoul",
        aspect="Hungry For Flesh",
        complication="turns on them",
    )
    assert "Compel #1" in offered.text, offered.text
    listed = await table.slash("compel list", user=table.player)
    assert "Ghoul" not in listed.text and "Hungry" not in listed.text, listed.text
    assert "Ghoul" in (await table.slash("compel list", user=table.gm)).text


async def test_a_player_cannot_oppose_the_gms_hidden_roll(table: Table) -> None:
    """Opposing a roll shows its effort: a hidden roll of someone else's is, for a player, a
    roll that is not there."""
    await harry(table)
    secret = await table.slash(
        "roll", user=table.gm, modifier=5, hidden=True, description="Ghoul ambush"
    )
    found = re.search(r"Roll #(\d+)", secret.text)
    assert found, secret.text
    for hidden in (True, False):
        mine = await table.slash(
            "roll", user=table.player, skill="Will", hidden=hidden, against=int(found[1])
        )
        assert mine.ephemeral and f"There is no roll #{found[1]}" in mine.text, mine.text
    voided = await table.slash("roll-void", user=table.player, roll=int(found[1]))
    assert voided.ephemeral and f"There is no roll #{found[1]}" in voided.text, voided.text


async def test_naming_the_gms_npc_by_id_gets_the_unknown_name_answer(table: Table) -> None:
    """Character ids run in order: `#2` must not tell a player that the GM has a Ghoul, nor
    let them compel it, pass it an invoke or treat its wounds in public."""
    await harry(table)
    gid = await ghoul(table, consequence="Torn Ear")
    await table.slash("scene start", user=table.gm, characters="Harry")
    await table.slash(
        "aspect add", user=table.gm, text="Lucky Break", kind="boost", boost_for="Harry"
    )
    for name in (f"#{gid}", "ghoul"):
        tries = [
            await table.slash(
                "compel offer", user=table.player, target=name, aspect="x", complication="y"
            ),
            await table.slash("aspect pass", user=table.player, aspect="Lucky Break", to=name),
            await table.slash(
                "recovery treat",
                user=table.player,
                consequence="mild",
                skill="Lore",
                healing_name="Bandaged",
                patient=name,
            ),
        ]
        for tried in tries:
            assert tried.ephemeral and "No character called" in tried.text, tried.text
            assert "Ghoul" not in tried.text


async def test_an_npc_taking_part_here_can_be_named_by_the_players(table: Table) -> None:
    """Where the Ghoul takes part, a player may pass it an invoke, treat its wound and see a
    compel on it made here; from the GM channel, such a compel stays the GM's."""
    await harry(table)
    await ghoul(table, consequence="Torn Ear")
    await table.slash("scene start", user=table.gm, characters="Harry, Ghoul")
    await table.slash(
        "aspect add", user=table.gm, text="Lucky Break", kind="boost", boost_for="Harry"
    )
    passed = await table.slash("aspect pass", user=table.player, aspect="Lucky Break", to="Ghoul")
    assert "passes to Ghoul" in passed.text, passed.text
    assert table.bot is not None
    economy: Any = table.bot.get_cog("Economy")  # type: ignore[attr-defined]
    economy.economy.rng = FixedDice([1, 1, 0, 0])  # Lore +4, +2 against Fair: treated
    treated = await table.slash(
        "recovery treat",
        user=table.player,
        consequence="mild",
        skill="Lore",
        healing_name="Bandaged",
        patient="Ghoul",
    )
    assert "Ghoul" in treated.text and "No character" not in treated.text, treated.text
    offered = await table.slash(
        "compel offer", user=table.gm, target="Ghoul", aspect="Bandaged", complication="y"
    )
    assert "Compel #1" in offered.text, offered.text
    assert "Ghoul" in (await table.slash("compel list", user=table.player)).text


async def test_target_autocomplete_offers_an_npc_only_where_it_takes_part(table: Table) -> None:
    """A player's target autocomplete (compel, passing an invoke, treating a wound) offers
    the GM's NPC only in a channel where it takes part; the GM's always; GM is a receiver."""
    await harry(table)
    await ghoul(table)

    async def offered(command: str, focused: str, user: int) -> list[str]:
        choices = await table.autocomplete(command, focused, user=user, **{focused: ""})
        return [c["name"] for c in choices]

    targets = [("compel offer", "target"), ("aspect pass", "to"), ("recovery treat", "patient")]
    await table.slash("scene start", user=table.gm, characters="Harry")
    for command, focused in targets:
        assert "Ghoul" not in await offered(command, focused, table.player), command
        assert "Ghoul" in await offered(command, focused, table.gm), command
        assert "Harry" in await offered(command, focused, table.player), command
    assert "GM" in await offered("aspect pass", "to", table.player)
    await table.slash("scene join", user=table.gm, character="Ghoul")
    for command, focused in targets:
        assert "Ghoul" in await offered(command, focused, table.player), command
    elsewhere = await table.autocomplete(
        "compel offer", "target", user=table.player, channel=table.other_channel, target=""
    )
    assert "Ghoul" not in [c["name"] for c in elsewhere]


async def test_target_autocomplete_reads_who_is_here_only_after_a_change(table: Table) -> None:
    """Autocomplete asks at every keystroke: who takes part here is read once, and again only
    once the server's rows changed (found by a review: one read per keystroke)."""
    await harry(table)
    await ghoul(table)
    await table.slash("scene start", user=table.gm, characters="Harry")

    async def typed(text: str) -> list[str]:
        choices = await table.autocomplete("compel offer", "target", user=table.player, target=text)
        return [c["name"] for c in choices]

    assert await typed("") == ["Harry"]
    with counted(table) as (statements, _commits):
        assert await typed("H") == ["Harry"]
        assert await typed("Ha") == ["Harry"]
    assert statements == [], statements
    await table.slash("scene join", user=table.gm, character="Ghoul")
    assert "Ghoul" in await typed("")


async def test_an_npc_in_the_scene_can_be_named_but_not_its_hidden_aspects(
    table: Table,
) -> None:
    """Where the Ghoul takes part, the players know it: they may compel what is public of it
    (its wound), not the hidden aspect of its sheet."""
    await harry(table)
    await ghoul(table, consequence="Torn Ear")
    await table.slash("scene start", user=table.gm, characters="Harry, Ghoul")
    guessed = await table.slash(
        "compel offer",
        user=table.player,
        target="Ghoul",
        aspect="Hungry For Flesh",
        complication="eats",
    )
    nonsense = await table.slash(
        "compel offer",
        user=table.player,
        target="Ghoul",
        aspect="Purple Teapot",
        complication="eats",
    )
    # a right guess gets the answer a wrong one gets
    assert guessed.ephemeral and nonsense.ephemeral
    assert guessed.text == nonsense.text.replace("Purple Teapot", "Hungry For Flesh")
    wound = await table.slash(
        "compel offer", user=table.player, target="Ghoul", aspect="Torn Ear", complication="y"
    )
    assert not wound.ephemeral and "Torn Ear" in wound.text, wound.text


async def test_a_players_web_link_never_names_the_gms_npc(web_table: Table) -> None:  # noqa: F811
    await harry(web_table)
    gid = await ghoul(web_table)
    tried = await web_table.slash("character web", user=web_table.player, character=f"#{gid}")
    assert tried.ephemeral and "Ghoul" not in tried.text, tried.text


async def test_a_forged_ledger_page_reads_only_the_channels_own_campaign(table: Table) -> None:
    await harry(table)
    await table.slash("fp give", user=table.gm, character="Harry", amount=2, note="the secret deal")
    await table.slash("campaign create", user=table.gm, name="Second Table", bind=False)
    await table.slash(
        "campaign bind", user=table.gm, channel=table.other_channel, name="Second Table"
    )
    forged = await table.forge("fplog:1:0:a:n", user=table.player2, channel=table.other_channel)
    assert "secret deal" not in forged.text and "Harry" not in forged.text, forged.text
    assert "another campaign" in forged.text
    own = await table.forge("fplog:1:0:a:n", user=table.player2, channel=table.channel)
    assert "secret deal" in str(own.message), own.text


# ------------------------------------------------------------------ the game table's secrets
@pytest.mark.usefixtures("fast_board")
async def test_a_variant_start_never_tells_the_table_what_a_hand_lacks(table: Table) -> None:
    """The Dresden card game's variant start: a seat names a card type, draws, and is asked
    privately whether to draw again when the hand has none. The board says only that the
    seat is choosing its starting hand, for both questions alike."""
    assert table.bot is not None
    engine = get_engine("dfccg")
    table.bot.get_cog("GameTable").games.new_seed = lambda: 1  # type: ignore[attr-defined]
    lobby = await table.slash(
        "game new", user=table.player, game="dfccg", options="start=random-variant"
    )
    game_id = _game_id(lobby)
    await table.click(lobby, "Join", user=table.player2)
    await table.click(lobby, "Start", user=table.player)
    assert lobby.message is not None
    board_id = int(lobby.message["id"])
    row = await _row(table, game_id)
    state = engine.load_state(row.state or "")
    assert state.decision is not None and state.decision.kind == "named_type"
    assert "choosing a starting hand" in message_text(table.message(board_id))
    seat = engine.current_seats(state)[0]
    attack = next(a for a in engine.legal_actions(state, seat) if a.id == "attack")
    await table.slash("game move", user=int(seat), action=f"{row.version}:{attack.id}")
    await table.settle()
    state = engine.load_state((await _row(table, game_id)).state or "")
    assert state.decision is not None and state.decision.kind == "redraw"  # no Attack drawn
    board = message_text(table.message(board_id))
    assert "choosing a starting hand" in board and "holds no" not in board, board
    hand = await table.click(table.message(board_id), "My hand", user=int(seat))
    assert hand.ephemeral and "the hand holds no Attack card" in hand.text, hand.text


@pytest.mark.usefixtures("fast_board")
async def test_choosing_how_to_pay_is_not_shown_to_the_other_side(table: Table) -> None:
    """Vampire Empire: a hide or a holy water the hand can pay for in several ways asks the
    player how; the board still says the player is acting, or the other side would learn
    what the player began and that the hand holds the cards for it."""
    engine = get_engine("vampire-empire")
    users = {str(table.player): table.player, str(table.player2): table.player2}
    game_id, board_id = await _open(table, 6, "vampires", ai=False)
    rng = random.Random(11)
    for _step in range(100):
        row, state = await _state(table, game_id)
        seat = engine.current_seats(state)[0]
        several = [
            a
            for a in engine.legal_actions(state, seat)
            if a.kind in ("holy_water", "hide")
            and engine.apply(state, seat, a, random.Random(0))[0].phase == "pay"
        ]
        if several:
            break
        action = engine.choose_action(state, seat, rng)
        await table.slash("game move", user=users[seat], action=f"{row.version}:{action.id}")
    else:
        raise AssertionError("no hide or holy water with several ways to pay came up")
    await table.slash("game move", user=users[seat], action=f"{row.version}:{several[0].id}")
    await table.settle()
    _row_now, paying = await _state(table, game_id)
    assert paying.phase == "pay"
    board = message_text(table.message(board_id))
    assert "(pay)" not in board and "(act)" in board, board.splitlines()[:3]
    assert engine.private_view(paying, seat)["phase"] == "pay"  # the payer's own view
    other = next(s for s in users if s != seat)
    assert "paying" not in engine.private_view(paying, other)
    assert engine.private_view(paying, other)["phase"] == "act"
