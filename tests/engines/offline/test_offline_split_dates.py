"""Statement splitting and relative-date resolution of the offline engine."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from pipeline.engines.offline import OfflineEngine
from pipeline.engines.offline.dates import mark_planned, parse_time_zone, resolve_date, strip_date_phrase
from pipeline.engines.offline.split import split_statements
from pipeline.types import Message, Turn

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
    ("last week we changed the hero", "2026-07"),
    ("3 days ago the disk filled up", "2026-07-27"),
    ("two weeks ago we hired Ana", "2026-07"),
    ("last month we moved offices", "2026-06"),
    ("last Monday we had the demo", "2026-07-27"),
    ("on 2026-05-04 we launched", "2026-05-04"),
    ("kemarin kami rilis", "2026-07-29"),
    ("minggu lalu kami rapat", "2026-07"),
    ("3 hari yang lalu servernya mati", "2026-07-27"),
    ("昨天上线了", "2026-07-29"),
    ("上周开会了", "2026-07"),
    ("三天前修好了", "2026-07-27"),
    ("เมื่อวานดีพลอยแล้ว", "2026-07-29"),
    ("สัปดาห์ที่แล้วประชุม", "2026-07"),
    ("3 วันก่อนเซิร์ฟเวอร์ล่ม", "2026-07-27"),
    ("we fixed the login bug", "2026-07-30"),
])
def test_resolve_date(text: str, expected: str) -> None:
    assert resolve_date(text, TODAY) == expected


def test_last_month_is_the_month_before_even_on_a_long_months_last_day() -> None:
    assert resolve_date("last month", date(2026, 3, 31)) == "2026-02"
    assert resolve_date("last month", date(2026, 1, 15)) == "2025-12"


def test_the_date_phrase_leaves_the_entry() -> None:
    assert strip_date_phrase("Last week we changed the hero section", TODAY) == "we changed the hero section"
    assert strip_date_phrase("昨天我们上线了", TODAY) == "我们上线了"


# -- issue 12 item 6: weekends, weekdays, months, seasons, plans, unplaceable periods --------------------
# TODAY is Thursday 2026-07-30: last weekend began Saturday 07-25, the coming Saturday is 08-01.
# Issue 29: a weekend, a month or a season is no day: the month or the year that holds it.

@pytest.mark.parametrize(("text", "expected"), [
    ("last weekend we went camping", "2026-07"),
    ("I went hiking over the weekend", "2026-07"),
    ("this weekend we are moving house", "2026-08"),
    ("next weekend is the fair", "2026-08"),
    ("last Friday we released v2", "2026-07-24"),
    ("on Sunday I went to the beach", "2026-07-26"),
    ("on Sunday I am going to the beach", "2026-08-02"),
    ("this Friday we will release", "2026-07-31"),
    ("my sister's wedding is next Saturday", "2026-08-01"),
    ("tomorrow I'm flying to Bali", "2026-07-31"),
    ("next month I will start a new job", "2026-08"),
    ("last summer I visited Japan", "2025"),
    ("last winter we went skiing", "2026"),
    ("in May I ran my first marathon", "2026-05"),
    ("last March I went skiing", "2026-03"),
    ("in September I will start school", "2026-09"),
    ("akhir pekan lalu saya mendaki", "2026-07"),
    ("besok saya ke Bali", "2026-07-31"),
    ("bulan depan saya pindah", "2026-08"),
    ("Sabtu depan saya menikah", "2026-08-01"),
    ("hari Minggu saya sudah ke gereja", "2026-07-26"),
    ("上周末我去爬山了", "2026-07"),
    ("明天我要去北京", "2026-07-31"),
    ("下个月我要搬家", "2026-08"),
    ("下周六我结婚", "2026-08-08"),
    ("去年夏天我去了日本", "2025"),
    ("สุดสัปดาห์ที่แล้วฉันไปทะเล", "2026-07"),
    ("พรุ่งนี้ฉันจะไปเชียงใหม่", "2026-07-31"),
    ("เดือนหน้าฉันจะย้ายบ้าน", "2026-08"),
    ("วันเสาร์หน้าฉันจะแต่งงาน", "2026-08-01"),
    ("หน้าร้อนที่แล้วฉันไปญี่ปุ่น", "2025"),
])
def test_weekends_weekdays_months_seasons_and_plans(text: str, expected: str) -> None:
    assert resolve_date(text, TODAY) == expected


@pytest.mark.parametrize("text", [
    "back in college I played rugby",
    "a few years ago I moved to Lisbon",
    "on Sunday we have the demo",  # no tense: a habit or a plan, the rules cannot tell
    "waktu kuliah saya main band",
    "小时候我住在上海",
    "ตอนเด็กฉันอยู่เชียงใหม่",
])
def test_a_period_the_rules_cannot_place_gets_no_date_and_keeps_its_words(text: str) -> None:
    assert resolve_date(text, TODAY) is None
    assert strip_date_phrase(text, TODAY) == text


@pytest.mark.parametrize("text", ["I work out every Sunday", "saya olahraga tiap hari Minggu", "这周天气很好",
                                  "I am preparing tomorrow's release notes"])
def test_habits_and_lookalikes_are_not_dates(text: str) -> None:
    assert resolve_date(text, TODAY) == TODAY.isoformat()


@pytest.mark.parametrize(("text", "stripped"), [
    ("Just yesterday, I was surfing.", "I was surfing."),
    ("I was surfing yesterday.", "I was surfing."),
    ("I went hiking last weekend with Ana", "I went hiking with Ana"),
    ("my sister's wedding is next Saturday", "my sister's wedding is on Saturday"),
    ("last summer I visited Japan", "in summer I visited Japan"),
    ("we moved offices last month", "we moved offices"),
    ("去年夏天我去了日本", "夏天我去了日本"),
])
def test_removing_the_phrase_leaves_a_sentence(text: str, stripped: str) -> None:
    assert strip_date_phrase(text, TODAY) == stripped


def test_plans_are_marked_and_events_are_not() -> None:
    assert mark_planned("I'm flying to Bali.", "tomorrow I'm flying to Bali", TODAY) == "I'm flying to Bali (planned)."
    assert mark_planned("我要去北京", "明天我要去北京", TODAY) == "我要去北京 (planned)"
    assert mark_planned("We released v2.", "last Friday we released v2", TODAY) == "We released v2."


def test_the_turn_day_is_the_local_day_of_its_own_offset() -> None:
    ts = datetime(2026, 7, 30, 1, 0, tzinfo=timezone(timedelta(hours=7)))  # 2026-07-29 18:00 UTC
    turn = Turn(user_id="u", turn_id="t", timestamp=ts, messages=[Message(role="user", content="x")])
    assert turn.today == date(2026, 7, 30)
    assert resolve_date("yesterday I moved", turn.today) == "2026-07-29"
    utc = datetime(2026, 7, 29, 20, 0, tzinfo=timezone.utc)
    utc_turn = Turn(user_id="u", turn_id="t", timestamp=utc, messages=[Message(role="user", content="x")])
    assert utc_turn.today_in(parse_time_zone("Asia/Jakarta")) == date(2026, 7, 30)
    assert utc_turn.today_in(parse_time_zone("UTC+7")) == date(2026, 7, 30)
    assert utc_turn.today_in(parse_time_zone("WIB")) == date(2026, 7, 30)
    assert utc_turn.today_in(parse_time_zone("not a zone")) == date(2026, 7, 29)


def test_the_engine_dates_in_the_users_time_zone() -> None:
    engine = OfflineEngine()
    utc = datetime(2026, 7, 29, 20, 0, tzinfo=timezone.utc)  # 03:00 on the 30th in Jakarta
    turn = Turn(user_id="u", turn_id="t", timestamp=utc,
                messages=[Message(role="user", content="Yesterday we deployed the billing service to production.")])
    user_md = "# USER\n\n## Identity\n- Time zone: Asia/Jakarta\n"
    dated = [d.date for d in engine.classify(turn, user_md, "# MEMORY\n").decisions if d.route == "memory"]
    assert dated == ["2026-07-29"]
    plain = [d.date for d in engine.classify(turn, "# USER\n", "# MEMORY\n").decisions if d.route == "memory"]
    assert plain == ["2026-07-28"]


def test_a_plan_is_dated_on_its_day_and_marked_in_the_entry() -> None:
    engine = OfflineEngine()
    ts = datetime(2026, 7, 30, 9, 0, tzinfo=timezone.utc)
    turn = Turn(user_id="u", turn_id="t", timestamp=ts,
                messages=[Message(role="user", content="Next Saturday we will deploy the billing service to production.")])
    memory = [d for d in engine.classify(turn, "# USER\n", "# MEMORY\n").decisions if d.route == "memory"]
    assert [d.date for d in memory] == ["2026-08-01"]
    assert "(planned)" in (memory[0].entry or "")
