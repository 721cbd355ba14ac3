"""Errors a user can cause. Their message is shown to the user as-is (ephemeral)."""


class RuleError(ValueError):
    """A request the rules (or the bot's limits) do not allow; the message says what to do instead."""

    # A form refused with this error offers to reopen with what was typed (cogs/common/modals.py);
    # errors about who may act or where (someone else's draft, another server's row) do not.
    offers_retry: bool = True


class TableBusy(RuleError):
    """A unit of work could not finish within its deadline (queueing included) and was rolled
    back: nothing of it was stored, so trying again is safe."""

    def __init__(
        self, message: str = "The table is busy right now; try again in a moment."
    ) -> None:
        super().__init__(message)
