"""Thai time phrases ("เมื่อวาน", "สัปดาห์ที่แล้ว", "3 พฤษภาคม", "สองปีก่อน") and the words read around them."""

from __future__ import annotations

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.date_rules import (
    const,
    day_of_month,
    days,
    explicit_year,
    grain_of,
    month,
    months_back,
    number,
    season,
    unit_back,
    unplaced,
    weekday,
    weekend,
    weeks,
    year,
)
from pipeline.engines.offline.lang.contract import DateRule, DateWords

_NUM = {"หนึ่ง": 1, "สอง": 2, "สาม": 3, "สี่": 4, "ห้า": 5, "หก": 6, "เจ็ด": 7, "แปด": 8, "เก้า": 9, "สิบ": 10}
_UNITS = {"day": ("วัน",), "week": ("สัปดาห์", "อาทิตย์"), "month": ("เดือน",), "year": ("ปี",)}
# Monday = 0, January = 1.
WEEKDAYS = ("จันทร์", "อังคาร", "พุธ", "พฤหัสบดี", "ศุกร์", "เสาร์", "อาทิตย์")
MONTHS = ("มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน", "กรกฎาคม", "สิงหาคม", "กันยายน",
          "ตุลาคม", "พฤศจิกายน", "ธันวาคม")
_SEASON_WORDS = {"ใบไม้ผลิ": "spring", "ร้อน": "summer", "ใบไม้ร่วง": "autumn", "หนาว": "winter"}

_WEEKDAY = "|".join(WEEKDAYS) + "|พฤหัส"
_MONTH = "|".join(MONTHS)
_N = r"(\d+|หนึ่ง|สอง|สาม|สี่|ห้า|หก|เจ็ด|แปด|เก้า|สิบ)"


def _weekday_number(name: str) -> int:
    return 3 if name.startswith("พฤหัส") else WEEKDAYS.index(name)


def _thai_year(year: int) -> int:
    """Thai years are usually Buddhist Era (2569 = 2026)."""
    return year - 543 if year > 2400 else year


def _which(word: str | None) -> str:
    """ที่แล้ว/ก่อน -> last; หน้า/ถัดไป -> next; นี้ -> this."""
    word = (word or "").strip().lower()
    if word in ("ที่แล้ว", "ก่อน"):
        return "last"
    if word in ("หน้า", "ถัดไป"):
        return "next"
    return "this" if word == "นี้" else "bare"


# A day of a month, said outright ("3 พฤษภาคม", "วันที่ 3 พฤษภาคม 2569").
_DAY_RULES: tuple[DateRule, ...] = (
    (lazy_compile(rf"(?:วันที่\s*)?(\d{{1,2}})\s*({_MONTH})(?:\s*(?:พ\.ศ\.|ค\.ศ\.)?\s*(\d{{4}}))?"),
     lambda m, t, s: day_of_month(MONTHS.index(m.group(2)) + 1, int(m.group(1)), t, s,
                                  _thai_year(int(m.group(3))) if m.group(3) else None)),
)
_RULES: tuple[DateRule, ...] = (
    (lazy_compile(r"ตอนเด็ก(?:ๆ)?|สมัย(?:เด็ก|เรียน|มหาลัย|มหาวิทยาลัย|ก่อน)|ตอนเรียน|หลายปีก่อน|เมื่อก่อน|นานมาแล้ว"), unplaced),
    (lazy_compile(r"เมื่อวานซืน"), days(-2)),
    (lazy_compile(r"มะรืน(?:นี้)?"), days(2)),
    (lazy_compile(r"เมื่อวาน(?:นี้)?|เมื่อคืน(?:นี้)?"), days(-1)),
    (lazy_compile(r"พรุ่งนี้"), days(1)),
    (lazy_compile(r"(?:สุดสัปดาห์|เสาร์อาทิตย์|วันหยุดสุดสัปดาห์)\s*(ที่แล้ว|ก่อน|นี้|หน้า)"),
     lambda m, t, s: weekend(_which(m.group(1)), t, s)),
    (lazy_compile(rf"(?<!ทุก)วัน({_WEEKDAY})\s*(ที่แล้ว|ก่อน|นี้|หน้า)?"),
     lambda m, t, s: weekday(_which(m.group(2)), _weekday_number(m.group(1)), t, s)),
    (lazy_compile(r"(?:สัปดาห์|อาทิตย์)(?:ที่แล้ว|ก่อน)"), weeks(-1)),
    (lazy_compile(r"(?:สัปดาห์|อาทิตย์)(?:หน้า|ถัดไป)"), weeks(1)),
    (lazy_compile(r"(?:ฤดู|หน้า)(ใบไม้ผลิ|ร้อน|ใบไม้ร่วง|หนาว)\s*(ที่แล้ว|ปีที่แล้ว|นี้|ปีนี้|หน้า|ปีหน้า)"),
     lambda m, t, s: season(_which(m.group(2).replace("ปี", "")), _SEASON_WORDS[m.group(1)], t, s)),
    (lazy_compile(rf"(?:เดือน)?({_MONTH})\s*(ที่แล้ว|นี้|หน้า)?"),
     lambda m, t, s: month(_which(m.group(2)), MONTHS.index(m.group(1)) + 1, t, s)),
    (lazy_compile(r"เดือน(?:ที่แล้ว|ก่อน)"), const("month", lambda t: months_back(t, 1))),
    (lazy_compile(r"เดือน(?:หน้า|ถัดไป)"), const("month", lambda t: months_back(t, -1))),
    (lazy_compile(r"ปี(?:ที่แล้ว|ก่อน)"), lambda m, t, s: year(-1, t)),
    (lazy_compile(r"ปี\s*(?:พ\.ศ\.|ค\.ศ\.)?\s*(\d{4})(?!\d)"), lambda m, t, s: explicit_year(_thai_year(int(m.group(1))), t)),
    (lazy_compile(r"ปีหน้า"), lambda m, t, s: year(1, t)),
    (lazy_compile(rf"{_N}\s*(วัน|สัปดาห์|อาทิตย์|เดือน|ปี)\s*(?:ที่แล้ว|ก่อน)"),
     lambda m, t, s: unit_back(t, number(m.group(1), _NUM), grain_of(m.group(2), _UNITS))),
    (lazy_compile(r"วันนี้|เมื่อเช้า|คืนนี้"), days(0)),
)
_WEEKDAY_IN = lazy_compile(rf"วัน(?:{_WEEKDAY})")


def _weekday_said(words: str) -> str | None:
    m = _WEEKDAY_IN.search(words)
    return m.group(0) if m else None


DATES = DateWords(
    day_rules=_DAY_RULES,
    rules=_RULES,
    future=r"จะ|วางแผน",
    past=r"แล้ว|ไปมา",
    relative=r"ที่แล้ว|ก่อน|หน้า|นี้|เมื่อวาน|พรุ่งนี้|มะรืน|เมื่อคืน|ถัดไป",
    evaluation=lazy_compile(
        r"^\s*(?:มัน|ก็|นี่|นั้น)*(?:สนุก|เหนื่อย|ยุ่ง|วุ่นวาย|ดี|เยี่ยม|สุดยอด|มันส์|ประทับใจ|เจ๋ง|แย่|หนัก|วุ่น|ชิล|สบาย|"
        r"เพลิน|น่าจดจำ|วิเศษ|เศร้า|ตื่นเต้น|ยาวนาน|โหด)(?:มาก|สุดๆ|ๆ|จัง|เลย|ที่สุด|ครับ|ค่ะ|คะ|นะ|จริงๆ|ไป|ดี|อ่ะ|อะ|555+)*"
        r"[!.?…~]*(?:\s|$)"
    ),
    copula_after=lazy_compile(r"^\s*(?:คือ|เป็น)\s*"),
    copula_before=r"คือ|เป็น|ตรงกับ",
    orphan_before="",
    lead_in=r"แล้วก็|แล้ว",
    trailer=r"ครับ|ค่ะ|คะ|นะ|จ้า|555+",
    weekday_said=_weekday_said,
    season_labels={"spring": "ฤดูใบไม้ผลิ", "summer": "หน้าร้อน", "autumn": "ฤดูใบไม้ร่วง", "winter": "หน้าหนาว"},
    season_said="{}",
    label_space=True,
    anchor_join=" ",
)
