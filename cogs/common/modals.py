"""Forms (modals) that survive a restart.

A modal lives only in the process that opened it: after a restart (or once its timeout passed)
discord.py has nothing to hand the submission to. A `PersistentModal` is different: its
custom_id carries what is needed to build it again (for example "cdraftm:12:skills": draft 12,
the skills step), like the custom_id of a `discord.ui.DynamicItem` button does.

    class StepModal(PersistentModal, template=r"cdraftm:(?P<id>\\d+):(?P<step>[a-z]+)"):
        @classmethod
        async def from_custom_id(cls, interaction, match):
            ...  # load what the form edits (from the database) and return a fresh modal

    register_modals(bot, StepModal)  # in the cog's setup, next to add_dynamic_items

When a submission arrives that no live modal owns, `submit_persistent_modal` finds the class
whose template matches the custom_id, rebuilds the modal, fills its inputs with the submitted
values and runs its `on_submit`, so the user's answers are used instead of lost.
cogs/common/orphans.py calls it before telling the user that a form has expired.

A persistent form refused for a rule (a skill pyramid that does not add up, two stunts with one
name) reopens with what was typed. Discord cannot answer a form with another form, so the
refusal (`refused`: a private message, or the form's own message edited in place) carries a
**Fix what I typed** button (`FixButton`). The answers wait in the database for their writer
only (bot/services/form_answers.py); the click rebuilds the same form from its custom id and
fills it with them. Subclasses implement `accept` (not `on_submit`): the kept answers are
dropped once the form is accepted.
"""

from __future__ import annotations

import logging
import re
import weakref
from typing import Any, ClassVar

import discord

from bot.errors import RuleError
from bot.services.form_answers import get_form_answers
from bot.ui.custom_ids import FORM_FIX_TEMPLATE, form_fix_id
from cogs.common.errors import SafeModal, guarded, report_error, user_message
from cogs.common.scope import ScopedItem

log = logging.getLogger(__name__)

CUSTOM_ID_MAX = 100
FIX_LABEL = "Fix what I typed"
REOPEN_HINT = f"**{FIX_LABEL}** opens the form again with your answers."
FIX_HINT = f"Nothing was saved. {REOPEN_HINT}"


class PersistentModal(SafeModal):
    """A modal that can be rebuilt from its custom_id (see the module docstring).

    Subclasses give `template=` (a regex matched against the whole custom_id) and implement
    `from_custom_id`. Subclasses of a templated class inherit its template.
    """

    __template__: ClassVar[re.Pattern[str] | None] = None

    def __init_subclass__(cls, *, template: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if template is not None:
            cls.__template__ = re.compile(template)

    def __init__(self, *, title: str, custom_id: str, timeout: float | None = None) -> None:
        if len(custom_id) > CUSTOM_ID_MAX:
            raise ValueError(f"custom_id {custom_id[:40]}... is over {CUSTOM_ID_MAX} characters")
        pattern = type(self).__template__
        if pattern is None or not pattern.fullmatch(custom_id):
            raise ValueError(f"custom_id {custom_id!r} does not match {type(self).__name__}")
        super().__init__(title=title, custom_id=custom_id, timeout=timeout)
        self.kept_answers: int | None = None  # opened by "Fix what I typed": that row

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, match: re.Match[str]
    ) -> PersistentModal:
        """Build the modal again for this submission; may raise RuleError (shown to the user)."""
        raise NotImplementedError(f"{cls.__name__} must implement from_custom_id")

    async def accept(self, interaction: discord.Interaction) -> None:
        """Use the submitted answers (a RuleError refuses them and offers to fix them)."""
        raise NotImplementedError(f"{type(self).__name__} must implement accept")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await self.accept(interaction)
        if self.kept_answers is not None:
            await get_form_answers(interaction.client).forget(
                self.kept_answers, interaction.user.id
            )

    def text_inputs(self) -> list[discord.ui.TextInput[Any]]:
        return [c for c in self.walk_children() if isinstance(c, discord.ui.TextInput)]

    def typed(self) -> dict[str, str]:
        """What was typed into the form, by input custom id."""
        return {item.custom_id: item.value or "" for item in self.text_inputs()}

    def prefill(self, answers: dict[str, str]) -> None:
        """Show `answers` in the inputs instead of their usual defaults."""
        for item in self.text_inputs():
            if item.custom_id in answers:
                limit = item.max_length or 4000
                item.default = answers[item.custom_id][:limit] or None

    async def on_error(  # type: ignore[override]
        self, interaction: discord.Interaction, error: Exception
    ) -> None:
        sentence = user_message(error)
        if sentence is None or not getattr(error, "offers_retry", True):
            await report_error(interaction, error)
            return
        if interaction.guild_id is None or interaction.response.is_done():
            await report_error(interaction, error)
            return
        try:
            answer_id = await get_form_answers(interaction.client).keep(
                interaction.guild_id, interaction.user.id, self.custom_id, self.typed()
            )
        except Exception:  # noqa: BLE001 - keeping them failed: the refusal still reaches them
            log.warning("could not keep the answers of a refused form", exc_info=True)
            await report_error(interaction, error)
            return
        await self.refused(interaction, sentence, FixButton(answer_id))

    async def refused(
        self, interaction: discord.Interaction, sentence: str, fix: FixButton
    ) -> None:
        """Say why the form was refused, with `fix` to reopen it filled in (a private message;
        a form may edit the message it was opened from instead)."""
        view = discord.ui.View(timeout=None)
        view.add_item(fix)
        await interaction.response.send_message(
            f"{sentence}\n{FIX_HINT}", view=view, ephemeral=True
        )


class FixButton(
    ScopedItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=FORM_FIX_TEMPLATE,
):
    """Opens a refused form again, filled with what its writer typed (kept for them alone)."""

    scope_kind = "form_answer"

    def __init__(self, answer_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=FIX_LABEL, style=discord.ButtonStyle.primary, custom_id=form_fix_id(answer_id)
            )
        )
        self.answer_id = answer_id

    def scope_key(self) -> int:
        return self.answer_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> FixButton:
        return cls(int(match["id"]))

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        kept = await get_form_answers(interaction.client).get(self.answer_id, interaction.user.id)
        found = persistent_match(interaction.client, kept.form_id)
        if found is None:
            raise RuleError("That form is from an older version; open it again.")
        cls, match = found
        modal = await cls.from_custom_id(interaction, match)
        modal.prefill(kept.answers)
        modal.kept_answers = kept.id
        await interaction.response.send_modal(modal)


_REGISTRY: weakref.WeakKeyDictionary[discord.Client, list[type[PersistentModal]]] = (
    weakref.WeakKeyDictionary()
)


def register_modals(client: discord.Client, *classes: type[PersistentModal]) -> None:
    """Let `client` rebuild these modals when their submission outlives the modal."""
    for cls in classes:
        if cls.__template__ is None:
            raise ValueError(f"{cls.__name__} has no template")
    known = _REGISTRY.setdefault(client, [])
    known.extend(cls for cls in classes if cls not in known)
    client.add_dynamic_items(FixButton)  # their refusals offer "Fix what I typed"


def registered_modals(client: discord.Client) -> list[type[PersistentModal]]:
    return list(_REGISTRY.get(client, []))


def persistent_match(
    client: discord.Client, custom_id: str
) -> tuple[type[PersistentModal], re.Match[str]] | None:
    for cls in registered_modals(client):
        assert cls.__template__ is not None
        match = cls.__template__.fullmatch(custom_id)
        if match is not None:
            return cls, match
    return None


async def submit_persistent_modal(interaction: discord.Interaction) -> bool:
    """Handle a modal submission with no live modal; False when no registered class fits."""
    data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str):
        return False
    found = persistent_match(interaction.client, custom_id)
    if found is None:
        return False
    cls, match = found
    try:
        modal = await cls.from_custom_id(interaction, match)
    except Exception as error:  # noqa: BLE001 - every error must reach the user
        await report_error(interaction, error)
        return True
    try:
        # discord.py fills a live modal's inputs this way; there is no public equivalent.
        modal._refresh(interaction, data.get("components") or [], {})
    except AttributeError:
        log.warning("cannot fill a rebuilt modal (discord.py internals changed)")
        return False
    try:
        if await modal.interaction_check(interaction):
            await modal.on_submit(interaction)
    except Exception as error:  # noqa: BLE001 - the modal's own error handler decides
        await modal.on_error(interaction, error)
    finally:
        modal.stop()
    return True
