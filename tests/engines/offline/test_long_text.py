"""Long messages cost time linear in their length: the engine reads them in bounded pieces (pieces.py), and the
date search around a value reads a bounded window. Structural checks, not timings (benchmarks/bench_long_text.py
prints the figures)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import MemoryPipeline
from pipeline.engines.offline import dates
from pipeline.engines.offline.engine import OfflineEngine
from pipeline.engines.offline.pieces import PIECE_CHARS, pieces
from pipeline.turns import build_turn

SENTENCE = "I am a nurse, I live in Lyon, I like hiking, "  # one endless sentence: no period to cut at


@pytest.mark.parametrize("text", [
    "",
    "short",
    SENTENCE * 500,
    "I am a nurse in Lyon. " * 400,
    "ฉันชอบกินข้าวผัดมาก" * 300,  # no space, no sentence end: cut at the limit
    "x" * (PIECE_CHARS * 3),
    "我是一名护士，住在里昂。" * 500,
])
def test_pieces_cover_the_text_in_order_and_each_is_bounded(text: str) -> None:
    cuts = pieces(text)
    assert cuts[0][0] == 0 and cuts[-1][1] == len(text)
    assert all(a < b or len(text) == 0 for a, b in cuts)
    assert all(b0 == a1 for (_, b0), (a1, _) in zip(cuts, cuts[1:], strict=False))
    assert all(b - a <= PIECE_CHARS for a, b in cuts)
    if len(text) > PIECE_CHARS:  # never a sliver: every piece but the last is at least half the limit
        assert all(b - a >= PIECE_CHARS // 2 for a, b in cuts[:-1])


def test_pieces_cut_where_a_sentence_ends_or_at_a_space() -> None:
    text = "I am a nurse in Lyon. " * 400
    for a, b in pieces(text)[:-1]:
        assert text[a:b].endswith(". ")
    text = SENTENCE * 500
    for _a, b in pieces(text)[:-1]:
        assert text[b - 1] == " "


def test_a_message_under_the_limit_is_read_whole_and_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = OfflineEngine._reading

    def spy(self: OfflineEngine, turn, text, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(len(text))
        return real(self, turn, text, *args, **kwargs)

    monkeypatch.setattr(OfflineEngine, "_reading", spy)
    text = "I'm Jasmin, a frontend engineer. I live in Lyon."
    OfflineEngine().classify(build_turn("u", [{"role": "user", "content": text}], turn_id="t-long"), "", "")
    assert seen == [len(text)]


def test_the_engine_never_reads_more_than_a_piece_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-piece work is bounded, so a turn's work is (number of pieces) x (a bounded cost): linear."""
    seen: list[int] = []
    real = OfflineEngine._reading

    def spy(self: OfflineEngine, turn, text, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(len(text))
        assert turn.user_text == text
        return real(self, turn, text, *args, **kwargs)

    monkeypatch.setattr(OfflineEngine, "_reading", spy)
    text = SENTENCE * 300  # 13,500 characters
    result = OfflineEngine().classify(build_turn("u", [{"role": "user", "content": text}], turn_id="t-long"), "", "")
    assert max(seen) <= PIECE_CHARS and sum(seen) == len(text) and len(seen) == len(pieces(text))
    assert result.decisions  # the pieces' decisions, together
    assert all(d.quote in text for d in result.decisions)


def test_material_handed_over_stays_material_in_every_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    """'Translate this: ...' makes what follows material for the task, also past the first piece: as many
    statements are material as when the message is read whole."""
    text = "Please translate this into French: " + "I am a nurse in Lyon and I love hiking with my dog. " * 120
    turn = build_turn("u", [{"role": "user", "content": text}], turn_id="t-long")

    def material() -> int:
        decisions = OfflineEngine().classify(turn, "", "").decisions
        return sum(d.detail == "material for the current task" for d in decisions)

    assert len(pieces(text)) > 2
    in_pieces = material()
    monkeypatch.setattr("pipeline.engines.offline.engine.pieces", lambda t: [(0, len(t))])
    assert in_pieces == material() > 200


def test_the_date_search_around_a_value_reads_a_bounded_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """A value's date check looks no further than a phrase can reach past it, whatever follows in the sentence."""
    lengths: list[int] = []
    real = dates.find_phrase

    def spy(text: str, today):  # type: ignore[no-untyped-def]
        lengths.append(len(text))
        return real(text, today)

    monkeypatch.setattr(dates, "find_phrase", spy)
    text = SENTENCE * 40  # 1,800 characters: one piece, one sentence, many values
    OfflineEngine().classify(build_turn("u", [{"role": "user", "content": text}], turn_id="t-long"), "", "")
    assert lengths and max(lengths) < 200 + dates.PHRASE_REACH


def test_a_long_message_through_the_cli_stores_its_facts(tmp_path: Path) -> None:
    """The door a user uses: `memroute turn` on a 40K-character message finishes and keeps the facts."""
    messages = tmp_path / "long.json"
    messages.write_text('[{"role": "user", "content": "' + "I am a nurse in Lyon. " * 1800 + '"}]', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "turn", "ana", "--messages", str(messages),
                           "--root", str(tmp_path / "m")], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    profile = MemoryPipeline(root=tmp_path / "m").show("ana")["user_md"]
    assert re.search(r"- Role: nurse", profile) and "Lyon" in profile
