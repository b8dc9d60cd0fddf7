"""Indonesian time phrases ("kemarin", "minggu lalu", "3 Mei", "dua tahun lalu") and the words read around them."""

from __future__ import annotations

import re

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

_NUM = {"satu": 1, "se": 1, "dua": 2, "tiga": 3, "empat": 4, "lima": 5, "enam": 6, "tujuh": 7, "delapan": 8, "sepuluh": 10}
_UNITS = {"day": ("hari",), "week": ("minggu", "pekan"), "month": ("bulan",), "year": ("tahun",)}
# Monday = 0, January = 1.
WEEKDAYS = ("senin", "selasa", "rabu", "kamis", "jumat", "sabtu", "minggu")
MONTHS = ("januari", "februari", "maret", "april", "mei", "juni", "juli", "agustus", "september", "oktober",
          "november", "desember")
_SEASON_WORDS = {"semi": "spring", "panas": "summer", "gugur": "autumn", "dingin": "winter"}

_WEEKDAY = "|".join(WEEKDAYS)
_MONTH = "|".join(MONTHS)
_N = r"(\d+|satu|dua|tiga|empat|lima|enam|tujuh|delapan|sepuluh)"


def _which(word: str | None) -> str:
    """lalu/kemarin -> last; depan -> next; ini -> this."""
    word = (word or "").strip().lower()
    if word in ("lalu", "kemarin", "kemaren"):
        return "last"
    if word == "depan":
        return "next"
    return "this" if word == "ini" else "bare"


# A day of a month, said outright ("3 Mei", "tanggal 3 Mei 2025").
_DAY_RULES: tuple[DateRule, ...] = (
    (lazy_compile(rf"\b(?:pada\s+)?(?:(?:tanggal|tgl\.?)\s+)?(\d{{1,2}})\s+({_MONTH})\b(?:\s+(\d{{4}})\b)?", re.I),
     lambda m, t, s: day_of_month(MONTHS.index(m.group(2).lower()) + 1, int(m.group(1)), t, s,
                                  int(m.group(3)) if m.group(3) else None)),
)
_RULES: tuple[DateRule, ...] = (
    (lazy_compile(r"\b(?:dulu(?:nya)?|zaman dulu|waktu (?:kecil|kuliah|sekolah|SMA|SMP|SD|muda)|semasa (?:kecil|kuliah|sekolah)|"
                  r"beberapa (?:hari|minggu|bulan|tahun) (?:yang )?lalu|bertahun-tahun (?:yang )?lalu)\b", re.I), unplaced),
    (lazy_compile(r"\bkemarin\s+lusa\b", re.I), days(-2)),
    (lazy_compile(r"\blusa\b", re.I), days(2)),
    (lazy_compile(r"\b(?:besok|besoknya|bsk)\b(?!-)", re.I), days(1)),
    (lazy_compile(r"\b(?:akhir\s+(?:pekan|minggu)|weekend)\s+(lalu|kemarin|kemaren|ini|depan)\b", re.I),
     lambda m, t, s: weekend(_which(m.group(1)), t, s)),
    (lazy_compile(rf"\b(?:hari\s+)?({_WEEKDAY})\s+(lalu|kemarin|kemaren|ini|depan)\b", re.I),
     lambda m, t, s: (None if m.group(1).lower() == "minggu" and not m.group(0).lower().startswith("hari")
                      else weekday(_which(m.group(2)), WEEKDAYS.index(m.group(1).lower()), t, s))),
    (lazy_compile(rf"(?<!tiap )\b(?:pada\s+)?hari\s+({_WEEKDAY})\b|\b(?:pada|tiap)\s+({_WEEKDAY})\b", re.I),
     lambda m, t, s: (None if m.group(0).lower().startswith("tiap") else
                      weekday("bare", WEEKDAYS.index((m.group(1) or m.group(2)).lower()), t, s))),
    (lazy_compile(r"\b(?:minggu|pekan)\s+(?:lalu|kemarin|kemaren)\b", re.I), weeks(-1)),
    (lazy_compile(r"\b(?:minggu|pekan)\s+depan\b", re.I), weeks(1)),
    (lazy_compile(r"\bbulan\s+(?:lalu|kemarin|kemaren)\b", re.I), const("month", lambda t: months_back(t, 1))),
    (lazy_compile(r"\bbulan\s+depan\b", re.I), const("month", lambda t: months_back(t, -1))),
    (lazy_compile(r"\btahun\s+(?:lalu|kemarin|kemaren)\b", re.I), lambda m, t, s: year(-1, t)),
    (lazy_compile(r"\btahun\s+depan\b", re.I), lambda m, t, s: year(1, t)),
    (lazy_compile(r"\bmusim\s+(semi|panas|gugur|dingin)\s+(lalu|kemarin|ini|depan)\b", re.I),
     lambda m, t, s: season(_which(m.group(2)), _SEASON_WORDS[m.group(1).lower()], t, s)),
    (lazy_compile(rf"\b(?:bulan\s+)?({_MONTH})\s+(lalu|kemarin|ini|depan)\b|\b(?:bulan|pada|sejak)\s+({_MONTH})\b(?:\s+(\d{{4}}))?", re.I),
     lambda m, t, s: month(_which(m.group(2)), MONTHS.index((m.group(1) or m.group(3)).lower()) + 1, t, s,
                           int(m.group(4)) if m.group(4) else None)),
    (lazy_compile(r"\b(?:(?:pada|di)\s+)?tahun\s+((?:19|20)\d{2})\b(?![-/.]?\w)", re.I),
     lambda m, t, s: explicit_year(int(m.group(1)), t)),
    (lazy_compile(r"\b(?:kemarin|kmrn|kemaren|semalam|tadi malam|td malem|td malam|kemarin malam)\b", re.I), days(-1)),
    (lazy_compile(rf"\b{_N}\s+(hari|minggu|pekan|bulan|tahun)\s+(?:yang\s+)?lalu\b", re.I),
     lambda m, t, s: unit_back(t, number(m.group(1), _NUM), grain_of(m.group(2), _UNITS))),
    (lazy_compile(r"\b(?:hari\s+ini|tadi\s+(?:pagi|siang|sore|malam)|pagi\s+ini|nanti\s+malam)\b", re.I), days(0)),
)
_WEEKDAY_IN = lazy_compile(rf"\b({_WEEKDAY})\b", re.I)


def _weekday_said(words: str) -> str | None:
    m = _WEEKDAY_IN.search(words)
    return f"hari {m.group(1).capitalize()}" if m else None


DATES = DateWords(
    day_rules=_DAY_RULES,
    rules=_RULES,
    future=r"\b(?:akan|mau|bakal|berencana|rencananya|rencana|nanti)\b",
    past=r"\b(?:sudah|udah|sdh|telah|tadi|habis|barusan|baru saja)\b",
    relative=r"\b(?:lalu|kemarin|kemaren|depan|ini|besok|lusa|tadi|semalam|nanti)\b",
    evaluation=lazy_compile(
        r"^\s*(?:(?:itu|tuh|sih|tu|rasanya|benar-benar|bener-bener|sungguh|sangat|amat|cukup|lumayan|agak|super|"
        r"terlalu|begitu)\s+)*(?:seru|asyik|asik|keren|capek|capai|cape|sibuk|mantap|mantul|luar biasa|menyenangkan|"
        r"melelahkan|parah|gila|berat|indah|bagus|hebat|kacau|santai|produktif|heboh|rame|ramai|menegangkan|spesial|"
        r"istimewa|berkesan|tak terlupakan|sedih|lucu|aneh|sepi|menarik|enak|panjang|hectic|chaos|wild|amazing)"
        r"(?:\s+(?:banget|bgt|bngt|sekali|bener|deh|sih|lho|loh|kok|nih|dong|juga|parah|abis|pol))*\b[\s!.?…~]*"
        r"(?:[,;:]|\s+(?:dan|tapi|karena|soalnya|jadi|terus)\b|$)",
        re.I,
    ),
    copula_after=lazy_compile(r"^\s*(?:adalah|ialah|merupakan)\s+", re.I),
    copula_before=r"\b(?:adalah|ialah|yaitu|jatuh)",
    orphan_before=r"\b(?:pada|sejak|sampai)",
    lead_in=r"jadi|terus|nah|trus",
    trailer=r"\b(?:wkwk+|sih|deh|dong|nih|ya)\b",
    weekday_said=_weekday_said,
    season_labels={"spring": "musim semi", "summer": "musim panas", "autumn": "musim gugur", "winter": "musim dingin"},
    season_said="pada {}",
    label_space=True,
    anchor_join=", ",
)
