"""The decision log's digest of a skipped statement is keyed (issue 24, item 5).

A skipped statement is logged as its route, reason and a digest of its words. A plain sha256 of
"the parcel slip said 604918" gives the number back to anyone who hashes the million candidates;
the digest is an HMAC under a key of the store's own, so the same words give the same digest in
one memory (two skips can still be told apart) and nothing that can be checked from outside it.
"""

from __future__ import annotations

import hashlib
from datetime import date
from typing import Any

from memory_fixture import Memory

from pipeline.engines.base import Engine
from pipeline.types import Classification, ConsolidationPlan, Decision, Turn, Usage

SAID = "the parcel slip said 604918 this morning"


class _SkipsAll(Engine):
    name = "skips"
    model: str | None = None
    prompt_version = "skips-1"

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        d = Decision(quote=turn.user_text, route="skip", reason="one_off")
        return Classification(decisions=[d], usage=Usage(), engine=self.name, model=None, prompt_version=self.prompt_version)

    def consolidate(self, items: list[Any], *, target_chars: int, today: date) -> ConsolidationPlan:
        raise AssertionError("not reached")


def _logged(mem: Memory, user: str) -> str:
    with mem.pipeline(engine=_SkipsAll()) as pipe:
        pipe.process_turn(user, [{"role": "user", "content": SAID}], timestamp="2026-08-02T10:00:00Z")
        (row,) = pipe.store.decisions(user)
    return str(row["quote"])


def test_a_skipped_statement_is_logged_under_a_key_of_the_store(mem: Memory) -> None:
    first, again = _logged(mem, "olu"), _logged(mem, "ada")
    assert first == again  # one memory, one key: the same words are recognisably the same
    assert "604918" not in first
    plain = hashlib.sha256(SAID.encode("utf-8")).hexdigest()[:16]
    assert plain not in first and not first.startswith("sha256:"), first
    # Nothing outside the store can check a guess: trying every six-digit number finds nothing.
    template = SAID.replace("604918", "{:06d}")
    digest = first.split(":", 1)[1]
    assert all(hashlib.sha256(template.format(n).encode()).hexdigest()[:16] != digest for n in range(600000, 610000))


def test_two_memories_give_unrelated_digests(mem: Memory, tmp_path_factory: Any) -> None:
    other = Memory(tmp_path_factory.mktemp("other-root"), None)
    assert _logged(mem, "olu") != _logged(other, "olu")
