"""The offline engine's sensitive spans are the guards' findings: no second detector of its own, and a detector
that fails fails the turn (it waits for a retry) instead of letting the text through unchecked."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.core import MemoryPipeline
from pipeline.engines.offline import sensitive
from pipeline.guards import find_sensitive


def test_the_spans_are_the_guards_findings() -> None:
    text = "my email is ana@example.com and my password is hunter2-hunter2"
    spans = sensitive.find_spans(text)
    found = {(f.kind.lower(), f.start, f.end) for f in find_sensitive(text)}
    assert found and found <= {(s.kind, s.start, s.end) for s in spans}
    assert any(s.kind == "email" and sensitive.is_contact(s.kind) for s in spans)
    assert not sensitive.is_contact("password")


def test_a_detector_that_fails_fails_the_turn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(text: str) -> list[object]:
        raise RuntimeError("detector down")

    monkeypatch.setattr(sensitive, "find_sensitive", broken)
    with pytest.raises(RuntimeError, match="detector down"):
        sensitive.find_spans("my card is 4111 1111 1111 1111")
    with MemoryPipeline(root=tmp_path) as pipe:
        result = pipe.process_turn("ana", [{"role": "user", "content": "I live in Lyon."}])
    assert result.status == "failed" and "detector down" in (result.error or "")
    assert not (tmp_path / "ana" / "USER.md").exists()


@pytest.mark.parametrize(("said", "secret"), [
    ("hi! my password is hunter2-Quokka, don't keep it", "Quokka"),
    ("password saya adalah Rahasia-9921, jangan disimpan ya", "Rahasia-9921"),
    ("我的密码是 Zhima-8812，别记下来", "Zhima-8812"),
    ("รหัสผ่านของฉันคือ Sabai-7734 อย่าเก็บไว้นะ", "Sabai-7734"),
])
def test_overlapping_findings_leave_one_whole_marker(tmp_path: Path, said: str, secret: str) -> None:
    """Two detectors that both cover the secret ("password is X" and "X") make one marker in the quote a person
    reads and the log keeps, not a marker cut into by the other ("[REDACTED:SECRET]WORD]")."""
    import re

    with MemoryPipeline(root=tmp_path) as pipe:
        result = pipe.process_turn("ana", [{"role": "user", "content": said}], timestamp="2026-07-30T10:00:00Z")
    quotes = " ".join(d.quote for d in result.decisions)
    assert "[REDACTED:" in quotes and secret not in quotes
    assert not re.search(r"REDACTED|\]", re.sub(r"\[REDACTED:[A-Z_]+\]", "", quotes)), quotes
