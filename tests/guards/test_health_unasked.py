"""Health details nobody asked to keep are kept nowhere (issue 24, item 4).

A pregnancy, an HIV status, a chemotherapy plan or chest pain is a `sensitive` skip unless the
user asks, in that turn, to keep it: whatever the engine calls it (a `Likes`, `Family` or `Goals`
field, a MEMORY.md entry), whatever key the model gives it ("HIV status"), and never as a
candidate waiting to be promoted. Every sentence here is written for the project.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine
from pipeline.guards import guard_decisions
from pipeline.types import Classification, ConsolidationPlan, Decision, Turn, Usage

# (language, what the user says, a piece that must be nowhere in the files)
HEALTH_TURNS = [
    ("en", "We're expecting our second baby in March, 16 weeks along now", "16 weeks"),
    ("en", "my partner is pregnant again, so no hiking trips this autumn", "pregnant"),
    ("en", "I've been HIV positive for eight years and my viral load is undetectable", "HIV"),
    ("en", "My oncologist set the chemo plan: four cycles starting the 12th", "chemo"),
    ("en", "I keep getting chest pain when I climb the stairs to the office", "chest pain"),
    ("id", "Istri saya sedang hamil tujuh bulan", "hamil"),
    ("id", "aku baru tahu aku hamil anak pertama", "hamil"),
    ("id", "status HIV saya positif sejak 2019", "HIV"),
    ("id", "minggu depan saya mulai kemoterapi di Dharmais", "kemoterapi"),
    ("id", "akhir-akhir ini saya sering nyeri dada", "nyeri dada"),
    ("zh", "我太太怀孕六个月了", "怀孕"),
    ("zh", "我怀上了二胎，预产期是明年三月", "预产期"),
    ("zh", "我是HIV阳性，一直在吃药", "HIV"),
    ("zh", "我妈下个月开始化疗", "化疗"),
    ("zh", "这几天我老是胸闷", "胸闷"),
    ("th", "ภรรยาผมตั้งครรภ์ได้ห้าเดือนแล้ว", "ตั้งครรภ์"),
    ("th", "ฉันท้องได้ 3 เดือนแล้วนะ", "ท้องได้"),
    ("th", "ผมติดเชื้อเอชไอวีมาห้าปีแล้ว", "เอชไอวี"),
    ("th", "พ่อของฉันต้องทำเคมีบำบัดเดือนหน้า", "เคมีบำบัด"),
    ("th", "ช่วงนี้ฉันเจ็บหน้าอกบ่อยมาก", "เจ็บหน้าอก"),
]
IDS = [f"{lang}-{i}" for i, (lang, _, _) in enumerate(HEALTH_TURNS)]


def _files(root: Path, user: str) -> str:
    folder = root / user
    return "".join(p.read_text("utf-8") for p in sorted(folder.glob("*.md"))) if folder.exists() else ""


@pytest.mark.parametrize(("lang", "text", "needle"), HEALTH_TURNS, ids=IDS)
def test_a_health_detail_is_a_sensitive_skip(tmp_path: Path, lang: str, text: str, needle: str) -> None:
    with MemoryPipeline(tmp_path) as pipe:
        result = pipe.process_turn("noa", [{"role": "user", "content": text}], timestamp="2026-08-02T10:00:00Z")
        assert pipe.candidates("noa") == []
    assert needle not in _files(tmp_path, "noa")
    assert any(d.reason == "sensitive" for d in result.decisions), result.decisions


class _FilesItAnywhere(Engine):
    """An engine that files every statement as an ordinary fact: a Likes/Family/Goals field and a log entry."""

    name = "anywhere"
    model: str | None = None
    prompt_version = "anywhere-1"

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        text = turn.user_text
        decisions = [
            Decision(quote=text, route="user", op="upsert", section="Preferences", key="Likes", value=text),
            Decision(quote=text, route="user", op="upsert", section="Identity", key="Family", value=text),
            Decision(quote=text, route="user", op="upsert", section="Goals", key="Goals", value=text),
            Decision(quote=text, route="memory", op="append", entry=text, date="2026-08-02", topic="family"),
        ]
        return Classification(decisions=decisions, usage=Usage(), engine=self.name, model=None, prompt_version=self.prompt_version)

    def consolidate(self, items: list[Any], *, target_chars: int, today: date) -> ConsolidationPlan:
        raise AssertionError("not reached")


@pytest.mark.parametrize(("lang", "text", "needle"), HEALTH_TURNS, ids=IDS)
def test_whatever_field_the_engine_picks_the_detail_is_not_written(tmp_path: Path, lang: str, text: str, needle: str) -> None:
    with MemoryPipeline(tmp_path, engine=_FilesItAnywhere()) as pipe:
        result = pipe.process_turn("noa", [{"role": "user", "content": text}], timestamp="2026-08-02T10:00:00Z")
    assert not (result.user_changed or result.memory_changed), result.decisions
    assert needle not in _files(tmp_path, "noa")


@pytest.mark.parametrize(
    ("key", "value"),
    [("HIV status", "positive"), ("HIV status", "negative"), ("Pregnancy", "due in March"), ("Kehamilan", "tujuh bulan"),
     ("怀孕", "六个月"), ("การตั้งครรภ์", "ห้าเดือน"), ("Treatment plan", "four cycles of chemo"), ("Diagnosis", "angina")],
)
def test_on_the_model_path_a_health_key_counts(key: str, value: str) -> None:
    turn = "ok"
    (out,) = guard_decisions([Decision(quote=turn, route="user", op="upsert", section="Identity", key=key, value=value)], turn)
    assert out.route == "skip" and out.reason == "sensitive" and out.value is None, out


class _Hesitant(Engine):
    """An engine that keeps a weakly stated fact as a candidate (section/key/value filled)."""

    name = "hesitant"
    model: str | None = None
    prompt_version = "hesitant-1"

    def __init__(self, key: str, value: str) -> None:
        self.key, self.value = key, value

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        d = Decision(quote=turn.user_text, route="skip", reason="vague", candidate=True, section="Identity",
                     key=self.key, value=self.value)
        return Classification(decisions=[d], usage=Usage(), engine=self.name, model=None, prompt_version=self.prompt_version)

    def consolidate(self, items: list[Any], *, target_chars: int, today: date) -> ConsolidationPlan:
        raise AssertionError("not reached")


@pytest.mark.parametrize(
    ("said", "key", "value"),
    [("I think we might be expecting", "Pregnancy", "maybe"), ("kayaknya aku lagi isi deh", "Kehamilan", "mungkin"),
     ("我好像有了", "怀孕", "可能"), ("สงสัยจะมีน้องแล้ว", "การตั้งครรภ์", "อาจจะ")],
)
def test_a_health_detail_is_never_a_candidate_nor_promoted(tmp_path: Path, said: str, key: str, value: str) -> None:
    with MemoryPipeline(tmp_path, engine=_Hesitant(key, value)) as pipe:
        for conversation, day in (("c1", "2026-08-01"), ("c2", "2026-08-09")):
            pipe.process_turn("noa", [{"role": "user", "content": said}], timestamp=f"{day}T10:00:00Z",
                              conversation_id=conversation)
        assert pipe.candidates("noa") == []
    assert value not in _files(tmp_path, "noa")


def test_asked_to_keep_it_the_user_gets_it_kept(tmp_path: Path) -> None:
    with MemoryPipeline(tmp_path) as pipe:
        pipe.process_turn("noa", [{"role": "user", "content": "please remember that I'm pregnant, due in March"}],
                          timestamp="2026-08-02T10:00:00Z")
    assert "pregnant" in _files(tmp_path, "noa")


@pytest.mark.parametrize(
    "text",
    ["That was a pregnant pause", "The due date for the report is Friday", "I'm expecting a package tomorrow",
     "We read a book about HIV research", "I volunteer at a rehab center for dogs", "The bug was diagnosed as a race condition"],
)
def test_figures_of_speech_stay_ordinary(text: str) -> None:
    from pipeline.guards import check_text

    assert check_text(text).allowed, check_text(text)
