"""Regular expressions compiled on first use.

The guards and the offline engine hold hundreds of patterns; compiling them all at import
cost most of a `memroute turn` process's start. A typical turn touches only some of them
(one language's lexicon, the guard rules whose trigger words appear), so each pattern is
compiled the first time it is used and kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, cast


class LazyPattern:
    __slots__ = ("_pattern", "_flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return self._compiled

    @property
    def pattern(self) -> str:
        return self._pattern

    @property
    def flags(self) -> int:
        return self.compiled.flags

    @property
    def groupindex(self) -> Any:
        return self.compiled.groupindex

    def search(self, string: str, *args: Any) -> re.Match[str] | None:
        return self.compiled.search(string, *args)

    def match(self, string: str, *args: Any) -> re.Match[str] | None:
        return self.compiled.match(string, *args)

    def fullmatch(self, string: str, *args: Any) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, *args)

    def finditer(self, string: str, *args: Any) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, *args)

    def findall(self, string: str, *args: Any) -> list[Any]:
        return self.compiled.findall(string, *args)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A drop-in for re.compile whose compilation waits until the pattern is first used.

    Typed as re.Pattern because it offers the methods callers use (search, match, fullmatch,
    finditer, findall, split, sub, subn, pattern, flags); do not pass it to re.sub() & co.
    """
    return cast("re.Pattern[str]", LazyPattern(pattern, flags))
