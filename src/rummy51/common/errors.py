"""The error both games' engines raise for a move the rules refuse."""
from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["IllegalMove"]


class IllegalMove(ValueError):
    """A move the rules do not allow, in any game; ``rule`` names the section of the
    game's rules document broken (``"5.4"``) or ``"engine"`` for a choice its engine
    documents, and ``reason`` is the message without that reference.

    Each game raises its own subclass, which names its rules document
    (``rummy51.r51.IllegalMove``: docs/rules.md; ``rummy51.carousel.actions.IllegalMove``:
    docs/rules-carousel.md), so ``except rummy51.IllegalMove`` catches the refusals of
    every game. It is a ``ValueError``."""

    #: what a numbered ``rule`` refers to (a game's subclass names its rules document)
    RULES: ClassVar[str] = "the rules"

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} ({self.RULES} {rule})" if rule[:1].isdigit() else message)
        self.rule = rule
        self.reason = message

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from (rule, reason), as raised: it crosses from worker processes intact
        return type(self), (self.rule, self.reason)
