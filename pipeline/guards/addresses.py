"""Address detection: anchors (a street with a number, a unit, a PO box, a military address, a
Chinese/Thai/Indonesian or continental street form, a clause introduced as an address), each
widened over the rest of its clause."""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.guards.gates import Gate, Text
from pipeline.guards.identifiers import EN_MONTHS, ID_MONTHS
from pipeline.guards.kinds import ADDRESS, Span

_I = re.IGNORECASE

# Addresses: anchors (a street with a number, a unit, a PO box, a military address, a
# Chinese/Thai/Indonesian street form), then the address is widened over the rest of the clause.
_STREET_WORDS = (
    r"street|st|road|rd|avenue|ave|av|boulevard|blvd|lane|ln|drive|dr|court|ct|place|pl|way|terrace|crescent|"
    r"highway|hwy|parkway|pkwy|square|sq|circle|cir|trail|alley|row|close|mews|grove|gardens|walk|wharf|quay|"
    r"parks?|pass|union|extensions?|crossroad|crossing|prairie|squares|isle|harbou?r|radial|hill|str|"
    r"jalan|jl|jln|gang|gg"
)
_STOP_IN_STREET = frozenset(
    "the a an my your our their his her its of in on at to for from and or but with by down up over into than "
    "miles mile km kilometers minutes mins hours times years days people kids dogs cats".split()
)
_STREET_NUM_RE = lazy_compile(
    r"\b\d{1,6}(?:st|nd|rd|th|[A-Za-z])?(?:[/-]\d{1,4})?\s+((?:[^\W\d_][\w'’.-]*\s+){0,4}?)(" + _STREET_WORDS + r")\b\.?",
    _I,
)
# Suffixes that are also ordinary words ("one more way", "in a row") count only in a capitalised name.
_PLAIN_STREET_WORDS = frozenset(
    "street st road rd avenue ave boulevard blvd lane ln drive dr highway hwy parkway pkwy terrace crescent str jalan jl jln".split()
)
# Continental and Indonesian/Thai street forms: "Hersnapvej 75", "Rue de Virton 38", "Jl. Kenanga 27",
# "Wesselényi u. 94.". Found from the number backwards: numbers are rare, regex scans of words are not.
_STREET_SUFFIXES = (
    "strasse", "straße", "str.", "gasse", "weg", "vej", "veien", "vegen", "gatan", "gata", "gade", "katu", "tie", "laan",
    "straat", "plein", "utca", "allee", "damm", "graben", "platz", "kapu", "útja", "út", "u.", "ul.",
)
# Prefix words: the unambiguous ones in any case, the ones that are also ordinary words ("via",
# "gang", "plaza") only capitalised.
_STREET_PREFIXES = frozenset(
    "rue avenida calle carrera paseo travesía viale vicolo strada rua quadra piazza corso chemin impasse allée ulica "
    "jalan jl jl. jln jln. thanon".split()
)
_STREET_PREFIXES_CAPITALISED = frozenset("Via Avenue Av. Plaza Camino Ronda Largo Quai Boulevard Bd Ul. Gang Gg. Soi".split())
# "12, rue de Rivoli", "4 Paseo de la Castellana": a house number before a prefix word.
_NUMBER_THEN_PREFIX_RE = lazy_compile(
    r"\b\d{1,5}[A-Za-z]?,?\s+(?:(?i:" + "|".join(re.escape(w) for w in sorted(_STREET_PREFIXES)) + r")|"
    + "|".join(re.escape(w) for w in sorted(_STREET_PREFIXES_CAPITALISED)) + r")(?=\s)"
)
_NUMBER_AFTER_WORD_RE = lazy_compile(r"(?<=\s)\d{1,5}[A-Za-z]?\b\.?")


def _continental_anchors(s: str) -> list[tuple[int, int]]:
    anchors: list[tuple[int, int]] = []
    for m in _NUMBER_AFTER_WORD_RE.finditer(s):
        window = s[max(0, m.start() - 60) : m.start()]
        words = window.split()
        if not words:
            continue
        last = words[-1].lower()
        if len(last) > 3 and last.endswith(_STREET_SUFFIXES) or last in ("u.", "ul.", "utca", "út", "útja"):
            anchors.append((m.start() - len(window) + window.rfind(words[-1]), m.end()))
            continue
        for back, word in enumerate(reversed(words[-5:])):
            if word.lower() in _STREET_PREFIXES or word in _STREET_PREFIXES_CAPITALISED:
                first = words[-1 - back]
                anchors.append((m.start() - len(window) + window.rfind(first), m.end()))
                break
    return anchors


# A street named without a number ("on Marina Fort Street"): two or more capitalised words first,
# so that one-word landmarks ("Wall Street") stay ordinary words.
_NAMED_STREET_RE = lazy_compile(
    r"\b(?:[A-Z\u00C0-\u024F][\w'’-]+\s+){2,3}(?:Street|Road|Avenue|Lane|Drive|Boulevard|Parkway|Terrace|Crescent)\b"
)
_UNIT_RE = lazy_compile(r"\b(?:suite|ste|apt|apartment|unit|flat|room|rm|box|lantai|blok|block|no|nomor)\.?\s*#?\s*\d{1,6}\b", _I)
_STRONG_ADDR_RE = lazy_compile(
    r"\b(?:PSC|CMR|Unit)\s+\d{3,5},?\s+Box\s+\d{3,5}\b|\b(?:APO|FPO|DPO)\s+(?:AA|AE|AP)\s+\d{5}\b|"
    r"\bUS(?:NS|NV|S|CGC)\s+[A-Za-z]+|\bP\.?\s?O\.?\s+Box\s+\d+|\bkotak pos\s+\d+|"
    r"\bthe corner of\s+[^,.?!;\n]{2,60}?\s+and\s+[^,?!;\n]{2,60}?(?=[,.?!;\n]|\s+(?:after|for|when|please|because)\b|$)|"
    r"\bRT\s*\.?\s*\d{1,3}\s*/\s*RW\s*\.?\s*\d{1,3}\b",
    _I,
)
_ZH_ADDR_RE = lazy_compile(
    r"(?:[\u4e00-\u9fff]{1,8}?(?:省|自治区|市|区|县|镇|乡))*[\u4e00-\u9fff\d]{1,12}?(?:路|街|大道|道|巷|胡同|弄|里)\s*"
    r"\d{1,5}\s*号(?:\s*[\d\u4e00-\u9fff]{0,6}?(?:楼|层|室|栋|幢|单元|座))*"
)
_TH_ADDR_RE = lazy_compile(
    r"(?:บ้านเลขที่\s*)?\d{1,5}(?:/\d{1,5})?\s*(?:หมู่(?:ที่)?\s*\d+|ม\.\s*\d+|ซอย|ซ\.|ถนน|ถ\.)"
    r"[^\n?!]{0,80}?(?:\d{5}|(?=[?!\n]|$))"
)
# Words after which the rest of the clause is an address: after a strong one ("my address is")
# any clause with a number is; after a weak one ("meet me at", "send it to") it needs an address
# anchor or two numbers (house number and street number, or a postcode).
_ADDR_STRONG_TRIGGER_RE = lazy_compile(
    r"(?<!e-mail )(?<!email )(?<!\bip )(?<!\bweb )(?<!\bmac )(?<!wallet )(?<!memory )"
    r"\baddress(?:es)?\b[^:\n?!]{0,40}?(?:\bis\b|:|\bto\b)\s*|"
    r"alamat(?:\s+(?:saya|rumah|kantor|baru|ku|kami|lengkap))*\s*(?:adalah|yaitu|:|di)?\s*|"
    r"地址(?:是|为|:)?\s*|住址(?:是|:)?\s*|ที่อยู่(?:ของ(?:ฉัน|ผม))?(?:คือ|:)?\s*|บ้านเลขที่",
    _I,
)
_ADDR_WEAK_TRIGGER_RE = lazy_compile(
    r"\b(?:send|sent|ship|shipped|deliver|delivered|mail|post|taxi|move|moved|forward)\b[^\n?!.]{0,30}?\bto\s+|"
    r"\b(?:meet|see|pick) (?:me|you|us)(?: up)? at\s+|\b(?:live|lives|living|stay|staying|reside)\s+(?:at|in|on)\s+|"
    r"\bvalidate the following\?\s*|\bhere (?:they are|it is)\s*:\s*|tinggal di\s+|住在|寄到|送到",
    _I,
)
# A clause after a weak trigger with these words is a sentence, not an address ("moved to 2 teams in 3 months").
_NOT_IN_ADDRESS = frozenset(
    "in of the a an with for or to my our your his her their is was are months years days weeks hours minutes "
    "people times kids friends teams bedroom bedrooms floor floors".split()
)
_DATE_OR_TIME_RE = lazy_compile(
    rf"\b(?:{EN_MONTHS}|{ID_MONTHS})\b|\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}[:.]\d{{2}}|\d\s*(?:am|pm)\b|年|月|日", _I
)
_CLAUSE_END_RE = lazy_compile(
    r"[?!;？！；。]|\.\s+(?=(?:I|i|My|my|Please|please|The|Thanks|Thank|It|We|we|Can|Could|Would|Will|What|When|How|Also|Saya|Tolong)\b)"
    r"|\.\s*$|\s+(?:after|before|for|when|because|since|if|but|so|please|thanks|asap|tomorrow|today|tonight|yesterday|"
    r"until|instead|and i|i am|i'm|dan saya|karena|untuk|setelah|besok)\b",
    _I,
)
_ADDR_LEFT_RE = lazy_compile(r"(?:(?:\d{1,6}[A-Za-z]?|[A-Z\u00C0-\u024F][\w'’.-]*)[ \t,]+)+$")
_TIME_ONLY_RE = lazy_compile(r"^\s*\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'clock|h)?\s*$", _I)
HAS_DIGIT_RE = lazy_compile(r"\d")
_THAI_CHAR_RE = lazy_compile("[\u0e00-\u0e7f]")
_MAX_ANCHORS = 64  # more would be a list of addresses or an attack; the first ones already make it a skip


def _address_spans(s: str, t: Text, has_digit: bool) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    anchors: list[tuple[int, int]] = []
    if has_digit:
        for m in _STREET_NUM_RE.finditer(s):
            words = m.group(1).split()
            if any(w.lower().strip(".,") in _STOP_IN_STREET for w in words):
                continue
            if m.group(2).lower() not in _PLAIN_STREET_WORDS and not (
                words and m.group(2)[0].isupper() and all(w[0].isupper() for w in words)
            ):
                continue
            anchors.append(m.span())
        anchors.extend(_continental_anchors(s))
        anchors.extend(m.span() for m in _NUMBER_THEN_PREFIX_RE.finditer(s))
        if "号" in s:
            anchors.extend(m.span() for m in _ZH_ADDR_RE.finditer(s))
        if not t.ascii and _THAI_CHAR_RE.search(s):
            anchors.extend(m.span() for m in _TH_ADDR_RE.finditer(s))
    low = t.low
    if has_digit or "corner of" in low or "us" in low:
        anchors.extend(m.span() for m in _STRONG_ADDR_RE.finditer(s))
    if _has(s, _STREET_GATE):
        anchors.extend(m.span() for m in _NAMED_STREET_RE.finditer(s))
    del anchors[_MAX_ANCHORS:]
    for start, end in anchors:
        spans.append(_widen(s, start, end))
    # A clause introduced as an address ("my new address is ...", "meet me at 12 ...").
    triggers: list[tuple[re.Match[str], bool]] = []
    if _STRONG_TRIGGER_GATE.hit(t):
        triggers += [(m, True) for m in _ADDR_STRONG_TRIGGER_RE.finditer(s)]
    if has_digit and _WEAK_TRIGGER_GATE.hit(t):
        triggers += [(m, False) for m in _ADDR_WEAK_TRIGGER_RE.finditer(s)]
    for m, strong in triggers:
        start = m.end()
        stop = _CLAUSE_END_RE.search(s, start, start + 160)
        end = stop.start() if stop else len(s)
        end = min(end, start + 160)
        chunk = s[start:end]
        if not chunk.strip() or chunk.lstrip().startswith("[REDACTED"):
            continue
        anchored = any(start <= a < end for a, _ in anchors)
        if not anchored:
            if strong:
                if not HAS_DIGIT_RE.search(chunk) or _TIME_ONLY_RE.match(chunk):
                    continue
            elif (
                len(re.findall(r"\d+", chunk)) < 2
                or _DATE_OR_TIME_RE.search(chunk)
                or not _NOT_IN_ADDRESS.isdisjoint(w.strip(".,") for w in chunk.lower().split())
            ):
                continue
        lead = len(chunk) - len(chunk.lstrip())
        spans.append((start + lead, end))
    # A unit number counts only next to something else that looks like an address.
    if spans and has_digit:
        for us, ue in [m.span() for m in _UNIT_RE.finditer(s)][:_MAX_ANCHORS]:
            if any(a <= us and ue <= b for a, b in spans):
                continue
            if any(abs(us - b) < 40 or abs(a - ue) < 40 for a, b in spans):
                spans.append(_widen(s, us, ue))
    return spans


def _widen(s: str, start: int, end: int) -> tuple[int, int]:
    """Grow an anchor over house numbers before it and the rest of its clause after it."""
    lo = max(0, start - 100)  # bounded windows keep long inputs linear
    line_start = max(s.rfind("?", lo, start), s.rfind(":", lo, start), s.rfind(". ", lo, start), lo - 1) + 1
    left = _ADDR_LEFT_RE.search(s, line_start, start)
    if left is not None:
        start = left.start()
    stop = _CLAUSE_END_RE.search(s, end, end + 120)
    new_end = stop.start() if stop else len(s)
    return start, min(new_end, end + 120)


def _has(low: str, words: tuple[str, ...]) -> bool:
    return any(w in low for w in words)


_STRONG_TRIGGER_GATE = Gate(
    "address", "addresses", "alamat", "地址", "住址", "ที่อยู่", "บ้านเลขที่",
)
_WEAK_TRIGGER_GATE = Gate(
    "send", "sent", "ship", "shipped", "deliver", "delivered", "mail", "post", "taxi", "move", "moved", "forward",
    "meet", "see", "pick", "live", "lives", "living", "stay", "staying", "reside", "validate", "here", "tinggal",
    "住在", "寄到", "送到",
)
_STREET_GATE = ("Street", "Road", "Avenue", "Lane", "Drive", "Boulevard", "Parkway", "Terrace", "Crescent")


def address_findings(s: str, t: Text, has_digit: bool) -> list[Span]:
    """(start, end, ADDRESS) of each address in `s`; without a digit only a named street or a
    clause introduced as an address can be one."""
    if not has_digit and not (_STRONG_TRIGGER_GATE.hit(t) or "corner of" in t.low or _has(s, _STREET_GATE)):
        return []
    return [(start, end, ADDRESS) for start, end in _address_spans(s, t, has_digit)]
