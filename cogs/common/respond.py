"""`respond`: a slash command's reply, without the message object discord.py makes of it.

`interaction.response.send_message` asks Discord for the new message back (`with_response`)
and turns it into an `InteractionMessage`: author, embeds, components, mentions, each parsed
into discord.py objects that the hot commands never read (a roll needs only the message id).
That parse cost about 4% of a roll's instructions. `respond` sends exactly what `send_message`
sends (the same `interaction_message_response_params`, the client's allowed mentions, the
ephemeral flag), through the same webhook adapter, and marks the response done as
`send_message` does, so `interaction.response.is_done()`, follow-ups and the error handler
work unchanged. It takes only `Components` (or no view): discord.py never stores those, so
`send_message`'s view bookkeeping has nothing to do (bot/ui/components.py).

`update` is the same for a click answered by editing the clicked message in place
(`interaction.response.edit_message`: a roll's invoke, a card played from a hand, a tracker's
button), whose echo discord.py parses the same way.

It leans on discord.py 2.7's internals (`_state`, `_session`, `_response_type`, the webhook
adapter); tests/e2e check what the fake Discord receives and the follow-ups after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord.enums import InteractionResponseType
from discord.utils import MISSING
from discord.webhook.async_ import async_context, interaction_message_response_params

from bot.ui.components import Components

if TYPE_CHECKING:
    from discord.types.interactions import InteractionCallback


async def respond(
    interaction: discord.Interaction,
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    view: Components | None = None,
    ephemeral: bool = False,
    allowed_mentions: discord.AllowedMentions | None = None,
) -> int | None:
    """Reply to `interaction` as `interaction.response.send_message` does; the new message's
    id (None if Discord did not say)."""
    if interaction.response.is_done():
        raise discord.InteractionResponded(interaction)
    flags = MISSING
    if ephemeral:
        flags = discord.MessageFlags._from_value(0)
        flags.ephemeral = True
    params = interaction_message_response_params(
        type=InteractionResponseType.channel_message.value,
        content=content,
        embed=MISSING if embed is None else embed,
        view=MISSING if view is None else view,
        flags=flags,
        allowed_mentions=MISSING if allowed_mentions is None else allowed_mentions,
        previous_allowed_mentions=interaction._state.allowed_mentions,
    )
    data = await _answer(interaction, params, InteractionResponseType.channel_message)
    found = data.get("interaction", {}).get("response_message_id")
    return int(found) if found is not None else None


async def update(
    interaction: discord.Interaction,
    *,
    content: str | None = MISSING,
    embed: discord.Embed | None = MISSING,
    view: Components | None = MISSING,
) -> None:
    """Answer a click by editing the clicked message, as `interaction.response.edit_message`
    does: a part given as None is cleared, a part left out stays as it is."""
    if interaction.response.is_done():
        raise discord.InteractionResponded(interaction)
    state = interaction._state
    if view is not MISSING and interaction.message is not None:
        state.prevent_view_updates_for(interaction.message.id)  # as edit_message does
    params = interaction_message_response_params(
        type=InteractionResponseType.message_update.value,
        content=content,
        embed=embed,
        view=view,
        previous_allowed_mentions=state.allowed_mentions,
    )
    await _answer(interaction, params, InteractionResponseType.message_update)


async def _answer(
    interaction: discord.Interaction, params: Any, kind: InteractionResponseType
) -> InteractionCallback:
    """Send the interaction's response and mark it done, as discord.py's responses do."""
    http = interaction._state.http
    data = await async_context.get().create_interaction_response(
        interaction.id,
        interaction.token,
        session=interaction._session,
        proxy=http.proxy,
        proxy_auth=http.proxy_auth,
        params=params,
    )
    interaction.response._response_type = kind
    return data
