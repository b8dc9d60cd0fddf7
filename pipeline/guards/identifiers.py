"""Identifier detectors: emails, digit runs (phones, cards, government ids, bank accounts, told
apart by shape, checksums and the words before them), numbers spelled out in four languages,
IBANs, IP and MAC addresses, wallets, CVVs and birth dates."""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.guards.credentials import looks_random
from pipeline.guards.gates import Gate, Text
from pipeline.guards.kinds import (
    BANK_ACCOUNT,
    CARD,
    DOB,
    EMAIL,
    GOV_ID,
    IBAN,
    IP_ADDRESS,
    PASSWORD,
    PHONE,
    Span,
    matches,
)
from pipeline.guards.normalise import text_before

_I = re.IGNORECASE
_A = re.ASCII  # digits, emails and tokens are ASCII; \w must not swallow the Chinese or Thai around them

_EMAIL_RE = lazy_compile(r"(?<![\w.%+-])[\w.%+-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}\b", _A)
_TLDS = r"(?:com|net|org|io|co|id|cn|th|uk|de|edu|gov|me|dev|ai|info|biz|us|app|xyz|mail|jp|sg|my|au|fr|nl)"
_EMAIL_OBF_RE = lazy_compile(
    r"(?<![\w.])[A-Za-z0-9][\w.+-]{0,63}(?:\s*(?:\(dot\)|\[dot\]|\s+dot\s+)\s*[\w+-]{1,40}){0,3}\s*(?:\(at\)|\[at\]|\{at\}|<at>|\s+at\s+|\s+AT\s+|\s*@\s+|\s+@\s*)\s*"
    r"[A-Za-z0-9-]+(?:\s*(?:\(dot\)|\[dot\]|\{dot\}|<dot>|\s+dot\s+|\s+titik\s+|\s*点\s*|\s+\.\s*|\s*\.\s+|\.)\s*[A-Za-z0-9-]+)*"
    r"\s*(?:\(dot\)|\[dot\]|\{dot\}|<dot>|\s+dot\s+|\s+titik\s+|\s*点\s*|\s+\.\s*|\s*\.\s+)\s*" + _TLDS + r"\b",
    _I | _A,
)
_IPV4_RE = lazy_compile(r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\w]|\.\d)", _A)
_IPV6_RE = lazy_compile(r"(?<![\w:.])(?:[0-9a-f]{1,4}|:)?(?::[0-9a-f]{0,4}){2,7}(?![\w:])", _I | _A)
_MAC_RE = lazy_compile(r"(?<![\w:-])(?:[0-9A-Fa-f]{2}([:-]))(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}(?![\w:-])", _A)
_SPELLED = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|nol|satu|dua|tiga|empat|lima|enam|tujuh|delapan|sembilan)"
_SPELLED_DIGITS_RE = lazy_compile(rf"\b(?:(?:double |triple )?{_SPELLED}[\s,.-]+){{6,20}}{_SPELLED}\b", _I)
_SPELLED_VALUE = {
    "zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "nol": "0", "satu": "1", "dua": "2", "tiga": "3", "empat": "4", "lima": "5", "enam": "6",
    "tujuh": "7", "delapan": "8", "sembilan": "9",
    "零": "0", "〇": "0", "一": "1", "幺": "1", "二": "2", "两": "2", "三": "3", "四": "4", "五": "5", "六": "6", "七": "7",
    "八": "8", "九": "9",
    "ศูนย์": "0", "หนึ่ง": "1", "สอง": "2", "สาม": "3", "สี่": "4", "ห้า": "5", "หก": "6", "เจ็ด": "7", "แปด": "8", "เก้า": "9",
}
# Chinese and Thai digit words, seven or more in a row ("四一一一..." / "สี่ หนึ่ง หนึ่ง ...").
_SPELLED_ZH_RE = lazy_compile(r"[零〇一幺二两三四五六七八九](?:[\s,，、-]*[零〇一幺二两三四五六七八九]){6,20}")
_SPELLED_TH_RE = lazy_compile(r"(?:(?:ศูนย์|หนึ่ง|สอง|สาม|สี่|ห้า|หก|เจ็ด|แปด|เก้า)[\s,-]*){7,21}")
_SPELLED_TOKEN_RE = lazy_compile(
    r"double|triple|zero|oh|one|two|three|four|five|six|seven|eight|nine|nol|satu|dua|tiga|empat|lima|enam|tujuh|delapan|"
    r"sembilan|ศูนย์|หนึ่ง|สอง|สาม|สี่|ห้า|หก|เจ็ด|แปด|เก้า|[零〇一幺二两三四五六七八九]",
    _I,
)


def _spelled_digits(text: str) -> str:
    """"four one double one" -> "4111"."""
    out: list[str] = []
    repeat = 1
    for tok in _SPELLED_TOKEN_RE.findall(text.lower()):
        if tok in ("double", "triple"):
            repeat = 2 if tok == "double" else 3
            continue
        out.append(_SPELLED_VALUE[tok] * repeat)
        repeat = 1
    return "".join(out)


_SPELLED_WORDS = frozenset(
    "zero oh one two three four five six seven eight nine nol satu dua tiga empat lima enam tujuh delapan sembilan".split()
)
_CRYPTO_RE = lazy_compile(r"(?<![\w])(?:bc1[a-z0-9]{25,60}|[13][a-km-zA-HJ-NP-Z1-9]{25,34}|0x[a-fA-F0-9]{40})(?![\w])", _A)
_CVV_RE = lazy_compile(
    r"\b(?:cvv2?|cvc2?|csc|card security code|security code)(?:\s+(?:on|of|for|from)\s+(?:my|the|this)\s+\w+)?"
    r"\s*(?:is|:|=)?\s*(\d{3,4})\b",
    _I | _A,
)
_VERSION_BEFORE_RE = lazy_compile(r"(?:\bv|version|versi|ver\.?|版本|เวอร์ชัน|release|build)\s*$", _I)
_IBAN_RE = lazy_compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ ]?[A-Za-z0-9]{4}){2,7}(?:[ ]?[A-Za-z0-9]{1,4})?(?![A-Za-z0-9])", _A)
_IBAN_CTX_RE = lazy_compile(r"iban|rekening|account|bank|swift|转账|账户|บัญชี", _I)

# Digit runs (with separators people use): phones, cards, ids, accounts are told apart by
# shape, Luhn and the words just before them.
_DIGITS_RE = lazy_compile(
    r"(?<![\w@/:.,-])(?:\+|\(\+?)?\d[\d \t().-]{3,30}\d(?:\s?(?:x|ext\.?|extension)\s?\d{1,6})?(?![\w@]|[.:,-]\d)", _A | _I
)
_EXTENSION_RE = lazy_compile(r"\s?(?:x|ext\.?|extension)\s?\d{1,6}$", _I)
_DATE_SHAPE_RE = lazy_compile(r"^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$")
_SSN_RE = lazy_compile(r"^\d{3}-\d{2}-\d{4}$")
_THAI_ID_RE = lazy_compile(r"^\d-\d{4}-\d{5}-\d{2}-\d$")
_CN_ID_RE = lazy_compile(r"(?<![\dA-Za-z])[1-9]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![\dA-Za-z])", _A)
_THOUSANDS_RE = lazy_compile(r"^\d{1,3}(?:[.,]\d{3})+$")
_YEAR_PAIR_RE = lazy_compile(r"^(?:19|20)\d{2}\s*[-/–]?\s*(?:19|20)\d{2}$")
_CURRENCY_BEFORE_RE = lazy_compile(r"(?:rp\.?|idr|usd|\$|€|£|¥|฿|rmb|cny|thb|sgd|eur)\s*$", _I)


def _nik_shape(d: str) -> bool:
    """An Indonesian NIK: province 11-94, birth day (41-71 for women) and month in digits 7-10."""
    if len(d) != 16 or d[12:] == "0000":
        return False
    day, month = int(d[6:8]), int(d[8:10])
    return 11 <= int(d[:2]) <= 94 and (1 <= day <= 31 or 41 <= day <= 71) and 1 <= month <= 12


def _thai_id_ok(d: str) -> bool:
    """A Thai national id: 13 digits, first 1-8, the last a check digit."""
    if len(d) != 13 or d[0] not in "12345678":
        return False
    total = sum(int(c) * (13 - i) for i, c in enumerate(d[:12]))
    return (11 - total % 11) % 10 == int(d[12])


_GOV_CTX = (
    r"ssn|social security|passport|paspor|licen[cs]e|\bsim\b|\bsin\b|\bnhs\b|national insurance|medicare|\bdni\b|\bcpf\b|"
    r"\bbsn\b|pesel|aadhaa?r|\bnik\b|\bktp\b|npwp|national id|\bid card|"
    r"\bid number|identity|tax id|\btin\b|nomor induk|身份证|护照|驾照|驾驶证|社保|社会保障|"
    r"บัตรประชาชน|ประชาชน|ปชช|เลขประจำตัว|หนังสือเดินทาง|พาสปอร์ต|ใบขับขี่"
)
_GOV_CTX_RE = lazy_compile(_GOV_CTX, _I)
_CARD_CTX_RE = lazy_compile(r"card|\bcc\b|credit|debit|visa|master ?card|amex|kartu|信用卡|银行卡|卡号|บัตร", _I)
_ACCT_CTX_RE = lazy_compile(r"account|\bacct|rekening|\bnorek|\bno\.? ?rek\b|routing|sort code|\bbsb\b|账户|账号|帳號|บัญชี", _I)
_PHONE_CTX_RE = lazy_compile(
    r"phone|\bmy number|n[uú]mero|num[eé]ro|nummer|telefon|tel[eé]fono|celular|handy|\bcall|\btel\b|\btel\.|mobile|\bcell|whats ?app|\bwa\b|\bsms|text me|messages? to|reach me|contact|\bfax|"
    r"\bhp\b|nomor|telepon|\btelp|hubungi|qq|微信|电话|手机|号码|联系|打给|โทร|เบอร์|มือถือ|ติดต่อ|ไลน์",
    _I,
)
# An id with letters in it ("passport A1234567"), found right after a government-id word.
_GOV_TOKEN_RE = lazy_compile(
    r"(?:" + _GOV_CTX + r")[^\n\d]{0,30}?(?<![A-Za-z])([A-Za-z]{0,5}\d[\dA-Za-z-]{4,20})", _I
)
EN_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
ID_MONTHS = r"januari|februari|maret|april|mei|juni|juli|agustus|agu|september|oktober|okt|november|desember|des"
_TH_MONTHS = (
    r"มกราคม|กุมภาพันธ์|มีนาคม|เมษายน|พฤษภาคม|มิถุนายน|กรกฎาคม|สิงหาคม|กันยายน|ตุลาคม|พฤศจิกายน|ธันวาคม|"
    r"ม\.ค\.|ก\.พ\.|มี\.ค\.|เม\.ย\.|พ\.ค\.|มิ\.ย\.|ก\.ค\.|ส\.ค\.|ก\.ย\.|ต\.ค\.|พ\.ย\.|ธ\.ค\."
)
_MONTHS = f"(?:{EN_MONTHS}|{ID_MONTHS})"
_DATE = (
    r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\.?,?\s+\d{{4}}"
    rf"|{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    r"|\d{4}\s*年(?!代)(?:\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?)?"
    rf"|\d{{1,2}}\s*(?:{_TH_MONTHS})\s*(?:พ\.ศ\.|ค\.ศ\.)?\s*\d{{4}}"
    rf"|(?:{_MONTHS})\s+\d{{4}}"
    r"|(?:(?:พ\.ศ\.|ค\.ศ\.)\s*)?(?:19|20|25)\d{2}(?!\d|\s*s\b|'?s\b|\s*年代|-?an\b))"
)
_DOB_RE = lazy_compile(
    r"(?:\bborn\b|birthday|birth ?date|date of birth|\bd\.?o\.?b\b|\bb-?day|lahir|ulang tahun|\bultah|\bttl\b|"
    r"出生|生于|生日|เกิด(?!ขึ้น|จาก))"
    r"[^.!?\n]{0,28}?(" + _DATE + r")",
    _I,
)
# Chinese puts the date first: "我是1990年3月2日出生的".
_DOB_ZH_RE = lazy_compile(r"(\d{4}\s*年(?!代)(?:\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?)?)\s*(?:出生|生人|生的)")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _iban_ok(raw: str) -> bool:
    s = raw.replace(" ", "").upper()
    if not 15 <= len(s) <= 34:
        return False
    moved = s[4:] + s[:4]
    try:
        return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1
    except ValueError:
        return False


def _ipv6_ok(tok: str) -> bool:
    if tok == "::1" or sum(c.isdigit() for c in tok) < 2:
        return False
    groups = [g for g in tok.split(":") if g]
    if tok.count("::") > 1 or any(len(g) > 4 for g in groups):
        return False
    return 2 <= len(groups) <= 7 if "::" in tok else len(groups) == 8


def _digit_kind(s: str, m: re.Match[str]) -> str | None:
    raw = _EXTENSION_RE.sub("", m.group(0).strip(" \t.-()"))
    digits = "".join(c for c in raw if c.isdigit())
    n = len(digits)
    if n < 5:
        return None
    compact = raw.replace(" ", "")
    if _DATE_SHAPE_RE.match(compact) or _YEAR_PAIR_RE.match(raw):
        return None
    if _SSN_RE.match(raw) or _THAI_ID_RE.match(raw):
        return GOV_ID
    before = text_before(s, m.start())
    if _CURRENCY_BEFORE_RE.search(before):
        return None
    if _GOV_CTX_RE.search(before):
        return GOV_ID
    if _CARD_CTX_RE.search(before) and 12 <= n <= 19:
        return CARD
    if not raw.startswith("+") and (_nik_shape(digits) or _thai_id_ok(digits)):
        return GOV_ID  # bare national ids, known by their structure
    if _ACCT_CTX_RE.search(before) and n >= 6:
        return BANK_ACCOUNT
    if n < 7:
        return None
    has_sep = raw != digits
    if _PHONE_CTX_RE.search(before) and n <= 15:
        return PHONE
    if 13 <= n <= 19 and _luhn(digits) and (not has_sep or re.fullmatch(r"\d{4}(?:[ -]\d{2,4}){2,4}", raw)):
        return CARD
    if raw.startswith(("+", "(")) and 8 <= n <= 15:
        return PHONE
    if not has_sep:
        if n >= 9 and n <= 13 and digits[0] == "0":
            return PHONE
        if n == 11 and digits[0] == "1" and digits[1] in "3456789":
            return PHONE
        return None
    if _THOUSANDS_RE.match(raw) or re.fullmatch(r"\d{1,3}(?: \d{3})+", raw):
        return None
    if n <= 15 and len(re.findall(r"\d+", raw)) >= 2:
        return PHONE
    return None


def _spelled_kind(s: str, start: int, digits: str) -> str | None:
    """What a number spelled out in words is, from the words before it and its shape."""
    n = len(digits)
    if n < 7:
        return None
    before = text_before(s, start)
    if _GOV_CTX_RE.search(before):
        return GOV_ID
    if _CARD_CTX_RE.search(before) and 12 <= n <= 19:
        return CARD
    if _nik_shape(digits) or _thai_id_ok(digits):
        return GOV_ID
    if 13 <= n <= 19 and _luhn(digits):
        return CARD
    if _ACCT_CTX_RE.search(before):
        return BANK_ACCOUNT
    if _PASSWORD_CTX_RE.search(before):
        return PASSWORD
    if _PHONE_CTX_RE.search(before) and n <= 15:
        return PHONE
    return None


_PASSWORD_CTX_RE = lazy_compile(r"pass(?:word|code)|\bpin\b|\bcode\b|sandi|\bkode\b|密码|口令|รหัส", _I)
_AT_GATE = Gate("at", "(at)", "[at]", "{at}", "<at>", "@")
_DOT_GATE = Gate("dot", ".", "点", "titik")
_GOV_GATE = Gate(
    "ssn", "social", "passport", "paspor", "license", "licence", "sim", "sin", "nhs", "insurance", "medicare", "dni",
    "cpf", "bsn", "pesel", "aadhaar", "aadhar", "nik", "ktp", "npwp", "national", "id",
    "identity", "tax", "tin", "nomor", "身份证", "护照", "驾照", "驾驶证", "社保", "社会保障",
    "บัตรประชาชน", "ประชาชน", "ปชช", "เลขประจำตัว", "หนังสือเดินทาง", "พาสปอร์ต", "ใบขับขี่",
)
_DOB_GATE = Gate(
    "born", "birth", "birthday", "birthdate", "dob", "d.o.b", "bday", "b-day", "lahir", "ulang", "ultah", "ttl",
    "出生", "生于", "生日", "เกิด",
)


def identifier_findings(s: str, t: Text, has_digit: bool) -> list[Span]:
    """(start, end, kind) of each email, number that identifies a person or account, IP or MAC
    address, wallet, CVV and birth date in `s`."""
    out: list[Span] = []
    add = out.append
    low = t.low
    if "@" in s:
        out += matches(_EMAIL_RE, s, EMAIL)
    if _AT_GATE.hit(t) and _DOT_GATE.hit(t):
        for m in _EMAIL_OBF_RE.finditer(s):
            if "@" in m.group(0) and _EMAIL_RE.fullmatch(m.group(0)):
                continue
            add((m.start(), m.end(), EMAIL))
    spelled = t.words & _SPELLED_WORDS
    if len(spelled) >= 2 or spelled and low.count(next(iter(spelled))) >= 7:  # "four one one one ..." has two words
        for m in _SPELLED_DIGITS_RE.finditer(s):
            kind = _spelled_kind(s, m.start(), _spelled_digits(m.group(0)))
            if kind is not None:
                add((m.start(), m.end(), kind))  # "oh eight one two, three four five ...", "four one one one ..."
    if not t.ascii:
        for rx in (_SPELLED_ZH_RE, _SPELLED_TH_RE):
            for m in rx.finditer(s):
                kind = _spelled_kind(s, m.start(), _spelled_digits(m.group(0)))
                if kind is not None:
                    add((m.start(), m.end(), kind))
    if not has_digit:
        return out
    for m in _IBAN_RE.finditer(s):
        tok = m.group(0)
        if sum(c.isdigit() for c in tok) >= 8 and (_iban_ok(tok) or _IBAN_CTX_RE.search(text_before(s, m.start()))):
            add((m.start(), m.end(), IBAN))
    out += matches(_CN_ID_RE, s, GOV_ID)
    if _GOV_GATE.hit(t):
        for m in _GOV_TOKEN_RE.finditer(s):
            tok = m.group(1)
            if sum(c.isdigit() for c in tok) >= 5 and not _DATE_SHAPE_RE.match(tok):
                add((m.start(1), m.end(1), GOV_ID))
    if "." in s:
        for m in _IPV4_RE.finditer(s):
            ip = m.group(0)
            if ip.startswith(("127.", "0.")) or _VERSION_BEFORE_RE.search(text_before(s, m.start(), 12)):
                continue
            add((m.start(), m.end(), IP_ADDRESS))
    if "::" in s or s.count(":") >= 5:
        for m in _IPV6_RE.finditer(s):
            if _ipv6_ok(m.group(0)):
                add((m.start(), m.end(), IP_ADDRESS))
    for m in _CRYPTO_RE.finditer(s):
        tok = m.group(0)
        if tok.startswith(("0x", "bc1")) or looks_random(tok):
            add((m.start(), m.end(), BANK_ACCOUNT))  # a wallet is an account
    if ":" in s or "-" in s:
        out += matches(_MAC_RE, s, IP_ADDRESS)  # a device address identifies a person's machine like an IP
    if "cvv" in low or "cvc" in low or "csc" in low or "security code" in low:
        out += matches(_CVV_RE, s, CARD, group=1)
    for m in _DIGITS_RE.finditer(s):
        kind = _digit_kind(s, m)
        if kind is not None:
            lead = len(m.group(0)) - len(m.group(0).lstrip(" \t"))
            add((m.start() + lead, m.end(), kind))
    if _DOB_GATE.hit(t):
        out += matches(_DOB_RE, s, DOB, group=1) + matches(_DOB_ZH_RE, s, DOB, group=1)
    return out
