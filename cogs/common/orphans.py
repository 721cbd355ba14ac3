"""Answer clicks and form submissions that nothing in this process can handle any more.

Buttons of the bot's boards carry their state in the custom_id and survive restarts. A few
short-lived things do not: a form (modal) opened before a restart, or a picker whose view timed
out. Discord would show the user "This interaction failed"; we say what happened and what to do.
Forms built as `PersistentModal`s (cogs/common/modals.py) are rebuilt and handled instead.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from cogs.common.errors import send_ephemeral
from cogs.common.modals import submit_persistent_modal

log = logging.getLogger(__name__)

EXPIRED_FORM = (
    "This form was opened before the bot restarted (or was left open too long), so its answers "
    "could not be read. Nothing was changed: open it again and resubmit."
)
EXPIRED_CONTROL = (
    "These buttons have expired (the bot restarted or they timed out). Nothing was changed: "
    "run the command again for fresh ones."
)


def _store(client: discord.Client) -> Any:
    return client._connection._view_store  # discord.py keeps no public handle on it


def modal_is_live(client: discord.Client, custom_id: str) -> bool:
    return custom_id in _store(client)._modals


def component_is_handled(client: discord.Client, component_type: int, custom_id: str) -> bool:
    store = _store(client)
    if any(pattern.fullmatch(custom_id) for pattern in store._dynamic_items):
        return True
    key = (component_type, custom_id)
    return any(key in items for items in store._views.values())


async def answer_orphans(interaction: discord.Interaction) -> None:
    data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str):
        return
    client = interaction.client
    try:
        if interaction.type is discord.InteractionType.modal_submit:
            orphan = not modal_is_live(client, custom_id)
            if orphan and await submit_persistent_modal(interaction):
                return  # rebuilt from its custom_id and answered (cogs/common/modals.py)
            text = EXPIRED_FORM
        elif interaction.type is discord.InteractionType.component:
            orphan = not component_is_handled(client, int(data.get("component_type", 0)), custom_id)
            text = EXPIRED_CONTROL
        else:
            return
    except AttributeError:  # discord.py changed its internals: better silent than wrong
        log.warning("cannot inspect discord.py's view store; orphan answers are off")
        return
    if orphan and not interaction.response.is_done():
        await send_ephemeral(interaction, text)


def install_orphan_answers(bot: discord.Client) -> None:
    bot.add_listener(answer_orphans, "on_interaction")  # type: ignore[attr-defined]
