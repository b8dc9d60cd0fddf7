"""What a request to forget names: contact fields by what they are, in four languages.

"forget my email address" names the email, not the address: a longer phrase wins over the
shorter ones inside it ("email address" over "address", "alamat email" over "alamat", "邮箱地址"
over "地址", "ที่อยู่อีเมล" over "ที่อยู่"). A USER.md key is read the same way, so a field is
named when the request and its key name the same thing ("Email", "Work email", "E-mail address"
for the email; "Phone", "Mobile number" for the phone; "Address", "Location", "City" for where
the user lives). Used by the write stage, `memroute forget` and the offline engine alike.
"""

from __future__ import annotations

import re
import unicodedata

EMAIL = "email"
PHONE = "phone"
ADDRESS = "address"

CONCEPTS: dict[str, tuple[str, ...]] = {
    EMAIL: (
        "email address", "e-mail address", "mail address", "email addresses", "email", "e-mail", "emails", "inbox",
        "alamat email", "alamat e-mail", "alamat surel", "surel", "surat elektronik",
        "邮箱地址", "电子邮箱", "电子邮件地址", "电子邮件", "邮件地址", "邮箱", "电邮",
        "ที่อยู่อีเมล", "อีเมล์", "อีเมล",
    ),
    PHONE: (
        "phone number", "mobile number", "cell number", "cell phone number", "telephone number", "whatsapp number",
        "contact number", "phone", "mobile", "cellphone", "cell phone", "telephone", "whatsapp",
        "nomor hp", "no hp", "no. hp", "nomor telepon", "nomor telpon", "nomor handphone", "nomor wa", "nomor ponsel",
        "handphone", "ponsel", "telepon", "telpon", "hp",
        "电话号码", "手机号码", "手机号", "联系电话", "电话", "手机", "微信号",
        "เบอร์โทรศัพท์", "เบอร์โทร", "เบอร์มือถือ", "หมายเลขโทรศัพท์", "โทรศัพท์", "เบอร์",
    ),
    ADDRESS: (
        "home address", "street address", "postal address", "mailing address", "address", "where i live",
        "location", "city", "neighborhood", "neighbourhood", "residence",
        "alamat rumah", "alamat", "tempat tinggal", "di mana saya tinggal", "domisili", "lokasi",
        "家庭住址", "家庭地址", "住址", "地址", "我住哪", "住在哪", "住处",
        "ที่อยู่บ้าน", "ที่อยู่", "อยู่ที่ไหน", "บ้านอยู่ที่ไหน",
    ),
}

_PHRASES: list[tuple[str, str]] = sorted(
    ((phrase, concept) for concept, phrases in CONCEPTS.items() for phrase in phrases), key=lambda p: -len(p[0])
)
_PHRASE_RE = re.compile(
    "|".join(rf"(?<![a-z0-9]){re.escape(p)}(?![a-z0-9])" if p.isascii() else re.escape(p) for p, _ in _PHRASES)
)
_CONCEPT_OF = dict(_PHRASES)


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().replace("_", " ").split())


def concepts_named(text: str) -> frozenset[str]:
    """The contact fields `text` names, the longest phrase first ("email address" -> {email})."""
    if not text:
        return frozenset()
    # One pass, longest alternatives first: a match consumes the shorter phrases inside it.
    return frozenset(_CONCEPT_OF[m.group(0)] for m in _PHRASE_RE.finditer(_fold(text)))


def same_field(request: str, key: str) -> bool | None:
    """Does a forget `request` name the field `key`? True or False when either names a contact
    field (then that decides), None when neither does (the caller's other rules decide)."""
    wanted, have = concepts_named(request), concepts_named(key)
    if not wanted and not have:
        return None
    return bool(wanted & have)
