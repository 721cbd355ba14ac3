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
"""

from __future__ import annotations

import logging
import re
import weakref
from typing import Any, ClassVar

import discord

from cogs.common.errors import SafeModal, report_error

log = logging.getLogger(__name__)

CUSTOM_ID_MAX = 100


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

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, match: re.Match[str]
    ) -> PersistentModal:
        """Build the modal again for this submission; may raise RuleError (shown to the user)."""
        raise NotImplementedError(f"{cls.__name__} must implement from_custom_id")


_REGISTRY: weakref.WeakKeyDictionary[discord.Client, list[type[PersistentModal]]] = (
    weakref.WeakKeyDictionary()
)


def register_modals(client: discord.Client, *classes: type[PersistentModal]) -> None:
    """Let `client` rebuild these modals when their submission outlives the modal."""
    known = _REGISTRY.setdefault(client, [])
    for cls in classes:
        if cls.__template__ is None:
            raise ValueError(f"{cls.__name__} has no template")
        if cls not in known:
            known.append(cls)


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
