"""Health details, passphrases and access codes are stored through no door (a chat turn, `remember`
and its MCP and framework tools, the frameworks' submits, the durable hook, `import-mem0`,
`import-letta`, `import-hermes`, the `memory` tool), about the user or anyone close to them, in four
languages: not in the files, not as a candidate, not in a quote, the history, the archive or a log.
Each door is also shown to ask the one shared guard (pipeline.guards), not a copy of its own.

Every sentence here is written for the project.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from doors import DOORS, FRAMEWORK, at_rest, everything_kept, holds, pipeline_for

import pipeline.guards.detectors as detectors
import pipeline.guards.policy as policy
from pipeline.guards import check_text, redact
from pipeline.guards.kinds import HEALTH

# (language, what is said, a piece of it that must be kept nowhere)
SENSITIVE = [
    # someone close: a condition, a medicine for a named condition, an implanted device, a child's diagnosis, surgery
    ("en", "Grandpa has Alzheimer's, so he's staying in our spare room", "Alzheimer"),
    ("en", "My sister takes lamotrigine for her epilepsy", "lamotrigine"),
    ("en", "My father-in-law had a defibrillator implanted in May", "defibrillator"),
    ("en", "Our youngest was diagnosed with dyslexia and ADHD", "ADHD"),
    ("en", "My wife had a mastectomy last autumn", "mastectomy"),
    ("en", "I'm recovering from a hip replacement I had in June", "hip replacement"),
    ("id", "Bapak saya mengidap Alzheimer dan sekarang tinggal di rumah saya", "Alzheimer"),
    ("id", "Adik saya rutin minum levetiracetam untuk epilepsinya", "levetiracetam"),
    ("id", "Nenek baru pasang alat pacu jantung", "pacu jantung"),
    ("id", "Anak kami didiagnosis ADHD bulan lalu", "ADHD"),
    ("id", "Suami saya habis operasi lutut", "operasi lutut"),
    ("zh", "我外公有阿尔茨海默病，搬来跟我们住了", "阿尔茨海默"),
    ("zh", "我女儿每天吃利他林治多动症", "利他林"),
    ("zh", "我妈去年装了心脏支架", "支架"),
    ("zh", "我儿子确诊了自闭症", "自闭症"),
    ("zh", "我老公上个月做了胆囊切除手术", "胆囊"),
    ("th", "ตาของฉันเป็นอัลไซเมอร์และย้ายมาอยู่บ้านเรา", "อัลไซเมอร์"),
    ("th", "น้องสาวผมกินยาลิเทียมรักษาไบโพลาร์", "ไบโพลาร์"),
    ("th", "แม่ผมใส่เครื่องกระตุ้นหัวใจเมื่อปีที่แล้ว", "เครื่องกระตุ้นหัวใจ"),
    ("th", "ลูกสาวฉันถูกวินิจฉัยว่าเป็นสมาธิสั้น", "สมาธิสั้น"),
    ("th", "สามีฉันเพิ่งผ่าตัดเปลี่ยนข้อเข่า", "ข้อเข่า"),
    ("en", "Our son is on the spectrum and starts school in September", "spectrum"),
    ("en", "my brother is in rehab for alcohol until March", "rehab"),
    ("en", "My mum takes pills for her blood pressure", "blood pressure"),
    ("en", "I'm having my tonsils out next week", "tonsils"),
    ("id", "Suami saya pakai kursi roda sejak kecelakaan", "kursi roda"),
    ("zh", "我妈刚做完心脏搭桥", "搭桥"),
    ("th", "แม่ฉันนั่งรถเข็นตั้งแต่ปีที่แล้ว", "รถเข็น"),
    ("en", "My son has Tourette's", "Tourette"),
    ("en", "Grandma's had two strokes", "strokes"),
    ("en", "my son takes Concerta for his ADHD", "Concerta"),
    ("id", "Om saya sakit jantung", "jantung"),
    ("id", "Papa minum obat pengencer darah sejak serangan jantung", "pengencer darah"),
    ("zh", "我爷爷中风以后一直卧床", "中风"),
    ("zh", "我妈有甲状腺问题，吃优甲乐", "优甲乐"),
    ("th", "ลูกสาวฉันเป็นโรคลมชักต้องกินยากันชัก", "ลมชัก"),
    ("th", "พ่อเพิ่งผ่าตัดต้อกระจก", "ต้อกระจก"),
    # pass phrases, door / gate / locker / storage codes, PINs, security answers
    ("en", "The phrase I log in with is: purple walrus eats toast", "purple walrus"),
    ("en", "my sign-in phrase will always be: amber fox under the bridge", "amber fox"),
    ("en", "Gate code for the allotment is 3-9-1-7", "3-9-1-7"),
    ("en", "the padlock on my storage unit opens with 5150", "5150"),
    ("en", "Self-storage unit code: 7306", "7306"),
    ("en", "My debit card PIN: 2719", "2719"),
    ("en", "security question answer (first school): Hillcrest Primary", "Hillcrest"),
    ("id", "frasa login saya: gajah biru makan pisang", "gajah biru"),
    ("id", "kode gembok loker gym saya 4826", "4826"),
    ("id", "PIN kartu debit saya 7391", "7391"),
    ("id", "jawaban pertanyaan keamanan: nama sekolah pertama saya Tunas Harapan", "Tunas Harapan"),
    ("zh", "我的登录暗语是：月亮喜欢吃饺子", "月亮喜欢"),
    ("zh", "小区大门的门禁密码是 2486#", "2486"),
    ("zh", "我的银行卡PIN是 5521", "5521"),
    ("zh", "密保答案：外婆家的狗叫旺财", "旺财"),
    ("th", "วลีล็อกอินของผมคือ กาแฟเย็นหวานน้อย", "กาแฟเย็น"),
    ("th", "รหัสล็อกเกอร์ที่ฟิตเนสของฉันคือ 8142", "8142"),
    ("th", "PIN บัตรเดบิตของฉัน 6403", "6403"),
    ("th", "คำตอบคำถามกันลืมรหัสคือ ปลาทูทอด", "ปลาทูทอด"),
    ("en", "garage opener code 5566", "5566"),
    ("en", "my PIN's 0917, don't lose it", "0917"),
    ("id", "PIN untuk kartu ATM ku 2233", "2233"),
    ("th", "พินบัตรของฉันคือ 8899", "8899"),
]


def _skip_missing(door: str) -> None:
    if door in FRAMEWORK:
        pytest.importorskip(FRAMEWORK[door])


@pytest.mark.parametrize("door", sorted(DOORS))
def test_no_door_keeps_a_health_detail_a_pass_phrase_or_a_code(tmp_path: Path, door: str) -> None:
    """All sentences through one door, each by its own user; then no byte under the root holds any of them."""
    _skip_missing(door)
    root = tmp_path / "root"
    with pipeline_for(root) as pipe:
        for n, (_, text, _) in enumerate(SENSITIVE):
            DOORS[door](pipe, f"u{n}", text)
        kept = {n: everything_kept(pipe, f"u{n}") for n in range(len(SENSITIVE))}
    leaks = [(text, found) for n, (_, text, needle) in enumerate(SENSITIVE)
             if (found := at_rest(root, needle)) or holds(kept[n], needle)]
    assert not leaks, leaks


@pytest.mark.parametrize(("lang", "text", "needle"), SENSITIVE, ids=[f"{c[0]}-{i}" for i, c in enumerate(SENSITIVE)])
def test_the_shared_guard_refuses_it_and_redacts_it(lang: str, text: str, needle: str) -> None:
    assert not check_text(text).allowed
    assert needle.lower() not in redact(text).lower()


# The living arrangement stays: only the health words are the finding.
@pytest.mark.parametrize(
    ("text", "kept"),
    [("My mum has Parkinson's and moved in with us.", "moved in with us"),
     ("my father has early-stage dementia, so he lives with us now", "lives with us now"),
     ("Ibu saya kena stroke dan sekarang tinggal bersama kami", "tinggal bersama kami"),
     ("我妈妈得了帕金森，现在和我们住在一起", "现在和我们住在一起"),
     ("แม่ของฉันเป็นพาร์กินสันและย้ายมาอยู่กับเรา", "ย้ายมาอยู่กับเรา")],
)
def test_only_the_health_part_is_redacted(text: str, kept: str) -> None:
    clean = redact(text)
    assert "[REDACTED:HEALTH]" in clean and kept in clean, clean


# Ordinary facts that look close to the above still go through (the offline engine stores them).
PLAIN = [
    ("I'm a nurse", "nurse"),
    ("my mum moved in with us", "mum"),
    ("I have a storage unit downtown", "storage unit"),
    ("I'm the admin of our family group chat", "family group chat"),
    ("I work in cancer research at the Crick", "cancer research"),
    ("I volunteer for a Parkinson's charity on Saturdays", "charity"),
    ("I'm a diabetes nurse at the county hospital", "nurse"),
    ("I'm a surgeon at St Thomas'", "surgeon"),
    ("I swim breaststroke every morning", "breaststroke"),
    ("Saya perawat di rumah sakit", "perawat"),
    ("Ibu saya pindah ke rumah kami", "pindah"),
    ("我是护士", "护士"),
    ("我在癌症医院工作", "癌症医院"),
    ("ฉันเป็นพยาบาล", "พยาบาล"),
]


@pytest.mark.parametrize(("text", "needle"), PLAIN, ids=[t for t, _ in PLAIN])
def test_ordinary_facts_are_still_stored(tmp_path: Path, text: str, needle: str) -> None:
    from pipeline.core import MemoryPipeline
    from pipeline.integrations.remember import remember

    assert check_text(text).allowed, check_text(text)
    with MemoryPipeline(tmp_path) as pipe:
        answer = remember(pipe, "ola", text, timestamp="2026-08-02T10:00:00Z")
        files = pipe.show("ola")
    assert answer["stored"], answer
    assert needle in files["user_md"] + files["memory_md"]


@pytest.mark.parametrize(
    "text",
    ["My zip code is 94107", "our area code is 415", "the promo code for the gym is SUMMER2026",
     "I open the office at 8 every day", "I rent a storage unit for 120 a month", "my favourite phrase is carpe diem",
     "The code for our project lives in GitLab", "our parking spot is number 114 in the garage",
     "a phrase I use for my newsletter is: stay curious", "I'm a Cancer, born in July", "My car had a breakdown on the M4",
     "I teach a course on heart disease", "I have celiac disease so everything has to be gluten-free",
     "我是住院医师", "ผมซื้อรถเข็นเด็กให้ลูก", "Saya kerja di bagian operasi gudang", "deaf jam records is my favourite label",
     "My area code is 415", "I'm sick of meetings", "I'm deaf, so I need captions on every video", "My son has Tom's bike",
     "She has Grandma's eyes.", "I'm dyslexic, so short paragraphs please"],
)
def test_look_alikes_are_not_findings(text: str) -> None:
    assert redact(text) == text


# --- a request to keep it covers the speaker's own health, never someone else's ---------------------------


@pytest.mark.parametrize(
    "text",
    ["please remember that my son has epilepsy", "tolong ingat ayah saya pakai alat pacu jantung",
     "请记住我妈妈有糖尿病", "ช่วยจำไว้ว่าแม่ฉันเป็นเบาหวาน"],
)
def test_asking_to_keep_someone_elses_health_does_not_store_it(tmp_path: Path, text: str) -> None:
    with pipeline_for(tmp_path / "root") as pipe:
        result = pipe.process_turn("ola", [{"role": "user", "content": text}], timestamp="2026-08-02T10:00:00Z")
    assert not (result.user_changed or result.memory_changed), result.decisions
    assert any(d.reason == "sensitive" for d in result.decisions)


def test_asking_to_keep_ones_own_allergy_still_stores_it(tmp_path: Path) -> None:
    from pipeline.core import MemoryPipeline

    with MemoryPipeline(tmp_path) as pipe:
        pipe.process_turn("ola", [{"role": "user", "content": "please remember that I'm allergic to penicillin"}],
                          timestamp="2026-08-02T10:00:00Z")
        assert "penicillin" in pipe.show("ola")["user_md"]


@pytest.mark.parametrize("door", ["import-mem0", "import-letta"])
def test_an_imported_memory_is_no_request_to_keep(tmp_path: Path, door: str) -> None:
    """An export that says "remember ..." was not said by the user in this turn: the own-health
    allowance of a chat turn does not apply."""
    root = tmp_path / "root"
    with pipeline_for(root) as pipe:
        DOORS[door](pipe, "ola", "Please remember I take sertraline every morning")
    assert not at_rest(root, "sertraline")


# --- each door asks the shared guard ---------------------------------------------------------------------

SENTINEL = "zqxmedica"  # a word only the patched shared detector knows


@pytest.fixture
def shared_guard_knows_sentinel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The shared detector (pipeline.guards.detectors) learns one new health word; nothing else does."""
    original = detectors._raw_findings

    def raw(s: str, t: object = None) -> list[tuple[int, int, str]]:
        found = original(s, t)  # type: ignore[arg-type]
        at = s.lower().find(SENTINEL)
        return found + ([(at, at + len(SENTINEL), HEALTH)] if at >= 0 else [])

    monkeypatch.setattr(detectors, "_raw_findings", raw)
    detectors._cached_findings.cache_clear()
    policy._cached_quote_rule.cache_clear()
    yield
    detectors._cached_findings.cache_clear()


@pytest.mark.parametrize("door", sorted(DOORS))
def test_each_door_asks_the_shared_guard(tmp_path: Path, door: str, shared_guard_knows_sentinel: None) -> None:
    _skip_missing(door)
    root = tmp_path / "root"
    with pipeline_for(root) as pipe:
        DOORS[door](pipe, "ola", f"My aunt is on {SENTINEL} twice a day")
        kept = everything_kept(pipe, "ola")
    assert SENTINEL not in kept.lower()
    assert not at_rest(root, SENTINEL)
