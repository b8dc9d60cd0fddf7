"""Explicit requests to store a detail ("please remember my phone", "tolong simpan", "记住",
"ช่วยจำ"), and which requestable kinds such a request covers."""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.guards.health import health_spans
from pipeline.guards.kinds import ADDRESS, EMAIL, HEALTH, PHONE, SECRET_KINDS, GuardPolicy
from pipeline.guards.medical import about_others
from pipeline.guards.normalise import nfkc

_I = re.IGNORECASE

_SAVE_REQUEST_RE = lazy_compile(
    r"(?:^|[.,!;:?]\s*|\b(?:please|pls|plz|yes|yeah|yep|ok|okay|sure|can you|could you|would you|will you|"
    r"i want you to|i'd like you to|i would like you to|go ahead and|you can|you may|kindly|"
    r"don't forget to|don’t forget to|do not forget to|remember to)\b[\s,]*)"
    r"(?:save|store|remember|keep|note down|note|record|memori[sz]e|add)\b"
    r"(?!\s+(?:to|calling|texting|sending|emailing|asking|going|trying|in touch)\b)"
    r"|(?:^|\b(?:tolong|mohon|ya|iya|boleh|bisa|coba)\b[\s,]*)(?:simpan|simpen|ingat|ingatlah|catat|tambahkan)(?:kan|lah)?\b"
    r"|(?:请|麻烦|帮我|帮忙|你要|要)?(?:记住|记下|保存|存下|存一下|记录一下|记一下)"
    r"|(?:ช่วย|กรุณา|โปรด)?(?:จำ(?!เป็น|นวน|ได้|ไม่ได้|ว่า)|บันทึก|เก็บ)(?:ไว้)?",
    _I,
)
_NEGATED_SAVE_RE = lazy_compile(
    r"\b(?:don't|don’t|do not|dont|never|no need to|stop|not)\s+(?!forget\b)(?:\w+\s+){0,3}?(?:save|store|remember|keep|note|record)|"
    r"\bjangan\s+(?:\w+\s+)?(?:simpan|ingat|catat)|(?:不要|别|不用|无需)(?:\S{0,4})?(?:记住|保存|记下)|"
    r"(?:ไม่ต้อง|อย่า)(?:\S{0,6})?(?:จำ|บันทึก|เก็บ)",
    _I,
)
_KIND_WORDS = {
    EMAIL: lazy_compile(r"e-?mail|surel|邮箱|邮件|电子邮|อีเมล", _I),
    PHONE: lazy_compile(r"phone|number|mobile|cell|whatsapp|nomor|telepon|\bhp\b|\bwa\b|电话|手机|号码|เบอร์|โทร", _I),
    ADDRESS: lazy_compile(r"address|alamat|地址|住址|ที่อยู่", _I),
}


def explicit_save_request(text: str) -> bool:
    """True when the turn asks, in so many words, to store something ("please remember my phone")."""
    if not text:
        return False
    s = nfkc(text)
    return _SAVE_REQUEST_RE.search(s) is not None and _NEGATED_SAVE_RE.search(s) is None


def allowed_on_request(turn_text: str, policy: GuardPolicy) -> frozenset[str]:
    if not (policy.store_contacts_on_request or policy.store_health_on_request) or not explicit_save_request(turn_text):
        return frozenset()
    # A person may ask to keep their own health details, not their mother's: nobody consents for someone else.
    health = frozenset({HEALTH}) if policy.store_health_on_request and not others_health(turn_text) else frozenset()
    if not policy.store_contacts_on_request:
        return health
    allowed = policy.requestable_kinds - SECRET_KINDS
    named = frozenset(k for k, rx in _KIND_WORDS.items() if rx.search(turn_text))
    # "save this: jane@x.com" names no kind and covers any contact; otherwise only the kinds named.
    return (allowed & named if named else allowed) | health


def others_health(text: str) -> bool:
    """Whether a health detail in `text` is about someone other than the speaker ("my son has asthma")."""
    view = nfkc(text)
    return about_others(view, health_spans(view))
