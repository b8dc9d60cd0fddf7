"""Statement splitting and relative-date resolution of the offline engine."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.engines.offline.dates import resolve_date, strip_date_phrase
from pipeline.engines.offline.split import split_statements

TODAY = date(2026, 7, 30)  # a Thursday


@pytest.mark.parametrize(("text", "parts"), [
    ("I'm Jasmin, a frontend engineer, and I like conclusion-first communication.",
     ["I'm Jasmin", "I'm a frontend engineer", "I like conclusion-first communication"]),
    ("I use Next.js. We ship on Fridays!", ["I use Next.js", "We ship on Fridays"]),
    ("Dr. Tan is my dentist. I floss daily.", ["Dr. Tan is my dentist", "I floss daily"]),
    ("saya Dewi, seorang perawat, dan saya suka kopi", ["saya Dewi", "saya seorang perawat", "saya suka kopi"]),
    ("我是李明，一名前端工程师，而且我喜欢简洁的回答。", ["我是李明", "我是一名前端工程师", "我喜欢简洁的回答"]),
    ("我喜欢篮球、足球和游泳", ["我喜欢篮球、足球和游泳"]),
    ("ผมชื่อสมชายครับ ผมเป็นวิศวกร", ["ผมชื่อสมชายครับ", "ผมเป็นวิศวกร"]),
    ("ชอบคำตอบสั้นๆ ตรงประเด็นนะครับ", ["ชอบคำตอบสั้นๆ ตรงประเด็นนะครับ"]),
    ("ผมใช้ Next.js ทุกวัน", ["ผมใช้ Next.js ทุกวัน"]),
])
def test_split(text: str, parts: list[str]) -> None:
    assert [s.text for s in split_statements(text)] == parts


def test_quotes_point_back_into_the_source() -> None:
    text = "I like tea.\nWe deployed v2 yesterday."
    for st in split_statements(text):
        assert text[st.start:st.end] == st.quote


@pytest.mark.parametrize(("text", "expected"), [
    ("we shipped it yesterday", "2026-07-29"),
    ("the day before yesterday we met", "2026-07-28"),
    ("last week we changed the hero", "2026-07-23"),
    ("3 days ago the disk filled up", "2026-07-27"),
    ("two weeks ago we hired Ana", "2026-07-16"),
    ("last month we moved offices", "2026-06-30"),
    ("last Monday we had the demo", "2026-07-27"),
    ("on 2026-05-04 we launched", "2026-05-04"),
    ("kemarin kami rilis", "2026-07-29"),
    ("minggu lalu kami rapat", "2026-07-23"),
    ("3 hari yang lalu servernya mati", "2026-07-27"),
    ("昨天上线了", "2026-07-29"),
    ("上周开会了", "2026-07-23"),
    ("三天前修好了", "2026-07-27"),
    ("เมื่อวานดีพลอยแล้ว", "2026-07-29"),
    ("สัปดาห์ที่แล้วประชุม", "2026-07-23"),
    ("3 วันก่อนเซิร์ฟเวอร์ล่ม", "2026-07-27"),
    ("we fixed the login bug", "2026-07-30"),
])
def test_resolve_date(text: str, expected: str) -> None:
    assert resolve_date(text, TODAY) == expected


def test_month_arithmetic_clamps_to_the_month_end() -> None:
    assert resolve_date("last month", date(2026, 3, 31)) == "2026-02-28"
    assert resolve_date("last month", date(2028, 3, 31)) == "2028-02-29"


def test_the_date_phrase_leaves_the_entry() -> None:
    assert strip_date_phrase("Last week we changed the hero section", TODAY) == "we changed the hero section"
    assert strip_date_phrase("昨天我们上线了", TODAY) == "我们上线了"
