"""Every slash command with random and hostile option values, as a player and as the GM.

The command list is walked from what the bot synced (a new command is fuzzed without a change
here). Values stay inside what Discord itself enforces (choices, lengths, ranges, option
types): anything a real client can send. After each command: no incident id, every message
the bot sent or edited has mentions disabled, and no hidden fact of the table (a GM-only aspect,
a hidden roll's description) is in any public message.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.testing.fake_discord import EPHEMERAL
from bot.testing.harness import Table, message_text
from tests.e2e.test_conflicts import make_characters

JSON = dict[str, Any]
HIDDEN_FACTS = ("Secret Cult", "Sneak past the guards")
HOSTILE = [
    "@everyone",
    "@here",
    "<@&1>",
    "**bold** `code` ||spoiler||",
    "",
    " ",
    "\u202eevil",
    "💥" * 30,
    "0",
    "-1",
    "99999999999999999999",
    "9" * 100,
    "#1",
    "#99999999999999999999",
    "gm",
    "GM",
    "'; DROP TABLE character; --",
    "{}",
    "null",
    "2d6+1",
    "4dF",
    "1000d1000",
    "Wildfire",
    ",,,;;",
    "a=b c=d",
    "\n\n",
    "<script>alert(1)</script>",
    "%s%n{0}",
    "Charles",
    "Ghoul",
    "Athletics:99",
]
GROUPING = (1, 2)  # option types of a subcommand and a group


def leaf_commands(commands: list[JSON]) -> list[tuple[str, list[JSON]]]:
    """(path, options) of every slash command and subcommand the bot synced."""
    found: list[tuple[str, list[JSON]]] = []

    def walk(path: str, options: list[JSON]) -> None:
        subs = [o for o in options if o["type"] in GROUPING]
        if not subs:
            found.append((path, options))
        for sub in subs:
            walk(f"{path} {sub['name']}", sub.get("options") or [])

    for command in commands:
        if command.get("type", 1) == 1:
            walk(command["name"], command.get("options") or [])
    return sorted(found)


def value_strategy(table: Table, option: JSON) -> st.SearchStrategy[Any]:
    kind = option["type"]
    if option.get("choices"):
        return st.sampled_from([c["value"] for c in option["choices"]])
    if kind == 3:
        low, high = option.get("min_length", 0), option.get("max_length", 6000)
        text = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=min(high, 200)))
        return text.map(lambda t: (t * (1 + low))[:high] if len(t) < low else t[:high]).filter(
            lambda t: len(t) >= low
        )
    if kind == 4:
        return st.integers(option.get("min_value", -(2**53)), option.get("max_value", 2**53))
    if kind == 10:
        return st.floats(
            option.get("min_value", -1e9), option.get("max_value", 1e9), allow_nan=False
        )
    if kind == 5:
        return st.booleans()
    if kind == 6:
        return st.sampled_from([table.player, table.player2, table.gm])
    if kind == 7:
        return st.sampled_from([table.channel, table.other_channel])
    if kind == 8:
        return st.sampled_from([table.gm_role, table.admin_role])
    if kind == 11:
        blob = st.sampled_from([b"", b"{}", b"\xff\xfe", b"[" * 5000, b'{"version": 1}'])
        return blob.map(lambda data: table.fake.add_attachment("hostile.json", data))
    raise AssertionError(f"option type {kind} has no strategy")


@st.composite
def invocation(draw: st.DrawFn, table: Table, leaves: list[tuple[str, list[JSON]]]) -> Any:
    path, options = draw(st.sampled_from(leaves))
    values: JSON = {}
    for option in options:
        if option.get("required") or draw(st.booleans()):
            values[option["name"]] = draw(value_strategy(table, option))
    user = draw(st.sampled_from([table.player, table.gm]))
    return path, user, values


async def hidden_facts(table: Table) -> None:
    await make_characters(table)
    started = await table.slash("scene start", user=table.gm, aspects="Pouring Rain")
    assert not started.ephemeral, started.text
    await table.slash("aspect add", user=table.gm, text=HIDDEN_FACTS[0], hidden=True)
    secret = await table.slash(
        "roll", user=table.player, skill="Athletics", hidden=True, description=HIDDEN_FACTS[1]
    )
    assert secret.ephemeral


def problems_since(table: Table, mark: int, requests: int) -> list[str]:
    found: list[str] = []
    for message in table.fake.public_messages():
        text = message_text(message)
        found += [f"public message shows {fact!r}" for fact in HIDDEN_FACTS if fact in text]
    for request in table.fake.requests[requests:]:
        body = request.body.get("data", request.body) if isinstance(request.body, dict) else None
        if not isinstance(body, dict) or not body.get("content"):
            continue  # only content can ping (embeds never do)
        if "/callback" in request.path or "messages" in request.path or "webhooks" in request.path:
            if body.get("allowed_mentions") != {"parse": []}:
                found.append(f"mentions not disabled in {request.method} {request.path}")
    for message in table.fake.sent[mark:]:
        if "incident `" in message_text(message):
            ephemeral = bool((message.get("flags") or 0) & EPHEMERAL)
            found.append(f"incident ({'ephemeral' if ephemeral else 'public'})")
    return found


FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "150")),
    deadline=None,
    derandomize=not os.environ.get("FUZZ_EXAMPLES"),  # the same examples in CI; more locally
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(data=st.data())
async def test_every_command_survives_hostile_values(table: Table, data: st.DataObject) -> None:
    if not getattr(table, "_fuzz_ready", False):
        await hidden_facts(table)
        table._fuzz_ready = True  # type: ignore[attr-defined]
    leaves = leaf_commands(table.fake.commands_for(table.guild_id))
    assert len(leaves) > 50  # the walk found the command tree
    path, user, values = data.draw(invocation(table, leaves), label="command")
    mark, requests = len(table.fake.sent), len(table.fake.requests)
    reply = await table.slash(path, user=user, timeout=5.0, **values)
    if reply.modal is None:
        assert reply.answered, f"/{path} {values}: no answer"
    problems = problems_since(table, mark, requests)
    assert not problems, f"/{path} as {'GM' if user == table.gm else 'player'} {values}: {problems}"
