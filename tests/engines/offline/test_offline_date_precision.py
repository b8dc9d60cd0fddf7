"""Issue 29: an entry's date says what the user said and no more, and its text keeps what happened.

Every sentence here is written for these tests. The turn is Thursday 2026-07-30: yesterday is 07-29, last
Sunday 07-26, last week Monday 07-20 to Sunday 07-26 (all July), last month June, last year 2025.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timezone

import pytest

from pipeline.engines.offline import OfflineEngine
from pipeline.engines.offline.dates import resolve_date, strip_date_phrase
from pipeline.types import Decision, Message, Turn

TODAY = date(2026, 7, 30)
ENGINE = OfflineEngine()


def decisions(text: str, when: datetime = datetime(2026, 7, 30, 9, 0, tzinfo=timezone.utc)) -> list[Decision]:
    turn = Turn(user_id="u", turn_id="t", timestamp=when, messages=[Message(role="user", content=text)])
    return ENGINE.classify(turn, "", "").decisions


def entries(text: str) -> list[Decision]:
    return [d for d in decisions(text) if d.route == "memory" and d.op == "append"]


# -- 1. the date at the precision said ------------------------------------------------------------------

PRECISION = [
    # a day
    ("Yesterday we adopted a puppy.", "2026-07-29", "puppy"),
    ("On Sunday I ran my first half marathon.", "2026-07-26", "half marathon"),
    ("On May 3 we signed the lease for the new office.", "2026-05-03", "lease"),
    ("Kemarin kami adopsi anak anjing.", "2026-07-29", "anak anjing"),
    ("Hari Minggu saya sudah lari half marathon pertama.", "2026-07-26", "half marathon"),
    ("Pada 3 Mei kami tanda tangan sewa kantor baru.", "2026-05-03", "sewa kantor"),
    ("昨天我们领养了一只小狗。", "2026-07-29", "小狗"),
    ("上周日我跑完了第一个半程马拉松。", "2026-07-26", "半程马拉松"),
    ("5月3日我们签了新办公室的租约。", "2026-05-03", "租约"),
    ("เมื่อวานเรารับลูกหมามาเลี้ยง", "2026-07-29", "ลูกหมา"),
    ("วันอาทิตย์ที่แล้วผมวิ่งฮาล์ฟมาราธอนครั้งแรก", "2026-07-26", "ฮาล์ฟมาราธอน"),
    ("วันที่ 3 พฤษภาคมเราเซ็นสัญญาเช่าออฟฟิศใหม่", "2026-05-03", "สัญญาเช่า"),
    # a month
    ("Last month I started a pottery class.", "2026-06", "pottery"),
    ("Bulan lalu saya mulai kelas tembikar.", "2026-06", "tembikar"),
    ("上个月我开始上陶艺课了。", "2026-06", "陶艺课"),
    ("เดือนที่แล้วผมเริ่มเรียนปั้นดินเผา", "2026-06", "ปั้นดินเผา"),
    # a year
    ("Last year we moved the team to Lisbon.", "2025", "Lisbon"),
    ("Tahun lalu kami pindahkan tim ke Lisbon.", "2025", "Lisbon"),
    ("去年我们把团队搬到了里斯本。", "2025", "里斯本"),
    ("ปีที่แล้วเราย้ายทีมไปลิสบอน", "2025", "ลิสบอน"),
]


@pytest.mark.parametrize(("text", "stamp", "what"), PRECISION)
def test_an_entry_is_dated_at_the_precision_the_user_gave(text: str, stamp: str, what: str) -> None:
    found = entries(text)
    assert [d.date for d in found] == [stamp]
    assert what in (found[0].entry or "")


@pytest.mark.parametrize("text", ["back in college we won the robotics contest", "waktu kuliah kami juara lomba robot",
                                  "上大学的时候我们赢了机器人比赛", "สมัยเรียนเราชนะการแข่งขันหุ่นยนต์"])
def test_a_period_that_cannot_be_placed_keeps_its_words_and_gets_no_date(text: str) -> None:
    assert resolve_date(text, TODAY) is None
    assert strip_date_phrase(text, TODAY) == text


@pytest.mark.parametrize(("text", "stamp"), [
    ("last week we repainted the studio", "2026-07"),  # Jul 20-26
    ("last weekend we went camping", "2026-07"),
    ("minggu lalu kami mengecat studio", "2026-07"),
    ("上周末我们去露营了", "2026-07"),
    ("สัปดาห์ที่แล้วเราทาสีสตูดิโอใหม่", "2026-07"),
    ("last summer we sailed to Crete", "2025"),
    ("in 2019 I moved to Canada", "2019"),
    ("tahun 2019 saya pindah ke Kanada", "2019"),
    ("2019年我搬到了加拿大", "2019"),
    ("ปี 2562 ผมย้ายไปแคนาดา", "2019"),  # a Buddhist Era year
    ("2025年5月我换了工作", "2025-05"),
])
def test_weeks_weekends_seasons_and_named_years_are_no_day(text: str, stamp: str) -> None:
    assert resolve_date(text, TODAY) == stamp


def test_a_week_across_two_months_is_dated_to_its_year() -> None:
    # Thursday 2026-08-06: last week is Jul 27 - Aug 2, which neither July nor August holds.
    assert resolve_date("last week we repainted the studio", date(2026, 8, 6)) == "2026"
    # A week across New Year goes to the year that holds most of its days: Dec 29 - Jan 4 -> 2026.
    assert resolve_date("last week we repainted the studio", date(2026, 1, 8)) == "2026"


# -- 2. the entry keeps what happened, and says no date the user did not -----------------------------------

_WEEKDAYS_AND_MONTHS = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|"
    r"august|september|october|november|december|senin|selasa|rabu|kamis|jumat|sabtu|minggu|januari|februari|"
    r"maret|juni|juli|agustus|oktober|desember)\b|\d|星期|周[一二三四五六日天]|[一二三四五六七八九十]+月|"
    r"วัน(?:จันทร์|อังคาร|พุธ|พฤหัส|ศุกร์|เสาร์|อาทิตย์)|มกราคม|กรกฎาคม|สิงหาคม|มิถุนายน",
    re.IGNORECASE,
)


def _said(entry: str, text: str) -> None:
    """Every weekday, month and number in the entry is one the user wrote."""
    for m in _WEEKDAYS_AND_MONTHS.finditer(entry):
        assert m.group(0).casefold() in text.casefold(), f"{m.group(0)!r} in {entry!r} was never said in {text!r}"


@pytest.mark.parametrize(("text", "stamp", "keeps", "drops"), [
    ("Last week was wild, I got noticed by fashion editors", "2026-07", "noticed by fashion editors", "wild"),
    ("Minggu lalu seru banget, karyaku dipajang di majalah mode", "2026-07", "dipajang di majalah mode", "seru"),
    ("上周太疯狂了，我被时尚编辑注意到了", "2026-07", "时尚编辑", "疯狂"),
    ("สัปดาห์ที่แล้วสนุกมาก ผมได้รับความสนใจจากบรรณาธิการแฟชั่น", "2026-07", "บรรณาธิการแฟชั่น", "สนุก"),
])
def test_the_time_phrase_leaves_without_a_date_in_words(text: str, stamp: str, keeps: str, drops: str) -> None:
    found = entries(text)
    assert len(found) == 1 and found[0].date == stamp
    entry = found[0].entry or ""
    assert keeps in entry and drops not in entry
    _said(entry, text)


@pytest.mark.parametrize(("text", "keeps"), [
    ("Last night was amazing! We celebrated my daughter's birthday with a concert", ("birthday", "concert")),
    ("Tadi malam seru banget! Kami merayakan ulang tahun putriku dengan nonton konser", ("ulang tahun", "konser")),
    ("昨晚太棒了！我们带女儿去听音乐会庆祝她的生日", ("生日", "音乐会")),
    ("เมื่อคืนสนุกมาก เราฉลองวันเกิดลูกสาวด้วยการไปดูคอนเสิร์ต", ("วันเกิด", "คอนเสิร์ต")),
])
def test_an_evening_that_was_amazing_keeps_what_happened_and_its_day(text: str, keeps: tuple[str, str]) -> None:
    found = entries(text)
    assert [d.date for d in found] == ["2026-07-29"]
    entry = found[0].entry or ""
    assert all(word in entry for word in keeps), entry
    _said(entry, text)
    # the evaluation alone writes nothing (an entry needs an event)
    assert all(d.route == "skip" for d in decisions(re.split(r"[!！]| (?=[\u0e00-\u0e7f])", text)[0]))


@pytest.mark.parametrize(("text", "keeps"), [
    ("Last week, I built a new website for customers to make orders.", "website"),
    ("Minggu lalu, saya bikin website baru buat pelanggan pesan barang.", "website"),
    ("上周，我做了一个让客户下单的新网站。", "网站"),
    ("สัปดาห์ที่แล้ว ผมทำเว็บไซต์ใหม่ให้ลูกค้าสั่งของ", "เว็บไซต์"),
])
def test_a_time_phrase_split_from_its_statement_still_dates_it(text: str, keeps: str) -> None:
    found = entries(text)
    assert [d.date for d in found] == ["2026-07"]  # not the day of the conversation
    assert keeps in (found[0].entry or "")
    assert all(d.entry for d in decisions(text) if d.route == "memory")  # no empty entry for "Last week"


@pytest.mark.parametrize(("text", "stripped"), [
    ("my sister's wedding is next Saturday", "my sister's wedding is on Saturday"),  # the user said Saturday
    ("the wedding is tomorrow", "the wedding"),
    ("Yesterday was my daughter's birthday", "my daughter's birthday"),
    ("婚礼是下周六", "婚礼是周六"),
    ("pernikahannya adalah Sabtu depan", "pernikahannya adalah hari Sabtu"),
    ("งานแต่งคือวันเสาร์หน้า", "งานแต่งคือวันเสาร์"),
    ("昨天是我女儿的生日", "我女儿的生日"),
])
def test_a_time_phrase_as_predicate_or_subject_leaves_no_date_in_words(text: str, stripped: str) -> None:
    assert strip_date_phrase(text, TODAY) == stripped


@pytest.mark.parametrize("text", [
    "Last week was wild, I got noticed by fashion editors", "Last night was amazing! We had a concert",
    "Two weeks ago we hired a second designer.", "Last month I started a pottery class.", "next weekend we fly to Bali",
    "Kemarin seru banget! Kami nonton konser", "上周太疯狂了，我被时尚编辑注意到了", "เมื่อคืนสนุกมาก เราไปดูคอนเสิร์ต",
])
def test_no_entry_names_a_weekday_month_or_number_the_user_did_not_say(text: str) -> None:
    for d in entries(text):
        _said(d.entry or "", text)


@pytest.mark.parametrize(("text", "entry"), [
    ("my daughter was born on May 3", "my daughter was born"),
    ("anak saya lahir pada 3 Mei", "anak saya lahir"),
    ("我女儿5月3日出生", "我女儿出生"),
    ("ลูกสาวผมเกิดวันที่ 3 พฤษภาคม", "ลูกสาวผมเกิด"),
    ("I graduated in 2018", "I graduated"),
])
def test_a_date_the_user_wrote_out_stays_in_a_fact_and_leaves_an_entry(text: str, entry: str) -> None:
    """"May 3" in "born on May 3" is the fact itself; in a MEMORY.md entry the date already says it."""
    assert strip_date_phrase(text, TODAY) == text
    assert strip_date_phrase(text, TODAY, keep_absolute=False) == entry


def test_a_birthday_said_outright_keeps_its_day_in_the_profile() -> None:
    facts = [d for d in decisions("My daughter was born on May 3") if d.route == "user"]
    assert facts and "May 3" in (facts[0].value or "")
