"""Chinese time phrases ("昨天", "上周末", "5月3日", "两年前") and the words read around them."""

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
    this_week,
    unit_back,
    unplaced,
    weekday,
    weekend,
    weeks,
    year,
)
from pipeline.engines.offline.lang.contract import DateRule, DateWords, Placement

_NUM = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
        "十一": 11, "十二": 12}
_UNITS = {"day": ("天", "日"), "week": ("周", "星期", "礼拜"), "month": ("月", "个月"), "year": ("年",)}
_WEEKDAY_NUMBER = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}  # Monday = 0
_SEASON_WORDS = {"春天": "spring", "春季": "spring", "夏天": "summer", "夏季": "summer", "秋天": "autumn", "秋季": "autumn",
                 "冬天": "winter", "冬季": "winter"}
_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_INT = r"(\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"


def _zh_int(token: str) -> int:
    """"8", "八", "十五", "二十三" -> 8, 8, 15, 23."""
    if token.isdigit():
        return int(token)
    if "十" not in token:
        return _DIGITS[token]
    tens, _, ones = token.partition("十")
    return (_DIGITS[tens] if tens else 1) * 10 + (_DIGITS[ones] if ones else 0)


def _which(word: str | None) -> str:
    return {"上": "last", "下": "next", "这": "this", "本": "this", "今": "this", "去": "last", "明": "next"}.get(word or "", "bare")


# A day of a month, said outright ("5月3日", "上个月3号").
_DAY_RULES: tuple[DateRule, ...] = (
    (lazy_compile(rf"(?:(去|今|明)年|(\d{{4}})\s*年)?\s*{_INT}\s*月\s*{_INT}\s*[日号號]"),
     lambda m, t, s: day_of_month(_zh_int(m.group(3)), _zh_int(m.group(4)), t, s,
                                  int(m.group(2)) if m.group(2) else (t.year + {"去": -1, "今": 0, "明": 1}[m.group(1)]
                                                                       if m.group(1) else None))),
    (lazy_compile(rf"(上|下|这|本)(?:个)?月\s*{_INT}\s*[日号號]"),
     lambda m, t, s: Placement(months_back(t, {"上": 1, "下": -1}.get(m.group(1), 0)).replace(day=_zh_int(m.group(2))))),
)
_RULES: tuple[DateRule, ...] = (
    (lazy_compile(r"小时候|上学(?:的)?时候|读书(?:的)?时候|大学(?:的)?时(?:候)?|年轻(?:的)?时候|以前|很久以前|几年前|好几年前|多年前"),
     unplaced),
    (lazy_compile(r"前天"), days(-2)),
    (lazy_compile(r"后天"), days(2)),
    (lazy_compile(r"昨天|昨日|昨晚"), days(-1)),
    (lazy_compile(r"明天|明早|明晚|明日"), days(1)),
    (lazy_compile(r"(上|下|这|本)(?:个)?(?:周末|星期末|礼拜末)|(?<![上下这本个每])周末"),
     lambda m, t, s: weekend(_which(m.group(1)), t, s)),
    (lazy_compile(r"(?<!每)(上|下|这|本)?(?:个)?(?:周|星期|礼拜)([一二三四五六日]|天(?!气))"),
     lambda m, t, s: (weekday("bare", _WEEKDAY_NUMBER[m.group(2)], t, s) if not m.group(1)
                      else Placement(this_week(t, _WEEKDAY_NUMBER[m.group(2)],
                                               {"上": -1, "下": 1}.get(m.group(1), 0))))),
    (lazy_compile(r"上(?:个)?(?:周|星期|礼拜)"), weeks(-1)),
    (lazy_compile(r"下(?:个)?(?:周|星期|礼拜)"), weeks(1)),
    (lazy_compile(r"(去|今|明)年(春天|春季|夏天|夏季|秋天|秋季|冬天|冬季)"),
     lambda m, t, s: season("this", _SEASON_WORDS[m.group(2)], t, s, t.year + {"去": -1, "今": 0, "明": 1}[m.group(1)])),
    (lazy_compile(r"(去|今|明)年(\d{1,2}|十[一二]?|[一二三四五六七八九])月"),
     lambda m, t, s: month("this", number(m.group(2), _NUM), t, s, t.year + {"去": -1, "今": 0, "明": 1}[m.group(1)])),
    (lazy_compile(r"上(?:个)?月"), const("month", lambda t: months_back(t, 1))),
    (lazy_compile(r"下(?:个)?月"), const("month", lambda t: months_back(t, -1))),
    (lazy_compile(rf"((?:19|20)\d{{2}})\s*年\s*{_INT}\s*月(?:份)?"),
     lambda m, t, s: month("this", _zh_int(m.group(2)), t, s, int(m.group(1)))),
    (lazy_compile(r"((?:19|20)\d{2})\s*年(?![代\d])"), lambda m, t, s: explicit_year(int(m.group(1)), t)),
    (lazy_compile(r"去年"), lambda m, t, s: year(-1, t)),
    (lazy_compile(r"明年"), lambda m, t, s: year(1, t)),
    (lazy_compile(r"(\d+|[一两二三四五六七八九十])\s*(天|个?星期|周|个月|年)前"),
     lambda m, t, s: unit_back(t, number(m.group(1), _NUM), grain_of(m.group(2).lstrip("个"), _UNITS))),
    (lazy_compile(r"(?<![\d年])(\d{1,2}|十[一二]?|[一二三四五六七八九])月(?![\d一二三四五六七八九十]+[日号])(?:份)?"),
     lambda m, t, s: month("bare", number(m.group(1), _NUM), t, s) if 1 <= number(m.group(1), _NUM) <= 12 else None),
    (lazy_compile(r"今天|今早|今晚|今日"), days(0)),
)
_WEEKDAY_IN = lazy_compile(r"(?:周|星期|礼拜)[一二三四五六日天]")


def _weekday_said(words: str) -> str | None:
    m = _WEEKDAY_IN.search(words)
    return m.group(0) if m else None


DATES = DateWords(
    day_rules=_DAY_RULES,
    rules=_RULES,
    future=r"打算|准备|计划|将要|即将|(?<![重需主只不])要(?![求是])|会(?:去|在|来|有)",
    past=r"了|过(?!年)|刚",
    relative=r"[上下这本去今明前昨后]",
    evaluation=lazy_compile(
        r"^\s*(?:过得)?(?:真是|真的|真|太|好|很|超|特别|非常|挺|蛮|有点|格外|可)?(?:棒|好玩|开心|忙|累|疯狂|精彩|难忘|有意思|"
        r"有趣|不错|糟糕|热闹|充实|辛苦|紧张|刺激|美好|愉快|爽|美|惨|无聊|顺利|完美|难熬|漫长|忙碌|好)"
        r"(?:了|啊|呀|哦|哈|啦|极了|死了|得很|得不得了)*[\s!！。.?？~～…]*(?:[，,；;：:]|$)"
    ),
    copula_after=lazy_compile(r"^\s*是"),
    copula_before=r"是|在",
    orphan_before=r"(?<=[\u4e00-\u9fff])(?:在|于|从)",
    lead_in=r"那|所以|然后|还有",
    trailer=r"[啊呀哦哈啦嘛呢吧]",
    weekday_said=_weekday_said,
    season_labels={"spring": "春天", "summer": "夏天", "autumn": "秋天", "winter": "冬天"},
    season_said="{}",
    label_space=False,
    anchor_join="",  # no comma: a subject the rules restore goes before the phrase ("我上周...")
)
