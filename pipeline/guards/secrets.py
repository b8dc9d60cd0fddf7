"""Secrets known by what they are, not by how a sentence puts them.

A secret is found three ways, in English, Indonesian, Chinese and Thai:

- a **secret concept** (a password, passphrase, PIN, one-time or verification code, 2FA backup
  code, security-question answer, seed or recovery words, a private or account key, a passport
  or other government id ...) named in a sentence, and a **value** beside it in the same sentence:
  a quoted string, a token that carries digits or symbols, or what follows "is" / ":" / "是" /
  "คือ" (for answers and word lists, the words up to the end of the clause). The concept may
  come before or after the value, with any words in between ("the name of my dog followed by
  1987, so Biscuit1987 is the login for my bank").
- a **key that names a secret**: a label before ":" or "=" ("- PIN: 4821", "Verification code:
  Biscuit", "AccountKey=...", "DB_PASSWORD=..."), whatever the value looks like. A decision's
  key is judged the same way: guards checks the line "KEY: VALUE" it would write.
- a **shape of its own**: an Ethereum or other 0x-prefixed 32-byte private key, an extended
  private key (xprv/tprv), a Bitcoin WIF key, and a seed phrase (twelve or more bare words, or
  space-separated CJK words, with no word of ordinary prose).

A concept followed by a word that makes it a thing about secrets rather than a secret ("password
manager", "PIN pad", "passport photo", "密码管理器") is not a concept here. Values that are dates,
years, versions, amounts or counts ("3 times", "6 digits") are not values.
"""

from __future__ import annotations

import bisect
import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.guards.gates import Gate, Text
from pipeline.guards.kinds import API_KEY, BANK_ACCOUNT, CARD, GOV_ID, PASSWORD, PRIVATE_KEY, Span

_I = re.IGNORECASE

# --- the concepts ----------------------------------------------------------------------------

_PW = (r"p[a@4][s5$]{1,2}w[o0]r?d(?:[sz]|nya)?|passwd|\bpwd\b|\bpw\b|"
       r"\b(?:sudo|root|admin|wi-?fi|login|account|email|bank|master|laptop|phone|computer|router|server|vpn|ssh|door)\s+pass\b")
_CONCEPTS: dict[str, str] = {
    PASSWORD: (
        rf"{_PW}|pass ?codes?|pass ?phrases?|pass ?keys?|\bpins?\b|pin codes?|pin numbers?|\botps?\b|one[- ]time (?:pass(?:word|code)s?|codes?|pins?)|"
        r"(?:verification|confirmation|security|authentication|authori[sz]ation|auth|login|sign[- ]?in|access|unlock|"
        r"2fa|mfa|two[- ]factor|2[- ]step|sms|text|backup|recovery|reset) codes?|\b(?:2fa|mfa)\b|"
        r"(?:verification|confirmation|authentication|one[- ]time|2fa|mfa|otp) (?:numbers?|pins?|keys?)|"
        r"security (?:questions?|answers?)|secret (?:questions?|answers?|words?)|recovery questions?|memorable (?:word|answer|information)|"
        r"maiden names?|safe ?words?|code ?words?|unlock (?:pattern|code)|"
        r"(?:bank|app|site|website|account|service|portal|helpdesk|help desk|support|agent)\s+asks?(?:\s+me)?(?:\s+for)?|"
        r"kata ?sandi|\bsandi(?:nya)?\b|kata rahasia|frasa sandi|kode (?:otp|verifikasi|konfirmasi|keamanan|akses|cadangan|pemulihan|pin|rahasia|login|masuk)|"
        r"pertanyaan (?:keamanan|rahasia)|jawaban (?:keamanan|rahasia|pertanyaan)|nama gadis ibu|"
        r"密码|口令|验证码|校验码|动态码|短信码|安全码|确认码|备用码|恢复码|密保|安全问题|暗号|"
        r"รหัสผ่าน|พาสเวิร์ด|รหัส\s?(?:pin|otp|atm)|รหัสพิน|\bพิน|โอทีพี|รหัสยืนยัน|รหัสลับ|รหัสความปลอดภัย|รหัสสำรอง|รหัสกู้คืน|"
        r"รหัสบัตร|รหัสเข้า\S{0,12}|รหัสแอป\S{0,12}|รหัสธนาคาร|คำถามความปลอดภัย|คำถามกันลืม|คำตอบความปลอดภัย"
    ),
    PRIVATE_KEY: (
        r"private keys?|priv keys?|signing keys?|secret keys?|\bseed (?:phrases?|words?)|mnemonic (?:phrases?|words?)|"
        r"(?:recovery|backup|restore|wallet|secret recovery) (?:phrases?|words?|seeds?|keys?)|"
        r"kunci (?:privat|pribadi|rahasia)|frasa (?:pemulihan|benih|seed|cadangan)|kata (?:pemulihan|cadangan)|"
        r"私钥|助记词|种子短语|种子词|恢复短语|恢复词|คีย์ส่วนตัว|วลีกู้คืน|วลีสำรอง|คำกู้คืน|คำสำรอง"
    ),
    API_KEY: (
        r"api ?keys?|access ?keys?|account ?keys?|shared access (?:keys?|signatures?)|client ?secrets?|app ?secrets?|"
        r"(?:auth|access|bearer|refresh|session|api|personal access) tokens?|connection strings?|webhook secrets?|signing secrets?|"
        r"kunci api|token akses|密钥|秘钥|令牌|访问令牌|โทเค็น|คีย์ ?api"
    ),
    GOV_ID: (
        r"passports?(?: numbers?| no\.?| #)?|\bssn\b|social security(?: numbers?)?|national id(?: numbers?)?|id card numbers?|"
        r"driver'?s licen[cs]e(?: numbers?)?|tax (?:id|numbers?)|\bnik\b|\bktp\b|\bnpwp\b|nomor paspor|\bpaspor\b|"
        r"身份证(?:号码?)?|护照(?:号码?)?|驾照号码?|หนังสือเดินทาง|พาสปอร์ต|เลขบัตรประชาชน|บัตรประชาชน"
    ),
    CARD: r"card numbers?|\bcvv2?\b|\bcvc2?\b|nomor kartu|卡号|เลขบัตร",
    BANK_ACCOUNT: r"account numbers?|bank account|routing numbers?|nomor rekening|\bno\.? ?rek\b|银行账号|เลขบัญชี",
}
# Words that name a secret only with a value of a secret's shape beside them (letters and digits
# mixed, or a code delivered by a bank or an app): "Biscuit1987 for the bank login", "the code my
# bank texted me is 339102".
_WEAK_CONCEPT_RE = lazy_compile(
    r"\blog-?ins?\b|\bsign-?ins?\b|\bcodes?\b|\bkode\b|\bakun\b|登录|代码|\b(?:wifi|wi-fi|router|vault|safe|locker)\b|"
    r"รหัส|เข้าสู่ระบบ",
    _I,
)
_DELIVERED_RE = lazy_compile(
    r"\b(?:text(?:ed)?|sent|sms|bank|app|verify|verification|expires?|authenticator|dikirim)\b|"
    r"发来|收到|短信|银行|ส่งมา|ได้รับ|ธนาคาร|แอป",
    _I,
)
# "I picked the password marmalade", "use the passphrase ...": a verb of choosing before the concept
# makes the word after it its value.
_CHOOSE_BEFORE_RE = lazy_compile(
    r"\b(?:use|used|using|uses|pick|picked|choose|chose|chosen|set|went with|go with|going with|changed it to|made|"
    r"pakai|memakai|gunakan|menggunakan|pilih|memilih|setel)\s+(?:it\s+)?(?:as\s+)?(?:the|a|my|our|this|new|"
    r"same|\s)*(?:new\s+)?(?:[\w-]+\s+){0,2}?$",
    _I,
)
# "set/changed/reset ... to VALUE": the value follows "to".
_SET_BEFORE_RE = lazy_compile(r"\b(?:set|sets|setting|change|changed|changing|reset|update|updated|switch|switched)\b[^.!?\n]{0,24}$", _I)
_SET_TO_RE = lazy_compile(r"(?:\s+[^\s:：=,]+){0,8}?\s+to(?=\s)", _I)
# Where a word-list value stops ("purple monkey dishwasher for the vault").
_WORDS_STOP_RE = lazy_compile(r"\s+(?:for|to|on|at|in|as|from|with|untuk|di|ke|buat|sebagai|because|since|karena)\b|[,;]", _I)
# A word right after the concept that makes it a thing about secrets, not a secret.
_META = (
    r"(?:[\s-]+(?:managers?|policy|policies|reset|resets|hints?|strength|length|requirements?|rules?|generators?|vaults?|"
    r"fields?|expiry|expiration|expired|expires|holders?|photos?|office|renewals?|applications?|appointments?|country|"
    r"protected|protection|changes?|screens?|prompts?|forms?|pages?|flows?|features?|checks?|validation|pads?|readers?|"
    r"machines?|stamps?|covers?|less|sharing|auth|login|logins?|stuff|thing|things|app|apps|settings?|entry|input|"
    r"fatigue|hygiene|recovery flow|leaks?|breach(?:es)?|attacks?|spraying|rotation|lockouts?|lock ?outs?|format|"
    r"formats|template|templates|scheme|schemes|service|services|sms|by sms|via sms|"
    r"manajer|pengelola|lupa|reset|管理|重置|策略|强度|保护|找回|提示|规则|框|锁|学|管理器|管理员)\b)"
    r"|(?<=密码)(?:管理|重置|策略|强度|保护|找回|提示|规则|框|锁|学)|(?<=รหัสผ่าน)(?:ใหม่ไม่|ไม่ตรง)"
)
_CONCEPT_RE = lazy_compile(
    "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _CONCEPTS.items()),
    _I,
)
_META_AFTER_RE = lazy_compile(r"(?:" + _META + r")", _I)
# "the password manager I use", "the reset-password page": a word before the concept that makes it one.
_META_BEFORE_RE = lazy_compile(
    r"(?:manager|management|reset|forgot|forgotten|lupa|pengelola|manajer|จัดการ|รีเซ็ต|管理|重置|找回)[\s-]*(?:the\s+|my\s+|a\s+)?$", _I
)
# Kinds whose value may be several words ("Westbrook Elementary", twelve seed words).
_WORDY = ("question", "answer", "maiden", "memorable", "secret word", "phrase", "pertanyaan", "jawaban", "gadis",
          "安全问题", "密保", "คำถาม", "คำตอบ", "seed", "mnemonic", "recovery", "backup", "restore", "wallet", "frasa",
          "kata", "助记词", "种子", "恢复", "วลี", "คำกู้", "คำสำรอง")

# --- values ----------------------------------------------------------------------------------

# Where a sentence ends: the value and its concept must share one.
_SENTENCE_END_RE = lazy_compile(r"[.!?](?=\s|$)|[。！？\n]|;\s")
# A new clause with its own subject: what follows is another statement.
_NEXT_CLAUSE_RE = lazy_compile(r"[,;]\s*(?:and|but|while|whereas|dan|tapi|sedangkan|sementara)\b|，(?:但|而且|另外|还有)|\s+แต่", _I)
_QUOTED_RE = lazy_compile(r"[\"“「『‘]([^\"”」』’\n]{1,120})[\"”」』’]|(?<![\w])'([^'\n]{1,120})'(?![\w])")
_TOKEN_RE = lazy_compile(r"(?<![!-~])[!-~]+")
_COPULA_RE = lazy_compile(
    r"\s*(?:(?:(?:is|are|was|were|will be|adalah|ialah|yaitu|yakni|so|jadi|"
    r"i (?:put|used|use|typed|type|chose|set|picked|gave|give|answered|answer|say|said|enter|entered|wrote|write)|"
    r"saya (?:isi|pakai|tulis|jawab)|answer(?:ed)?(?: is| was| with)?|jawabannya)\b|=|:|：|->|→|是|为|為|คือ|เป็น|我(?:填|写|设|用)(?:的)?(?:是)?|"
    r"答案是|คำตอบคือ|ตอบว่า|ตั้งเป็น|ตั้งว่า)\s*)+",
    _I,
)
# Words that say something about a secret rather than being one ("my password is too weak").
_NOT_A_VALUE = frozenset(
    "too weak strong long short expired the a an same not very still wrong incorrect required changed reset secure safe "
    "hard easy different saved stored in on at my your our his her their its lost forgotten case-sensitive missing "
    "correct invalid being now also just only what which this that it here there where why how who whose mine yours "
    "one none nothing something anything set change used using use remember save keep sent send coming on off for "
    "to of by about and or but if when because so as with without from into over under again ready done no yes "
    "lemah kuat salah sama terlalu sudah lupa baru hilang ini itu apa tidak belum bukan yang dan atau di ke dari "
    "untuk buat sebagai dengan pada agar supaya sekarang kini "
    "错误 太 了 不 没 ไม่ ผิด".split()
)
_DATE_LIKE_RE = lazy_compile(
    r"^(?:\d{4}[-/.]\d{1,2}(?:[-/.]\d{1,2})?|\d{1,2}[-/.]\d{1,2}(?:[-/.]\d{2,4})?|\d{1,2}:\d{2}(?::\d{2})?(?:am|pm)?|"
    r"\d{1,2}(?:am|pm)|v?\d+(?:\.\d+)+|\d+(?:st|nd|rd|th)|[$€£¥฿]\d[\d,.]*|\d[\d,.]*%|\d{1,3}(?:,\d{3})+(?:\.\d+)?|"
    r"(?:19|20)\d{2}s?|'\d{2}s?|\d{1,3})$",
    _I,
)
# A number followed by one of these is a count, not a value ("300 seconds", "6 digits", "3 kali").
_UNIT_AFTER_RE = lazy_compile(
    r"^\s*(?:times?|x\b|digits?|characters?|chars?|letters?|words?|numbers?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|"
    r"weeks?|months?|years?|yrs?|attempts?|tries|tries|people|users?|accounts?|apps?|sites?|kali|digit|karakter|huruf|"
    r"kata|detik|menit|jam|hari|minggu|bulan|tahun|orang|位|次|个|天|分钟|秒|小时|年|月|周|ครั้ง|หลัก|ตัว|วินาที|นาที|"
    r"ชั่วโมง|วัน|เดือน|ปี)\b",
    _I,
)
_HEX64_RE = lazy_compile(r"(?<![0-9A-Za-z])(?:0x)?[0-9a-fA-F]{64}(?![0-9A-Za-z])")
_XPRV_RE = lazy_compile(r"(?<![0-9A-Za-z])[xtyz]prv[1-9A-HJ-NP-Za-km-z]{100,112}(?![0-9A-Za-z])")
_WIF_RE = lazy_compile(r"(?<![0-9A-Za-z])(?:5[HJK][1-9A-HJ-NP-Za-km-z]{49}|[KL][1-9A-HJ-NP-Za-km-z]{51})(?![0-9A-Za-z])")
_TX_BEFORE_RE = lazy_compile(r"(?:\btx|transaction|hash|txid|txn|block|commit|sha-?256|checksum|digest)\W{0,3}(?:\w+\W{1,3}){0,2}$", _I)

# A key=value pair whose key names a secret: AccountKey=..., DB_PASSWORD=..., sig=...
_ASSIGN_RE = lazy_compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9_.-]{1,60})\s*=\s*([^\s;&,\"']{4,400})")
_KEY_WORDS = frozenset(
    "key keys secret secrets password passwords passwd pwd pass passphrase token tokens signature sig credential "
    "credentials auth apikey pin otp".split()
)
_NOT_KEY_LAST = frozenset("name names id ids type types length size url uri path file hint expiry count version".split())
_CAMEL_RE = lazy_compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

# A label before ":" ("Security question answer: ...", "- PIN: ...", "kode OTP dari bank: ...").
_LABEL_RE = lazy_compile(r"(?:^|(?<=[\n,;(:：]))\s*(?:[-*+]\s+)?([^\n:：=,;()\[\]]{1,48}?)\s*[:：]\s*(?!//)([^\n]+)")

# --- seed phrases ---------------------------------------------------------------------------

# Words of ordinary English and Indonesian prose: a run of twelve words with none of them is a
# word list, not a sentence.
_PROSE_WORDS = frozenset(
    "the a an and or but of to in on at for with from by is are was were be been am i you he she it we they me my "
    "your his her its our their this that these those there here not no so as if then than when what which who "
    "how why all any some can will would should could do does did have has had just also very really like about "
    "into over after before up down out off again more most such only own same too now get got go went make made "
    "dan yang di ke dari untuk dengan ini itu ada tidak saya aku kamu dia kami kita mereka akan sudah belum juga "
    "atau tapi karena jadi pada oleh sebagai dalam bisa mau harus lagi sangat".split()
)
_WORD_RUN_RE = lazy_compile(r"(?<![\w-])(?:[a-z]{3,8}(?:[ \t]+|\s*\d{1,2}[.)]\s*)){11,23}[a-z]{3,8}(?![\w-])")
_CJK_RUN_RE = lazy_compile(r"(?:[\u4e00-\u9fff]{1,4}[\s,，、]+){11,23}[\u4e00-\u9fff]{1,4}")

# Parts of identifier-style keys ("AccountKey", "DB_PWD"): a label holding one is read.
_LABEL_HINTS = ("key", "secret", "token", "pass", "pwd", "pin", "otp", "sig", "auth", "cred")
_GATE = Gate(
    "password", "passwords", "passw0rd", "pa55word", "p4ssword", "p@ssword", "passwd", "pwd", "pw", "passcode", "passcodes",
    "passphrase", "passkey", "pass", "pin", "pins", "otp", "otps", "code", "codes", "2fa", "mfa", "question", "questions",
    "answer", "answers", "maiden", "memorable", "safeword", "safe", "codeword", "secret", "secrets", "sandi", "sandinya",
    "kata", "frasa", "kode", "pertanyaan", "jawaban", "gadis", "private", "priv", "signing", "seed", "mnemonic",
    "recovery", "backup", "restore", "wallet", "kunci", "api", "apikey", "access", "account", "shared", "client", "app",
    "auth", "bearer", "refresh", "session", "personal", "connection", "webhook", "token", "tokens", "passport",
    "passports", "ssn", "social", "national", "id", "driver", "drivers", "tax", "nik", "ktp", "npwp", "nomor", "paspor",
    "card", "cvv", "cvv2", "cvc", "bank", "routing", "no", "verification", "confirmation", "security", "authentication",
    "login", "sign", "signin", "unlock", "sms", "text", "reset", "two", "one",
    "密码", "口令", "验证码", "校验码", "动态码", "短信码", "安全码", "确认码", "备用码", "恢复码", "密保", "安全问题", "暗号",
    "私钥", "助记词", "种子", "恢复", "密钥", "秘钥", "令牌", "身份证", "护照", "驾照", "卡号", "银行账号",
    "รหัส", "พาสเวิร์ด", "พิน", "โอทีพี", "คำถาม", "คำตอบ", "คีย์", "วลี", "คำกู้คืน", "คำสำรอง", "โทเค็น",
    "หนังสือเดินทาง", "พาสปอร์ต", "บัตรประชาชน", "เลขบัตร", "เลขบัญชี",
)


# What a concept is for, before its "is": "the security question about my first school is ...".
_LEAD_RE = lazy_compile(
    r"(?:,?\s+[^\s:：=,]+){1,12}?(?=\s+(?:is|are|was|were|adalah|ialah|yaitu|so|jadi|jawabannya|"
    r"I (?:put|used|use|typed|type|chose|set|picked|gave|give|answered|answer|say|said|enter|entered|wrote|write))\b"
    r"|\s*(?:=|:|：|->|→))",
    _I,
)
_LEAD_CJK_RE = lazy_compile(r"[^\s:：=,，。]{1,24}?(?=是|为|為|：|:|คือ|答案是|คำตอบคือ)")


# How far from its concept a value is looked for, and how many concepts one text may name.
_WINDOW_BEFORE = 160
_WINDOW_AFTER = 320
_MAX_CONCEPTS = 64
_MARK_RE = lazy_compile(r"\[(?:REDACTED|BLOCKED):[^\]]*\]")
_LEET_RE = lazy_compile(r"p[a@4][s5$]{1,2}w[o0]r?d")  # "pa$$word", "p4ssw0rd": no gate word of their own


def _is_wordy(concept: str) -> bool:
    low = concept.lower()
    return any(w in low for w in _WORDY)


def _concepts(s: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each secret concept in `s` that is not a thing about secrets."""
    out: list[tuple[int, int, str]] = []
    for m in _CONCEPT_RE.finditer(s):
        kind = m.lastgroup or PASSWORD
        if _META_AFTER_RE.match(s, m.end()) or _META_BEFORE_RE.search(s[max(0, m.start() - 24) : m.start()]):
            continue
        out.append((m.start(), m.end(), kind))
    return out


def _sentence_ends(s: str) -> list[tuple[int, int]]:
    return [m.span() for m in _SENTENCE_END_RE.finditer(s)]


def _sentence_bounds(ends: list[tuple[int, int]], starts: list[int], start: int, end: int, n: int) -> tuple[int, int]:
    """The sentence around [start, end), cut to a window: a value stands near its concept."""
    i = bisect.bisect_right(starts, start) - 1
    a = ends[i][1] if i >= 0 else 0
    j = bisect.bisect_left(starts, end)
    b = ends[j][0] if j < len(ends) else n
    return max(a, start - _WINDOW_BEFORE), min(b, end + _WINDOW_AFTER)


def _valueish(tok: str, s: str, end: int) -> bool:
    """Does this token read as a secret's value (digits, symbols, mixed case), not a date, count or word?"""
    core = tok.strip(".,!?;:)(]['\"")
    if len(core) < 3 or "://" in core or "@" in core:
        return False
    if _DATE_LIKE_RE.match(core):
        return False
    digits = sum(c.isdigit() for c in core)
    if digits == 0:
        return (any(c in "!#$%&*+=?^~|<>{}\\" for c in core) and any(c.isalpha() for c in core) and len(core) >= 6)
    if core.isdigit() and _UNIT_AFTER_RE.match(s, end):
        return False
    return len(core) >= 4


def _value_after_copula(s: str, pos: int, stop: int, wordy: bool) -> tuple[int, int] | None:
    """The value right after "is" / ":" / "是" ... at `pos` (the copula is required)."""
    m = _COPULA_RE.match(s, pos)
    if m is None or m.end() == pos:
        return None
    i = m.end()
    q = _QUOTED_RE.match(s, i)
    if q is not None and q.end() <= stop + 1:
        return q.start(), q.end()
    rest = s[i:stop]
    if not rest.strip():
        return None
    if re.match(r"[\u4e00-\u9fff\u0e00-\u0e7f]", rest):  # a CJK or Thai value runs to the next space or punctuation
        run = re.match(r"[^\s,，、.。!！?？;；]+", rest)
        if run is None:
            return None
        end = i + run.end()
        if wordy:  # a list of CJK / Thai words
            more = re.match(r"(?:[^\s,，.。!！?？;；]+[\s,，、]*)+", rest)
            end = i + (more.end() if more else run.end())
        return i, end
    words = re.findall(r"[^\s]+", rest)
    first = words[0].strip(".,!?;:\"'").lower()
    if first in _NOT_A_VALUE or first.startswith(("password", "passw", "pin")):
        return None
    if wordy:
        cut = re.search(r",\s+(?:and|but|dan|tapi)\b|\s+(?:because|since|karena|so that)\b", rest, _I)
        end = i + (cut.start() if cut else len(rest.rstrip()))
        return i, end
    tok = re.match(r"[^\s,]+", rest)
    if tok is None:
        return None
    return i, i + tok.end()


def _word_value(s: str, pos: int, stop: int, wordy: bool) -> tuple[int, int] | None:
    """The word (or words) right after a concept: "the password marmalade"."""
    m = re.match(r"\s+([^\s,.;:!?]+)", s[pos:stop])
    if m is None or m.group(1).lower() in _NOT_A_VALUE or _META_AFTER_RE.match(s, pos):
        return None
    start = pos + m.start(1)
    if not wordy:
        return start, pos + m.end(1)
    rest = s[start:stop]
    cut = _WORDS_STOP_RE.search(rest)
    return start, start + (cut.start() if cut else len(rest.rstrip(" .!?")))


# Codes that are not secrets: "discount code", "kode pos", "รหัสไปรษณีย์", "error code".
_WEAK_META_BEFORE_RE = lazy_compile(
    r"(?:discount|promo|coupon|voucher|referral|invite|invitation|zip|postal|post|area|country|dress|source|error|status|"
    r"qr|bar|colou?r|tax|product|course|class|flight|booking|tracking|reference|gift|exit|airport|station)\s*$",
    _I,
)
_WEAK_META_RE = lazy_compile(
    r"\s*(?:pos|promo|voucher|referral|booking|tiket|kupon|diskon|produk|ไปรษณีย์|สินค้า|พนักงาน|นักศึกษา|นักเรียน|วิชา|"
    r"โปรโมชั่น|ส่วนลด|ติดตาม|พัสดุ|review|reviews|base|editor|quality|style|smell)",
    _I,
)
_HASH_RE = lazy_compile(r"[0-9a-f]{7,}|[0-9A-F]{7,}|[0-9a-fA-F]*:[0-9a-fA-F:]*|\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def _weak_concept_findings(s: str) -> list[Span]:
    """A value of a secret's shape beside a word that names a secret only then."""
    out: list[Span] = []
    ends = _sentence_ends(s)
    end_starts = [e[0] for e in ends]
    for m in list(_WEAK_CONCEPT_RE.finditer(s))[:_MAX_CONCEPTS]:
        if _META_AFTER_RE.match(s, m.end()) or _WEAK_META_RE.match(s, m.end()):
            continue
        if _WEAK_META_BEFORE_RE.search(s[max(0, m.start() - 24) : m.start()]):
            continue
        a, b = _sentence_bounds(ends, end_starts, m.start(), m.end(), len(s))
        delivered = _DELIVERED_RE.search(s, a, b) is not None
        for t in _TOKEN_RE.finditer(s, a, b):
            core = t.group(0).strip(".,!?;:)(]['\"")
            if _DATE_LIKE_RE.match(core) or "@" in core or "://" in core or len(core) < 4 or _HASH_RE.fullmatch(core):
                continue
            letters = sum(c.isalpha() for c in core)
            digits = sum(c.isdigit() for c in core)
            mixed = letters >= 2 and digits >= 2 and not re.fullmatch(r"[A-Za-z]{1,3}-?\d+|\d+[A-Za-z]{1,3}", core)
            code = core.isdigit() and 4 <= digits <= 8 and delivered and not _UNIT_AFTER_RE.match(s, t.end())
            if mixed or code:
                start = t.start() + t.group(0).index(core)
                out.append((start, start + len(core), PASSWORD))
    return out


def _concept_findings(s: str) -> list[Span]:
    out: list[Span] = []
    ends = _sentence_ends(s)
    end_starts = [e[0] for e in ends]
    for c_start, c_end, kind in _concepts(s)[:_MAX_CONCEPTS]:
        a, b = _sentence_bounds(ends, end_starts, c_start, c_end, len(s))
        wordy = _is_wordy(s[c_start:c_end])
        # 1. After the concept, up to six words of what it is for, then "is" / ":" / "是" and the value.
        after = s[c_end:b]
        lead = _LEAD_RE.match(after) or _LEAD_CJK_RE.match(after)
        starts = [c_end] + ([c_end + lead.end()] if lead is not None and lead.end() else [])
        for pos in starts:
            value = _value_after_copula(s, pos, b, wordy)
            if value is not None:
                out.append((value[0], value[1], kind))
                break
        # 1a. "set the sudo pass on the build server to copperfinch", "changed my PIN to ...".
        if _SET_BEFORE_RE.search(s[max(a, c_start - 48) : c_start]):
            to = _SET_TO_RE.match(s, c_end, b)
            if to is not None:
                value = _word_value(s, to.end(), b, wordy)
                if value is not None:
                    out.append((value[0], value[1], kind))
        # 1b. "picked the password marmalade", "use the passphrase purple monkey dishwasher for ...".
        if _CHOOSE_BEFORE_RE.search(s[max(a, c_start - 48) : c_start]):
            value = _word_value(s, c_end, b, wordy or "phrase" in s[c_start:c_end].lower())
            if value is not None:
                out.append((value[0], value[1], kind))
        # 2. A quoted string in the sentence (a passphrase, an answer).
        for q in _QUOTED_RE.finditer(s, a, b):
            if q.end() <= b:
                out.append((q.start(), q.end(), kind))
        # 3. Every token in the sentence that reads as a value (digits, symbols): "kode OTP dari bank 604918",
        #    "1987, so Biscuit1987 is ..." - before the concept only within its clause.
        back = max(a, c_start - 60)
        comma = max(s.rfind(",", back, c_start), s.rfind("，", back, c_start))
        lo = comma + 1 if comma >= 0 else back
        hi = min(b, c_end + 120)
        cut = _NEXT_CLAUSE_RE.search(s, c_end, hi)
        hi = cut.start() if cut else hi
        for t in _TOKEN_RE.finditer(s, lo, hi):
            if t.start() < c_end and t.end() > c_start:
                continue  # the concept's own word ("1Password")
            if _valueish(t.group(0), s, t.end()):
                core_start = t.start() + (len(t.group(0)) - len(t.group(0).lstrip(".,!?;:)(]['\"")))
                core_end = t.start() + len(t.group(0).rstrip(".,!?;:)(]['\""))
                out.append((core_start, core_end, kind))
    return out


def _key_names_secret(name: str) -> bool:
    """An identifier-style key (AccountKey, DB_PASSWORD, client-secret, sig) that names a secret."""
    parts = [p.lower() for p in _CAMEL_RE.findall(name.replace("-", "_").replace(".", "_"))]
    if not parts or parts[-1] in _NOT_KEY_LAST:
        return False
    return any(p in _KEY_WORDS for p in parts)


def label_kind(label: str) -> str | None:
    """The kind of secret a label names ("Security question answer", "PIN", "Recovery words",
    "Passport", "AccountKey", "kode OTP dari bank"), or None. A label about secrets ("Password
    manager", "Passport expiry") names none."""
    label = label.strip(" -*+\t")
    if not label:
        return None
    found = _concepts(label)
    if found:
        return found[-1][2]
    if " " not in label.strip() and _key_names_secret(label.strip()):
        return API_KEY if not re.search(r"pass|pwd|pin|otp", label, _I) else PASSWORD
    return None


def _label_findings(s: str) -> list[Span]:
    out: list[Span] = []
    if ":" in s or "：" in s:
        for m in _LABEL_RE.finditer(s):
            label = m.group(1)
            words = label.split()
            kind = label_kind(" ".join(words[-6:])) if words else None
            if kind is None:
                continue
            v_start = m.start(2)
            stop = _SENTENCE_END_RE.search(s, v_start)
            v_end = stop.start() if stop else m.end(2)
            value = s[v_start:v_end].rstrip()
            if value:
                out.append((v_start, v_start + len(value), kind))
    if "=" in s:
        for m in _ASSIGN_RE.finditer(s):
            if _key_names_secret(m.group(1)) or label_kind(m.group(1)) is not None:
                val = m.group(2)
                if not re.fullmatch(r"(?:true|false|none|null|yes|no|\d{1,2}|<[^>]*>|\$\{?\w+\}?|x+|\*+)", val, _I):
                    out.append((m.start(2), m.end(2), label_kind(m.group(1)) or API_KEY))
    return out


def _shape_findings(s: str, t: Text) -> list[Span]:
    out: list[Span] = []
    if any(c.isdigit() for c in s):
        for m in _HEX64_RE.finditer(s):
            has_prefix = m.group(0).startswith("0x")
            before = s[max(0, m.start() - 40) : m.start()]
            if _TX_BEFORE_RE.search(before):
                continue
            if has_prefix or re.search(r"priv|key|wallet|secret|seed|kunci|私钥|密钥|คีย์", before, _I):
                out.append((m.start(), m.end(), PRIVATE_KEY))
        if "prv" in s:
            out += [(m.start(), m.end(), PRIVATE_KEY) for m in _XPRV_RE.finditer(s)]
        out += [(m.start(), m.end(), PRIVATE_KEY) for m in _WIF_RE.finditer(s)]
    if len(t.words) >= 12:
        for m in _WORD_RUN_RE.finditer(s):
            words = re.findall(r"[a-z]+", m.group(0))
            if len(words) in (12, 15, 18, 21, 24) and not any(w in _PROSE_WORDS for w in words):
                out.append((m.start(), m.end(), PRIVATE_KEY))
    if not t.ascii:
        for m in _CJK_RUN_RE.finditer(s):
            out.append((m.start(), m.end(), PRIVATE_KEY))
    return out


def secret_findings(s: str, t: Text) -> list[Span]:
    """(start, end, kind) of every secret found by concept, key or shape in `s`."""
    if "[REDACTED:" in s or "[BLOCKED:" in s:  # redact() is idempotent: its markers are neither concepts nor values
        s = _MARK_RE.sub(lambda m: " " * len(m.group(0)), s)
        t = Text(s)
    out = _shape_findings(s, t)
    if any(c.isdigit() for c in s):
        out += _weak_concept_findings(s)
    if _GATE.hit(t) or _LEET_RE.search(t.low):
        out += _concept_findings(s)
        out += _label_findings(s)
    elif ("=" in s or ":" in s or "：" in s) and any(w in t.low for w in _LABEL_HINTS):
        out += _label_findings(s)
    return out
