"""Credential detectors: private keys, API tokens, passwords (labelled, named after their value,
or password-shaped in a sentence about a login), access codes and PINs, login pairs."""

from __future__ import annotations

import math
import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.guards.gates import Gate, Text
from pipeline.guards.kinds import API_KEY, PASSWORD, PRIVATE_KEY, Span, matches
from pipeline.guards.normalise import text_before

_I = re.IGNORECASE
_A = re.ASCII  # digits, emails and tokens are ASCII; \w must not swallow the Chinese or Thai around them

_PRIVATE_KEY_RE = lazy_compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*)",
    re.DOTALL,
)
_KNOWN_TOKEN_RE = lazy_compile(
    r"(?<![\w-])(?:"
    r"sk-(?:ant-|proj-|live-)?[A-Za-z0-9_-]{16,}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}"
    r"|hf_[A-Za-z0-9]{20,}|npm_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_-]{30,}|dop_v1_[a-f0-9]{30,}"
    r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"|hooks\.slack\.com/services/[A-Za-z0-9/]+"
    r")",
    _A,
)
_SECRET_CTX_RE = lazy_compile(
    r"(?:api[\s_-]?key|apikey|access[\s_-]?key|secret(?:[\s_-]?key)?|client[\s_-]?secret|auth[\s_-]?token|"
    r"access[\s_-]?token|token|bearer|kunci api|kunci rahasia|密钥|令牌|秘钥|โทเค็น|คีย์ api|คีย์)"
    r"(?:\s+(?:saya|ku|kami|ของฉัน|ของผม|for|untuk)(?:\s+\w+)?)?\s*(?:is|=|:|：|adalah|yaitu|是|为|คือ)?\s*[\"'“]?"
    r"([^\s\"'”,;，。]{8,})",
    _I,
)
_GENERIC_TOKEN_RE = lazy_compile(r"(?<![\w/+=.-])[A-Za-z0-9_-]{24,}(?![\w/+=-])|(?<![\w/+=])[A-Za-z0-9+/]{32,}={1,2}", _A)
_SSH_PUB_BEFORE_RE = lazy_compile(r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+)\s+$")  # public keys are not secrets
_URL_CRED_RE = lazy_compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s@/]+)@", _I | _A)
_PASSWORD_RE = lazy_compile(
    r"(?:pass(?:word|wd|code|phrase)|\bpass(?=\s*[:=])|\bpw(?=\s*[:=])|\bpwd|\bpin(?: code| number)?|kata sandi|kata kunci|\bsandi|"
    r"seed phrase|recovery phrase|mnemonic|secret (?:phrase|word|answer)|security answer|safe ?word|code ?word|"
    r"(?:log-?in|sign-?in|pass|access|unlock|master|vault|wallet|backup|memorable|account|entry|door)[ -]?phrase|"
    r"memorable (?:word|answer)|log-?in words?|(?:phrase|words|sentence) (?:that )?(?:I|we) (?:use to |type to )?(?:log|sign) ?in with|"
    r"(?:phrase|words|sentence) (?:that )?(?:I|we) (?:use|type) (?:to (?:log|sign) ?in|to unlock|for (?:my|our|the) (?:[\w-]+ )?(?:laptop|computer|pc|phone|account|bank|vault|"
    r"wallet|wi-?fi|email|login|router|server|mac|ipad|tablet))|frasa (?:masuk|login|rahasia|akun)|kalimat (?:sandi|rahasia|masuk)|"
    r"登录(?:短语|暗语|口令)|密语|暗语|วลี(?:ล็อกอิน|เข้าสู่ระบบ|ผ่าน|รหัส|ลับ)(?:ที่[\u0e00-\u0e7f]{1,20}?(?=คือ|:))?|"
    r"mother'?s maiden name|frasa sandi|kata rahasia|nama gadis ibu|暗号|母亲的娘家姓|母亲婚前姓|"
    r"密码(?!学|管理|重置|策略|强度|保护|找回)|口令|รหัสผ่าน|พาสเวิร์ด|รหัส\s?pin|รหัสลับ|รหัส)"
    r"(?:\s+(?:for|of|to|on|untuk|ke|buat)\s+[^\s:=]{1,30})?"
    r"(?:\s*(?:email|e-mail|wifi|wi-fi|akun|account|laptop|bank|hp|gmail|router|admin|login|master|root|database|db|server|"
    r"surel|rumah|kantor|atm|kartu|card|phone|ponsel|邮箱|账号|账户|电脑|银行卡|银行|อีเมล|บัญชี|ไวไฟ|wifi ?บ้าน|atm|บัตร)){0,2}"
    r"(?:(?:\s+(?!manager|policy|reset|field|hint|rules?|generator|vault|app|strength|length|requirements?)[a-z]{1,12}){1,3}\s+(?=is\b|was\b|:|=)"
    r"|[\u0e00-\u0e7f\u4e00-\u9fff]{1,12}?(?=[:=：]|คือ|是|为))?"
    r"(?:\s*(?:is|was|=|:|：|adalah|yaitu|ialah|nya|saya|ku|aku|baru|ya|dong|nih|sekarang|kini|skrg|是|为|為|คือ|ของฉัน|ของผม|ใหม่|new|"
    r"always|still|just|currently|usually|will|be|selalu|masih|一直|始终|เสมอ)(?![a-z0-9])){1,5}\s*[\"'“「]?"
    r"([^\s\"'”」,，。;；]+(?:\s+[a-z]+){0,11})",
    _I,
)
# An unlabelled password: a token that mixes upper and lower case, digits and symbols, in a sentence about a login.
_CREDENTIAL_CONTEXT_RE = lazy_compile(
    r"\b(?:log ?in|sign ?in|account|bank|vault|wi-?fi|router|unlock|akun|rekening|masuk)\b|登录|账号|账户|银行|เข้าสู่ระบบ|บัญชี|ไวไฟ",
    _I,
)
_MIXED_TOKEN_RE = lazy_compile(r"(?<!\S)[^\s\"'“”]{8,64}(?=[\s,.!?;:\"'”]*(?:\s|$))")


def _password_shaped(token: str) -> bool:
    token = token.rstrip(".,!?;:")
    if "@" in token or "://" in token or len(token) < 8:
        return False
    return (any(c.isupper() for c in token) and any(c.islower() for c in token) and any(c.isdigit() for c in token)
            and any(c in _PASSWORD_SYMBOLS for c in token))


# Symbols names rarely carry (a "Home-Net5G" wifi name is no password; "Tr0ub4dor&3" is).
_PASSWORD_SYMBOLS = frozenset("!#$%&*+=?^~|<>{}[]()/\\")
_PASSPHRASE_WORD_RE = lazy_compile(
    r"seed|recovery|mnemonic|phrase|frasa|kalimat|secret word|secret answer|security answer|memorable|maiden|"
    r"log-?in words?|短语|暗语|密语|口令|วลี", _I)
_NOT_A_PASSWORD = frozenset(
    "too weak strong long short expired the a an same not very still wrong incorrect required changed reset "
    "secure safe hard easy different saved stored in on at my your lost forgotten case-sensitive missing "
    "manager managers policy correct invalid being now also just only lemah kuat salah sama terlalu sudah "
    "lupa baru hilang 错误 太 了 ไม่ ผิด".split()
)
# A password named after its value: "hunter2 is my password", "use X as the wifi password",
# "pakai X sebagai kata sandi", "把 X 设为密码", "ใช้ X เป็นรหัสผ่าน".
_NOT_A_VALUE = frozenset(
    "what which this that it here there where why how who whose mine yours same one none nothing something anything "
    "use used using set change changed reset remember save keep ini itu apa sama".split()
)
_PASSWORD_BEFORE_RE = lazy_compile(
    r"(?<![^\s\"'“(])[\"'“]?([^\s\"'“”]{3,64}?)[\"'”]?\s+(?:is|was|will be|as|for)\s+(?:my|the|our|his|her|your)\s+"
    r"(?:(?:new|old|current|usual|main|master|default)\s+)?(?:[\w-]+\s+){0,2}?(?:password|passcode|passphrase|pin(?: code)?)\b"
    r"(?!\s*(?:manager|policy|reset|hint|rules?|generator|vault|app|strength|field)s?\b)|"
    r"(?<![^\s\"'“(])[\"'“]?([^\s\"'“”]{3,64}?)[\"'”]?\s+is\s+(?:what|the one|the thing)\s+I\s+(?:use|type|enter)\s+(?:for|as|to unlock)\s+"
    r"(?:my|the|our)\s+(?:[\w-]+\s+){0,3}?(?:password|passcode|passphrase|pin)\b|"
    r"(?<![^\s\"'“(])[\"'“]?([^\s\"'“”]{3,64}?)[\"'”]?\s+(?:sebagai|jadi|adalah|itu|buat|untuk)\s+(?:kata sandi|sandi|password|pin|kode pin)\b|"
    r"(?:用|把|将|拿)\s*[「“\"]?([!-~]{3,64}?)[」”\"]?\s*(?:作为|当作|当成|当|做|设为|设成|设置为|设置成|改成|改为)\s*(?:我的|我|的)?\S{0,6}?(?:密码|口令)(?!管理|学|策略|重置)|"
    r"(?<![!-~])([!-~]{3,64})\s*(?:就是|是)\s*我的\S{0,6}?(?:密码|口令)|"
    r"ใช้\s*([!-~]{3,64}?)\s*เป็นรหัส(?:ผ่าน)?|(?<![!-~])([!-~]{3,64})\s*(?:คือ|เป็น)รหัสผ่าน",
    _I,
)
# Door, gate, alarm, safe codes: a code word, then a value with digits.
_ACCESS_CODE_RE = lazy_compile(
    r"(?:\b(?:door|gate|alarm|garage|lockbox|lock box|key ?safe|key box|safe|front door|back door|entry|entrance|"
    r"access|keypad|padlock|locker|bike lock|unlock|intercom|buzzer|atm|bank|card|debit|phone|sim|storage unit|storage|"
    r"self-storage|shed|mailbox|post ?box|lobby|building|elevator|lift|parking|car park|apartment|flat|house|home|office|"
    r"vault|cabinet|suitcase|luggage|cage)(?:'s)?\s+(?:(?!area|zip|post(?:al)?|country|promo|dress|source|discount|bar|qr|"
    r"colou?r|error|status|tax|sort|swift|routing|branch)[\w-]+\s+)?(?:code|combination|combo|pin|keypad)s?\b|"
    r"\b(?:code|combination|combo|pin|passcode)s?\s+(?:for|to|of|on|at|into)\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:storage(?: unit)?|unit|locker|door|gate|garage|safe|shed|building|house|flat|apartment|office|"
    r"lobby|mailbox|cage|vault|padlock|lock|alarm|keypad|entrance|lockbox|key ?safe)s?\b|"
    r"\bkode\s+(?:pintu|pagar|gerbang|alarm|garasi|brankas|akses|kunci|gembok|loker|masuk|keamanan|gudang|unit|kamar|kos|"
    r"kost|apartemen|rumah|kantor|lift|parkir|kotak surat|lemari|penyimpanan|ruang)\b|"
    r"(?:门禁|大门|门锁|密码锁|保险箱|保险柜|车库|报警器|防盗门|储物柜|仓库|储物间|储藏室|柜子|信箱|车位|电梯|单元门|家门|房门)"
    r"(?:的)?(?:码|密码|号码|数字)|(?:家|公司|小区|楼)?门禁(?:卡)?|"
    r"รหัส(?:ประตู|เข้าบ้าน|เข้าตึก|กุญแจ|ตู้เซฟ|เซฟ|สัญญาณกันขโมย|กันขโมย|โรงรถ|ล็อค|ล็อก|ล็อคเกอร์|ห้องเก็บของ|ตู้|"
    r"ล็อกเกอร์|โกดัง|ลิฟต์|ที่จอดรถ|คอนโด|หอ|ห้อง|บ้าน))"
    r"[^\d\n]{0,32}?(?<![\w])(\d[\d#* -]{1,14}[\d#*]|\d{3,})(?!\d)|"
    # "the alarm disarms with 2580", "I punch in 8806 on the keypad"
    r"\b(?:disarm|arm|unlock|open)(?:s|ed|ing)?\s+(?:it\s+|(?:the|my|our)\s+\w+\s+)?(?:with|using|by (?:typing|entering|"
    r"punching in|keying in))\s+(\d{3,10})(?!\d)|"
    r"\b(?:punch|key|type|enter|tap|dial)(?:s|ed|ing)?\s+(?:in\s+)?(\d{3,10})\s+(?:on|into|at|in)\s+(?:the\s+|a\s+|my\s+|our\s+)?"
    r"(?:\w+\s+)?(?:keypad|door|gate|panel|lock|alarm|intercom|buzzer|box|safe|padlock)",
    _I,
)
# "PIN 5820", "kode PIN 1234": the digits right after the word.
_PIN_RE = lazy_compile(
    r"(?:(?<![a-z])(?:kode\s+)?pin|พิน|รหัสพิน)(?:\s+code|\s+number)?(?:'s|’s)?\s*(?:is|:|：|=|#|adalah|是|为|คือ)?\s*(\d{4,8})"
    r"(?![\d.,:/-]\d)|(?:พิน|รหัสพิน)\S{0,20}?(?:คือ)?\s*(\d{4,8})(?!\d)|"
    r"(?<![a-z])pin(?: code| number)?\s*\?\s*(?:it'?s|it is|that'?s|easy,?)\s+(\d{4,8})(?!\d)", _I)
# "Login: bob / Hunter2024!", "username jdoe password Winter2025": the second value is the password.
# A lock named, then its code said further on in the sentence ("the lockbox by the cabin door has the spare key,
# code 5073", "to arm the house alarm I key in 4-4-1-8").
_LOCK_THEN_CODE_RE = lazy_compile(
    r"\b(?:lock ?box|key ?safe|key box|padlock|locker|safe|gate|door|alarm|garage|storage unit|keypad|shed|mailbox|cabinet|"
    r"vault|bike lock|combination lock)s?\b[^.!?\n\d]{0,60}?\b(?:code|combo|combination|pin|passcode|(?:key|keys|keyed|punch|"
    r"punches|punched|type|types|typed|tap|taps|tapped|dial|dials|dialled|dialed)\s+in|enter|enters|entered|(?:open|opens|opened|unlock|"
    r"unlocks|unlocked)\s+with)\b\s*(?:is|was|:|=|-|,)?"
    r"\s*(\d[\d#* -]{1,14}[\d#*]|\d{3,})(?!\d)",
    _I,
)
# A pass phrase said by its use ("I always log in with the phrase blue heron stands still", "the words I type to
# unlock my laptop are tangerine ladder comet"): the words after it, to the end of the clause.
_PHRASE_BY_USE_RE = lazy_compile(
    r"\b(?:log|sign)[ -]?(?:in|on)\s+(?:to\s+[\w-]+\s+)?(?:with|using)\s+(?:the\s+|my\s+|a\s+|this\s+|our\s+)?(?:secret\s+)?"
    r"(?:pass ?phrase|phrase|words?|sentence)\s*[:\"'“]?\s*((?:[^\s,.;:!?\"”]+[ \t]*){2,8})|"
    r"\b(?:unlock|open)\s+(?:(?:my|our|the)\s+)?(?:[\w-]+\s+){0,2}?(?:with|using)\s+(?:the\s+|my\s+|a\s+)?(?:secret\s+)?"
    r"(?:pass ?phrase|phrase|words|sentence)\s*[:\"'“]?\s*((?:[^\s,.;:!?\"”]+[ \t]*){2,8})|"
    r"\b(?:pass ?phrase|phrase|words|sentence)\s+(?:that\s+)?(?:I|we)\s+(?:always\s+|usually\s+|still\s+)?(?:use|type|enter|say|key in)\s+"
    r"(?:(?:to\s+(?:log|sign)[ -]?(?:in|on)|to\s+unlock|to\s+open|to\s+get\s+into)\s+(?:(?:my|our|the)\s+)?(?:[\w-]+\s+){0,2}?|"
    r"for\s+(?:my|our|the)\s+(?:[\w-]+\s+)?(?:laptop|computer|pc|phone|account|bank|vault|wallet|wi-?fi|email|login|router|"
    r"server|mac|ipad|tablet|door|safe|app)\s+)"
    r"(?:are|is|were|was|:)\s*[\"'“]?((?:[^\s,.;:!?\"”]+[ \t]*){2,8})|"
    r"\b(?:log[ -]?in|sign[ -]?in|unlock|get into|account|laptop|computer|phone|wallet|vault|bank|e-?mail)\b[^.!?\n]{0,40}?\b(?:I|we)\s+"
    r"(?:always\s+|usually\s+)?(?:use|type|enter|say)\s+(?:the|this|a|my|our)\s+(?:secret\s+)?(?:pass ?phrase|phrase|words|sentence)"
    r"\s*[:\"'“]\s*((?:[^\s,.;:!?\"”]+[ \t]*){2,8})|"
    r"\b(?:secret|login|log-?in|sign-?in|pass|unlock)\s*phrase\s+(?:that\s+)?(?:I|we)\s+(?:always\s+|usually\s+|still\s+)?(?:use|type|say)"
    r"\s*[:\"'“]\s*((?:[^\s,.;:!?\"”']+[ \t]*){2,8})|"
    r"\b(?:secret|login|log-?in|sign-?in|pass|unlock)\s*phrase\s+(?:for|of|to|on)\s+(?:my|our|the)\s+(?:[\w-]+\s+){0,3}?(?:is|are|was)\s+"
    r"(?:always\s+|still\s+|usually\s+|now\s+)?[:\"'“]?\s*((?:[^\s,.;:!?\"”']+[ \t]*){2,8})|"
    r"\b(?:unlock|log-?in|sign-?in|login|wake|entry|vault|safe)\s+(?:words?|phrase|sentence)\s+(?:is|are|was|were|:)\s*[\"'“]?"
    r"((?:[^\s,.;:!?\"”']+[ \t]*){2,8})|"
    r"\b(?:pass ?phrase|phrase|words|sentence)\b[^.!?\n:]{0,40}?\bto\s+(?:log|sign)[ -]?(?:in|on)\b[^.!?\n:]{0,20}?\s*[:\"'“]\s*"
    r"((?:[^\s,.;:!?\"”]+[ \t]*){2,8})|"
    r"ใช้(?:วลี|ประโยค|คำ)(?:ลับ)?\s*[\"'“]?([^\s\"'”]{2,40})[\"'”]?\s*(?:เพื่อ|ใน|ตอน|เวลา)?\s*(?:ล็อกอิน|เข้าสู่ระบบ|ปลดล็อก|เข้าระบบ)|"
    r"(?:用|拿)(?:这句话|这个短语|这句|这几个字|这串字|这个口令)(?:来)?(?:登录|登陆|解锁|开锁)\s*[:：]?\s*([^\s，。,;；]{2,30})|"
    r"(?:登录|登陆|解锁)(?:时|的时候)?(?:一直|总是|都)?(?:用|输入)(?:的)?(?:是)?(?:这句话)?\s*[:：]\s*([^\s，。,;；]{2,30})",
    _I,
)
# A lock and its numbers, said plainly: "bike lock is 7-2-2-9", "padlock: 0-7-3".
_LOCK_IS_RE = lazy_compile(
    r"\b(?:bike lock|padlock|combination lock|lock ?box|key ?safe|luggage lock|suitcase lock|safe)\s*(?:combo|combination|code)?\s*"
    r"(?:is|was|=|:|-)\s*(\d[\d#* -]{1,14}[\d#*]|\d{3,})(?!\d)",
    _I,
)
# A door, alarm or keypad and four or more digits after a colon: "office alarm: 2-5-8-0 then OFF", "front door: 4417#"; the
# code to get into a place: "the code to get into the storage cage is 8812".
_PLACE_DIGITS_RE = lazy_compile(
    r"\b(?:alarm(?! clock)|gate|door|keypad|intercom|buzzer|storage(?: unit| cage)?|cage|shed|garage|vault|lockbox)\s*(?:[:=]|\bis\b)\s*"
    r"(\d(?:[ -]?\d){3,7}#?)(?![\d:]|\.\d)|"
    r"(?:密码锁|门锁|保险柜|保险箱|门禁|储物柜|柜子|车库|ตู้เซฟ|ประตู|กุญแจ)\S{0,4}?(?:[:：=]|是|为|คือ)\s*(\d[\d#* -]{1,14}[\d#*]|\d{3,})(?!\d)|"
    r"รหัส(?:โทรศัพท์|มือถือ|ปลดล็อก|เครื่อง|ไอแพด|แท็บเล็ต|คอม)\S{0,8}?\s*(?:คือ|:)?\s*(\d{4,8})(?!\d)|"
    r"(?:取件码|取货码|提货码|开箱码)\s*(?:[:：=]|是|为)?\s*(\d{4,8})(?!\d)|"
    r"\b(?:sms|otp|one-time|verification|security|login|sign-in|2fa|auth(?:entication)?|text(?:ed)?)\s+(?:code|passcode|pin)\b[^\d\n]{0,12}"
    r"(\d{3}[ -]\d{3})(?!\d)|"
    r"\bcode\s+(?:to|for)\s+(?:get(?:ting)?\s+into|open(?:ing)?|unlock(?:ing)?|enter(?:ing)?|access(?:ing)?)\s+[^.!?\n\d]{0,40}?"
    r"(?:is|was|:|=)\s*(\d[\d#* -]{1,14}[\d#*]|\d{3,})(?!\d)",
    _I,
)
# "I set my gym locker to 6194", "changed the padlock to 0-7-3".
_SET_LOCK_RE = lazy_compile(
    r"\b(?:set|sets|changed?|changes|reset|resets|switched)\s+(?:the\s+|my\s+|our\s+)?(?:[\w-]+\s+)?(?:locker|padlock|lock|safe|alarm code|"
    r"keypad|door code|gate code|combination|combo|pin)\s+(?:code\s+|combination\s+)?to\s+(\d[\d#* -]{1,14}[\d#*]|\d{3,})(?!\d)",
    _I,
)
_LOGIN_PAIR_RE = lazy_compile(
    r"(?:\b(?:login|log-in|log in|sign-?in|username|user name|user|akun|account|credentials?|creds)|账号|用户名|ชื่อผู้ใช้|ล็อกอิน)"
    r"(?:\s+(?:is|adalah)\b|\s*[:=：])?\s*(?![a-z][a-z0-9+.-]*://)([^\s/|:,]{1,64})\s*(?:/|\||:|,|\s+(?:and|dan|pass(?:word)?|pw|pwd|sandi|kata sandi)\b\s*[:=]?|\s*(?:密码|รหัส(?:ผ่าน)?)\s*[:=：]?)"
    r"\s*(?!/)([^\s]{4,64})",
    _I,
)


def _entropy(s: str) -> float:
    counts: dict[str, int] = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def looks_random(tok: str) -> bool:
    """A long token that reads like a key rather than a word, a hash or an identifier."""
    if re.fullmatch(r"[0-9a-fA-F-]+", tok):  # hashes, UUIDs, hex ids are not secrets by themselves
        return False
    has_upper = any(c.isupper() for c in tok)
    has_lower = any(c.islower() for c in tok)
    digits = sum(c.isdigit() for c in tok)
    if not (has_upper and has_lower and digits >= 2):
        return False
    return _entropy(tok) >= 3.6


_SECRET_GATE = Gate(
    "key", "keys", "apikey", "api_key", "access_key", "secret_key", "secret", "secrets", "client_secret", "token", "tokens",
    "auth_token", "access_token", "bearer", "kunci", "密钥", "令牌", "秘钥", "โทเค็น", "คีย์",
)
_PASSWORD_GATE = Gate(
    "password", "passwords", "passwd", "passcode", "passphrase", "pass", "pw", "pwd", "pin", "sandi", "sandinya", "kata",
    "seed", "recovery", "mnemonic", "secret", "safeword", "codeword", "maiden", "frasa", "phrase", "passphrases", "memorable",
    "kalimat", "短语", "暗语", "密语", "วลี", "login", "log", "sandiku", "passwordku", "passwordnya", "pinku", "pinnya", "gadis",
    "密码", "口令", "暗号", "母亲", "รหัส", "พาสเวิร์ด",
)
_CODE_GATE = Gate(
    "door", "gate", "alarm", "garage", "lockbox", "lock", "safe", "key", "keybox", "entry", "entrance", "access", "keypad",
    "padlock", "locker", "unlock", "intercom", "buzzer", "atm", "bank", "card", "debit", "phone", "sim", "pin", "kode",
    "storage", "unit", "shed", "mailbox", "box", "lobby", "building", "elevator", "lift", "parking", "apartment", "flat",
    "house", "home", "office", "vault", "cabinet", "suitcase", "luggage", "cage", "code", "codes", "combination", "combo",
    "passcode", "disarm", "disarms", "disarmed", "arm", "arms", "open", "opens", "punch", "key", "type", "enter", "tap", "dial",
    "门禁", "大门", "门锁", "密码锁", "保险", "车库", "报警", "防盗门", "储物柜", "仓库", "储物间", "储藏室", "柜子", "信箱",
    "车位", "电梯", "单元门", "家门", "房门", "รหัส", "พิน", "取件码", "取货码", "提货码", "开箱码", "sms", "otp", "verification", "texted",
    "login", "security", "one", "auth", "authentication", "2fa",
)
_LOGIN_GATE = Gate(
    "login", "log", "sign", "signin", "username", "user", "akun", "account", "credential", "credentials", "creds",
    "账号", "用户名", "ชื่อผู้ใช้", "ล็อกอิน",
)


# Credentials with no known shape: a credential word, then a value with a digit or symbol ("my
# password for the staging db is Tr0ub4dor&3x", "PIN ATM 845120"). Wider than the detectors above,
# so check_text does not refuse a write on it alone: the offline engine skips such statements, and
# the at-rest redaction masks the value.
_CREDENTIAL_WORD_RE = lazy_compile(
    r"(?:password|passcode|passphrase|\bpin\b|api[ _-]?key|access[ _-]?token|secret[ _-]?key|\btoken\b|kata ?sandi|\bsandi\b|密码|口令|"
    r"รหัสผ่าน|รหัส)[^\n]{0,50}?(?P<val>(?<![\w-])[^\s,，。]*[\d#@$%&*!_][^\s,，。]*)",
    re.I,
)
_NOT_A_CREDENTIAL_RE = lazy_compile(r"^(?:\d{4}-\d{2}-\d{2}|\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?|\d{4}|v?\d+(?:\.\d+)+)[.,]?$")


def credential_word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) from each credential word to the end of the value after it (dates, years and
    version numbers are not values)."""
    return [(m.start(), m.end("val")) for m in _CREDENTIAL_WORD_RE.finditer(text)
            if not _NOT_A_CREDENTIAL_RE.match(m.group("val"))]


def credential_findings(s: str, t: Text) -> list[Span]:
    """(start, end, kind) of each private key, API key, password, access code and PIN in `s`."""
    out: list[Span] = []
    add = out.append
    if "-----BEGIN" in s:
        out += matches(_PRIVATE_KEY_RE, s, PRIVATE_KEY)
    out += matches(_KNOWN_TOKEN_RE, s, API_KEY)
    if _SECRET_GATE.hit(t):
        for m in _SECRET_CTX_RE.finditer(s):
            tok = m.group(1)
            if any(c.isdigit() for c in tok) or re.search(r"[A-Z].*[a-z]|[a-z].*[A-Z]|[_\-./+=]", tok):
                add((m.start(1), m.end(1), API_KEY))
    if len(s) >= 24 and max(map(len, s.split()), default=0) >= 24:
        for m in _GENERIC_TOKEN_RE.finditer(s):
            if looks_random(m.group(0).rstrip("=")) and not _SSH_PUB_BEFORE_RE.search(text_before(s, m.start(), 24)):
                add((m.start(), m.end(), API_KEY))
    if "://" in s:
        out += matches(_URL_CRED_RE, s, PASSWORD, group=1)
    if _PASSWORD_GATE.hit(t):
        for m in _PASSWORD_RE.finditer(s):
            val = m.group(1)
            first = val.split()[0].lower().strip(".,!?")
            phrase = bool(_PASSPHRASE_WORD_RE.search(m.group(0)))
            if phrase and len(val.split()) >= 3:
                pass  # "my passphrase is correct horse battery staple": a phrase of words, whatever its first word
            elif first in _NOT_A_PASSWORD or first.startswith(("密码", "口令", "รหัส", "password")):
                continue  # "1Password作为密码管理器": a label, not a value
            end = m.end(1)
            if not phrase:
                end = m.start(1) + len(val.split()[0])  # a password is one token; a passphrase is many
            add((m.start(1), end, PASSWORD))
    if _CREDENTIAL_CONTEXT_RE.search(s):
        for m in _MIXED_TOKEN_RE.finditer(s):  # "save this: Tr0ub4dor&3 for my bank login": no label, a password's shape
            if _password_shaped(m.group(0)):
                add((m.start(), m.end(), PASSWORD))
    if _PASSWORD_GATE.hit(t):
        for m in _PASSWORD_BEFORE_RE.finditer(s):
            group = next(g for g in range(1, 8) if m.group(g) is not None)
            val = m.group(group)
            if val.lower().strip(".,!?") not in _NOT_A_VALUE and val.lower() not in _NOT_A_PASSWORD:
                add((m.start(group), m.end(group), PASSWORD))
    if _CODE_GATE.hit(t):
        for m in _ACCESS_CODE_RE.finditer(s):
            group = next(g for g in range(1, 7) if m.group(g) is not None)
            add((m.start(group), m.end(group), PASSWORD))
        for m in _PIN_RE.finditer(s):
            group = next(g for g in range(1, 7) if m.group(g) is not None)
            add((m.start(group), m.end(group), PASSWORD))
    if _CODE_GATE.hit(t):
        out += matches(_LOCK_THEN_CODE_RE, s, PASSWORD, group=1)
        out += matches(_SET_LOCK_RE, s, PASSWORD, group=1)
        out += matches(_LOCK_IS_RE, s, PASSWORD, group=1)
        for m in _PLACE_DIGITS_RE.finditer(s):
            group = next(g for g in range(1, 7) if m.group(g) is not None)
            add((m.start(group), m.end(group), PASSWORD))
    if _PASSWORD_GATE.hit(t) or "words" in t.words or "sentence" in t.words or not t.ascii:
        for m in _PHRASE_BY_USE_RE.finditer(s):
            group = next(g for g in range(1, 12) if m.group(g) is not None)
            add((m.start(group), m.start(group) + len(m.group(group).rstrip()), PASSWORD))
    if _LOGIN_GATE.hit(t):
        for m in _LOGIN_PAIR_RE.finditer(s):
            val = m.group(2).rstrip(".,;")
            if not val.endswith(":") and (re.search(r"\d|[!@#$%^&*?~+=]", val) or re.search(r"[a-z].*[A-Z]", val)):
                add((m.start(2), m.start(2) + len(val), PASSWORD))
    return out
