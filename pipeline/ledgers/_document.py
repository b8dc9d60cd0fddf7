"""What USER.md and MEMORY.md have in common: blocks of verbatim lines, byte-exact rendering,
the round-trip guard and the capped, all-or-nothing change."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import ClassVar, Generic, Protocol, TypeVar

from pipeline.errors import UnparseableLedger
from pipeline.ledgers._text import join_text
from pipeline.ledgers.errors import check_cap

T = TypeVar("T")


class Block(Protocol):
    def lines(self) -> list[str]: ...


B = TypeVar("B", bound=Block)


class LedgerDocument(Generic[B]):
    FILE_NAME: ClassVar[str]  # "USER.md" / "MEMORY.md", for messages
    TARGET: ClassVar[str]  # "user" / "memory", for the cap error

    def __init__(
        self, blocks: list[B], newline: str, final_newline: bool, had_bom: bool, round_trips: bool, limit: int | None
    ) -> None:
        self._blocks = blocks
        self._newline = newline
        self._final_newline = final_newline
        self.had_bom = had_bom
        self._round_trips = round_trips
        self.limit = limit

    def render(self) -> str:
        lines = [line for block in self._blocks for line in block.lines()]
        return join_text(lines, self._newline, self._final_newline)

    @property
    def round_trips(self) -> bool:
        """True when render() of the parsed text reproduced it exactly (a BOM aside).

        False only for mixed or lone-CR line endings (CRLF files are kept as CRLF): every other
        line is kept verbatim. Replace/remove refuse such a model (UnparseableLedger); adding is allowed.
        """
        return self._round_trips

    def require_round_trip(self) -> None:
        """Raise UnparseableLedger unless rewriting the file would reproduce every line exactly."""
        if not self._round_trips:
            raise UnparseableLedger(
                f"{self.FILE_NAME} has mixed line endings, so rewriting it would not reproduce it exactly; "
                "refusing to replace or remove until it is saved with one kind of line ending"
            )

    def _current_entries(self) -> Sequence[str]:
        raise NotImplementedError

    def _guarded(self, change: Callable[[], T], adding: int) -> T:
        """Apply change(); undo it if it raises or leaves the file over the cap."""
        before_text, before_entries = self.render(), list(self._current_entries())
        saved = (copy.deepcopy(self._blocks), self._final_newline)
        try:
            result = change()
            self._final_newline = True  # a file we changed ends with one newline
            after = self.render()
            if self.limit is not None and after != before_text:
                check_cap(self.TARGET, before_text, after, self.limit, before_entries, adding=adding)
        except BaseException:
            self._blocks, self._final_newline = saved
            raise
        return result
