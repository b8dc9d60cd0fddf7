"""What speaks for or against a waiting candidate besides a statement of the same key and value words.

candidates.py plans what a turn does to the user's candidates; this module answers its three questions:

- **Said again in other words** (`restates`): a later statement of the user's says the candidate's fact
  when it names the candidate's value (at least ANCHOR of its units: words, Chinese characters, Thai
  letter pairs, as same_fact.py counts them), means what the candidate's quote meant (the sentence
  encoder's cosine between the two at least SAME_MEANING; a threshold chosen on pairs of paraphrases
  and different facts of the same key in four languages, benchmarks/bench_restatement.py), and is not
  about someone else ("my sister is a nurse"), negated or ended ("I stopped playing chess") where the
  candidate was not.
- **Confirmed** (`confirms`, `asked_about`): the other speaker asked about the candidate's value ("So
  you're a nurse?") and the user's whole answer is a yes ("yes", "ya", "对", "ใช่ค่ะ"); a bare no
  (`denies`) drops it.
- **The other speaker's own fact** (`others_own`): a value the other speaker said about themselves
  ("I have a cat named Mochi") in the turn's history or reply, or that only the other speaker said, is
  never the user's: it is not kept and not promoted.

Pure functions over text; the encoder comes in as a function (`Meaning`), so nothing here loads a model.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable

from pipeline.errors import EncoderError
from pipeline.stages import same_fact

log = logging.getLogger("memroute.pipeline")

# The sentence encoder's cosine between a candidate's quote and a later statement from which the two mean
# the same fact: the lowest with no false promotion on benchmarks/data/restatement_pairs.jsonl
# (benchmarks/bench_restatement.py; chosen on any three languages, the fourth gets the same 0.91).
SAME_MEANING = 0.91
ANCHOR = 0.75  # the share of a candidate value's units a statement must say to name that value

Meaning = Callable[[str, str], float]  # two texts -> cosine of their sentence vectors

# People other than the user: a statement about them is no statement of the user's fact ("my sister is a
# nurse", "邻居家的狗叫旺财"), unless the candidate's own quote names them too ("my sister lives with me").
_SOMEONE_ELSE = re.compile(
    r"\b(?:sisters?|brothers?|siblings?|mom|mum|mother|dad|father|parents|wife|husband|partner|girlfriend|boyfriend|"
    r"friends?|neighbou?rs?|cousins?|aunt|uncle|boss|colleagues?|co-?workers?|roommates?|flatmates?|sons?|daughters?|"
    r"grand(?:ma|pa|mother|father)|niece|nephew)\b"
    r"|\b(?:adik|kakak|ibu|mama|papa|ayah|bapak|suami|istri|pacar|teman|temen|tetangga|sepupu|bos|atasan|rekan|nenek|"
    r"kakek|tante|om)(?:ku|nya)?\b"
    r"|妹妹|姐姐|哥哥|弟弟|妈妈|爸爸|父母|老公|老婆|丈夫|妻子|男朋友|女朋友|朋友|邻居|同事|儿子|女儿|老板|室友|奶奶|爷爷|外婆|外公|"
    r"舅舅|阿姨|叔叔"
    r"|น้องสาว|น้องชาย|พี่สาว|พี่ชาย|แม่(?!น้ำ)|พ่อ(?!ครัว)|สามี|ภรรยา|แฟน|เพื่อน|ลูกสาว|ลูกชาย|หัวหน้า|เจ้านาย",
    re.IGNORECASE,
)
# A fact that ended or never held: "I stopped playing chess", "udah nggak main gitar lagi", "我早就不下棋了",
# "ฉันเลิกเล่นกีตาร์แล้ว" (same_fact's negation words count too).
_ENDED = re.compile(
    r"\b(?:stopped|quit|no longer|any ?more|gave up|used to)\b"
    r"|\b(?:berhenti|dulu|(?:udah|sudah) (?:nggak|gak|ga|tidak|enggak)|(?:nggak|gak|tidak|enggak) lagi)\b"
    r"|不再|已经不|早就不|戒了|以前|เลิก|เคย",
    re.IGNORECASE,
)
# The speaker stating something of their own: a first-person subject with a verb of having, being, living, doing or
# liking, or a first-person possessive ("I have a cat", "my cat", "aku juga punya", "kucingku", "我也养了", "我的",
# "ฉันก็มี", "ของฉัน"); "I think Mochi is a lovely name" states nothing of the speaker's.
_SELF = re.compile(
    r"\b(?:my|mine|our|ours)\b|\b(?:i|we)'(?:m|ve|re)\b|\b(?:i|we)(?:\s+(?:also|too|really|just|still|even|actually))*\s+"
    r"(?:am|are|have|has|own|live|work|got|keep|raise|play|love|like|enjoy|study|teach)\b"
    r"|\b(?:aku|saya|gue|gw|kami|kita)(?:\s+(?:juga|masih|sudah|udah|lagi|sih))*\s+(?:punya|pelihara|memelihara|tinggal|"
    r"kerja|bekerja|suka|senang|main|adalah|seorang)\b|\b\w{2,}ku\b"
    r"|我们?(?:也|还|都|一直|现在)*(?:有|是|养|住|在|喜欢|爱|做|当)|我们?的"
    r"|(?:ฉัน|ผม|ดิฉัน|เรา)(?:ก็|ยัง|เอง)*(?:มี|เป็น|อยู่|ชอบ|เลี้ยง|ทำงาน|เล่น)|ของ(?:ฉัน|ผม|ดิฉัน|เรา)",
    re.IGNORECASE,
)
_SECOND_PERSON = re.compile(
    r"\b(?:you|your|yours|you're|you've|u|ur|kamu|anda|kau|lu|lo|elo)\b|\w+mu\b|你|您|คุณ|เธอ",
    re.IGNORECASE,
)
# A question: a question mark, or the four languages' question words and particles at the end.
_QUESTION = re.compile(
    r"[?？]|\b(?:apakah|bukan|kan)\s*$|(?:吗|嗎|吧|呢)[。.!！]*$|(?:ไหม|มั้ย|หรอ|เหรอ|หรือเปล่า|หรือ|ใช่ไหม)(?:คะ|ครับ|ค่ะ|จ๊ะ)?\s*$",
    re.IGNORECASE,
)
_YES_WORD = (r"(?:yes|yeah|yea|yep|yup|yah|ya|iya+|iyap|yoi|betul|benar|bener|correct|right|exactly|indeed|true|"
             r"sure|definitely|absolutely|mhm+|uh-?huh|that'?s right|that is right|that'?s me|you got it|you bet|"
             r"是的?|对的?|對的?|对呀|对啊|是啊|是呀|没错|沒錯|嗯+|当然|當然|"
             r"ใช่|ถูกต้อง|แน่นอน|ถูกแล้ว)")
_NO_WORD = (r"(?:no|nope|nah|not really|not at all|not quite|tidak|nggak|ngga|gak|enggak|bukan|belum|"
            r"不是|不对|不對|没有|沒有|不|ไม่ใช่|เปล่า|ไม่)")
_TAIL = (r"(?:i am|i'm|i do|i have|i did|it is|it's true|sir|ma'am|lol|haha+|kok|dong|sih|deh|banget|kak|lah|"
         r"of course|indeed|啊|呀|呢|的|了|吧|哈+|ค่ะ|คะ|ครับ|คับ|จ้ะ|จ้า|จ้ะ|แล้ว|นะ|เลย|555+)")
_SEP = r"[\s,，、.!！~。…]*"
_YES = re.compile(rf"^{_SEP}{_YES_WORD}(?:{_SEP}(?:{_YES_WORD}|{_TAIL}))*{_SEP}$", re.IGNORECASE)
_NO = re.compile(rf"^{_SEP}{_NO_WORD}(?:{_SEP}(?:{_NO_WORD}|{_TAIL}))*{_SEP}$", re.IGNORECASE)
_SENTENCES = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
_CLAUSES = re.compile(r"[^,，、;；:：]+")


def named_share(value: str, text: str, key: str = "") -> float:
    """How much of `value` (its units, same_fact.py) `text` says: 1.0 when every word of it is there."""
    units = same_fact.units_of(value, key).units
    if not units:
        return 0.0
    return same_fact.shared_units(units, same_fact.units_of(text, key).units) / len(units)


def names(value: str, text: str, key: str = "") -> bool:
    return named_share(value, text, key) >= ANCHOR


def about_someone_else(statement: str, quote: str) -> bool:
    """Is the statement about another person whom the candidate's own quote does not name?"""
    found = {m.group().casefold() for m in _SOMEONE_ELSE.finditer(statement)}
    return bool(found - {m.group().casefold() for m in _SOMEONE_ELSE.finditer(quote)})


def ended(statement: str, quote: str) -> bool:
    """Does the statement negate or end what the quote states ("I don't have a dog anymore")?"""
    if same_fact.units_of(statement).negated != same_fact.units_of(quote).negated:
        return True
    said = {m.group().casefold() for m in _ENDED.finditer(statement)}
    return bool(said - {m.group().casefold() for m in _ENDED.finditer(quote)})


_warned: list[str] = []  # the encoder's failure is logged once per process


def similar(meaning: Meaning | None, a: str, b: str) -> float | None:
    """The encoder's cosine of two texts, or None without an encoder (candidates then match by their words only)."""
    if meaning is None:
        return None
    try:
        return meaning(a, b)
    except EncoderError as exc:
        if str(exc) not in _warned:
            _warned.append(str(exc))
            log.warning("waiting candidates are matched by their words only: %s", exc)
        return None


def restates(quote: str, value: str, key: str, statement: str, meaning: Meaning | None,
             threshold: float = SAME_MEANING) -> bool:
    """Does a later statement of the user's say the fact a candidate (its quote, key and value) said, in any
    wording? The cheap checks first: the encoder is only asked about a statement that names the value."""
    if not statement.strip() or not names(value, statement, key):
        return False
    if about_someone_else(statement, quote) or ended(statement, quote):
        return False
    score = similar(meaning, quote, statement)
    return score is not None and score >= threshold


def confirms(text: str) -> bool:
    """Is the user's whole answer a yes ("yes", "yeah, I am", "ya betul", "对的", "ใช่ค่ะ")?"""
    return bool(text.strip()) and bool(_YES.match(text.strip()))


def denies(text: str) -> bool:
    """Is the user's whole answer a no ("no", "nope", "bukan", "不是", "ไม่ใช่ค่ะ")?"""
    return bool(text.strip()) and bool(_NO.match(text.strip()))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.findall(text) if s.strip()]


def clauses(sentence: str) -> list[str]:
    return [c.strip() for c in _CLAUSES.findall(sentence) if c.strip()]


def _self_statement(clause: str) -> bool:
    """A clause in which the speaker speaks of themselves, not to or of the one they speak to."""
    return bool(_SELF.search(clause)) and not _SECOND_PERSON.search(clause)


def asked_about(line: str, value: str, key: str, quote: str) -> bool:
    """Does the other speaker's line ask the user about this value ("So you're a nurse?", "你是护士吗？")? A
    question whose clause naming the value is about the user: not about the speaker themselves ("I'm a
    nurse too, did you know?"), nor about someone else ("你妹妹是护士吗？")."""
    for s in sentences(line):
        if not _QUESTION.search(s) or about_someone_else(s, quote):
            continue
        if any(names(value, c, key) and not _self_statement(c) for c in clauses(s)):
            return True
    return False


def others_own(value: str, key: str, user_text: str, other_lines: Iterable[str]) -> bool:
    """Is this value the other speaker's: said by them about themselves in a clause that asks nothing ("I
    have a cat named Mochi, do you have pets?"), or named only in their lines and nowhere in the user's
    words?"""
    lines = [line for line in other_lines if line and line.strip()]
    if not lines or not same_fact.units_of(value, key).units:
        return False
    for line in lines:
        for s in sentences(line):
            parts = clauses(s)
            for n, c in enumerate(parts):
                asks = n == len(parts) - 1 and bool(_QUESTION.search(s))
                if not asks and names(value, c, key) and _self_statement(c):
                    return True
    return not names(value, user_text, key) and any(names(value, line, key) for line in lines)
