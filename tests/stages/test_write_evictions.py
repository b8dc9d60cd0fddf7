"""Issue 29: no silent eviction from USER.md. A full collecting field sheds its least valuable clause by the
stated rule (junk first, then a clause another one says, then the oldest); a replaced value says so; the
outcome, history and archive name what left. Sentences are written for these tests, in four languages."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from memory_fixture import Memory

from pipeline.batch.report import BatchReport
from pipeline.cli.batch_run import format_summary, run_batch_cli
from pipeline.ledgers.memory_md import MemoryLog
from pipeline.ledgers.user_md import UserProfile
from pipeline.ops.review import undo
from pipeline.settings import Settings
from pipeline.stages import clauses
from pipeline.stages.write import WriteResult, apply_decisions
from pipeline.types import Decision


def profile(**fields: str) -> UserProfile:
    lines = "".join(f"- {k.replace('_', ' ')}: {v}\n" for k, v in fields.items())
    return UserProfile.parse(f"# USER\n\n## Preferences\n{lines}", limit=1375)


def upsert(key: str, value: str, quote: str = "said") -> Decision:
    return Decision(quote=quote, route="user", op="upsert", section="Preferences", key=key, value=value)


def write(p: UserProfile, *ds: Decision) -> WriteResult:
    return apply_decisions(list(ds), p, MemoryLog.parse("# MEMORY\n", limit=2200))


def grow(parts: list[str], new: str) -> str:
    return clauses.join_clauses([*parts, new])


# -- the rule: what counts as junk -------------------------------------------------------------------------

@pytest.mark.parametrize(("clause", "reason"), [
    ("what do you like?", clauses.JUNK_QUESTION),
    ("kamu suka apa?", clauses.JUNK_QUESTION),
    ("你喜欢什么吗", clauses.JUNK_QUESTION),
    ("ชอบอะไร", clauses.JUNK_QUESTION),
    ("wow that concert!", clauses.JUNK_EXCLAMATION),
    ("seru banget!", clauses.JUNK_EXCLAMATION),
    ("太好玩了！", clauses.JUNK_EXCLAMATION),
    ("สนุกมาก!", clauses.JUNK_EXCLAMATION),
    ("I got a new lease of life", clauses.JUNK_SENTENCE),
    ("aku dapat semangat baru", clauses.JUNK_SENTENCE),
    ("我觉得生活有了新希望", clauses.JUNK_SENTENCE),
    ("ผมรู้สึกมีชีวิตใหม่", clauses.JUNK_SENTENCE),
    ("your cooking videos", clauses.JUNK_OTHER_SPEAKER),
    ("it so much", clauses.JUNK_EMPTY),
    ("going to the", clauses.JUNK_FRAGMENT),
    ("main gitar sama", clauses.JUNK_FRAGMENT),
    ("和朋友一起的", clauses.JUNK_FRAGMENT),
    ("เล่นดนตรีกับ", clauses.JUNK_FRAGMENT),
])
def test_a_clause_the_engine_would_not_write_today_is_junk(clause: str, reason: str) -> None:
    assert clauses.junk_reason(clause) == reason


@pytest.mark.parametrize("clause", ["playing different songs on the piano", "main gitar akustik", "和朋友玩桌游",
                                    "เล่นบอร์ดเกมกับเพื่อน", "ทำอาหารให้คุณแม่", "lo-fi beats", "my dog's long walks"])
def test_a_concrete_phrase_is_not_junk(clause: str) -> None:
    assert clauses.junk_reason(clause) is None


@pytest.mark.parametrize(("entry", "reason"), [
    ("Believe in yourself and your abilities.", clauses.JUNK_OTHER_SPEAKER),
    ("คุณทำได้แน่นอน", clauses.JUNK_OTHER_SPEAKER),
    ("Keep going with it.", clauses.JUNK_ADVICE),
    ("This was our tree.", clauses.JUNK_POINTING),
    ("Something happened.", clauses.JUNK_EMPTY),
    ("We moved the docs to Vercel.", None),
    ("คุณแม่ย้ายมาอยู่เชียงใหม่", None),  # "คุณแม่" is the user's mother, not the other speaker
])
def test_an_entry_that_is_no_event_of_the_users_is_junk(entry: str, reason: str | None) -> None:
    assert clauses.entry_junk_reason(entry) == reason


# -- a full collecting field ---------------------------------------------------------------------------------

FULL = {
    "en": (["playing different songs on the piano", "I got a new lease of life", "jazz records from the sixties",
            "slow cooking on weekends", "long walks by the river with the dog after work"],
           "board games with old friends on Friday nights", "I got a new lease of life"),
    "id": (["main lagu-lagu berbeda di piano", "seru banget!", "koleksi piringan hitam jazz tahun enam puluhan",
            "masak pelan-pelan tiap akhir pekan", "jalan kaki panjang di tepi sungai bareng anjing"],
           "main board game sama teman lama", "seru banget!"),
    "zh": (["在钢琴上弹各种不同的曲子，从古典到流行，每天晚上都练一个小时", "你喜欢什么吗",
            "收集六十年代的爵士黑胶唱片，尤其是蓝调和比波普风格的原版唱片",
            "周末慢慢地炖汤做菜，给全家人准备一顿丰盛的晚餐，再配上自己烤的面包",
            "带着狗沿着河边长时间散步，一直走到城市另一头的公园再慢慢走回家", "每年夏天去海边冲浪，跟当地的教练一起练习两个星期",
            "周五晚上和同事去看独立乐队的现场演出，然后一起吃宵夜"], "和老朋友玩桌游", "你喜欢什么吗"),
    "th": (["เล่นเพลงต่างๆ บนเปียโน", "สนุกมาก!", "สะสมแผ่นเสียงแจ๊สยุคหกศูนย์", "ทำอาหารช้าๆ ในวันหยุดสุดสัปดาห์",
            "เดินเล่นริมแม่น้ำกับสุนัขนานๆ ตอนเย็นหลังเลิกงาน ไปจนถึงสวนสาธารณะฝั่งโน้นของเมือง"], "เล่นบอร์ดเกมกับเพื่อนเก่า", "สนุกมาก!"),
}


@pytest.mark.parametrize("lang", sorted(FULL))
def test_when_a_field_is_full_the_junk_clause_leaves_first_not_the_oldest(lang: str) -> None:
    parts, new, junk = FULL[lang]
    assert len(clauses.join_clauses(parts)) <= clauses.MULTI_VALUE_CAP < len(grow(parts, new))
    result = write(profile(Likes=clauses.join_clauses(parts)), upsert("Likes", grow(parts, new), quote=new))
    d = result.decisions[0]
    likes = result.profile.get("Likes")
    assert likes is not None and len(likes.value) <= clauses.MULTI_VALUE_CAP
    assert junk not in likes.value and parts[0] in likes.value and new in likes.value  # the oldest fact stays
    assert d.outcome == "written" and repr(junk) in (d.outcome_detail or "") and "junk" in (d.outcome_detail or "")
    assert d.evicted and all(r.startswith("junk") for r in d.evicted)
    assert [(c.op, c.old) for c in result.changes if c.op == "evict"] == [("evict", junk)]
    assert [(a.op, a.old) for a in result.archive] == [("evicted", junk)]  # nothing else left the file


def test_a_clause_another_one_already_says_leaves_before_the_oldest() -> None:
    parts = ["hiking in the Alps", "sourdough baking", "hiking", "Italian westerns from the sixties",
             "restoring old bicycles in the garage", "birdwatching at dawn on the coast", "night trains"]
    new = "climbing the Dolomites with my brother"
    result = write(profile(Likes=clauses.join_clauses(parts)), upsert("Likes", grow(parts, new)))
    assert result.decisions[0].evicted == [clauses.REDUNDANT]
    likes = result.profile.get("Likes")
    assert likes is not None and likes.value == clauses.join_clauses([p for p in parts if p != "hiking"] + [new])


def test_with_only_real_facts_the_oldest_leaves_and_the_outcome_names_it() -> None:
    parts = ["hiking in the Alps", "sourdough baking on Sundays", "Italian westerns from the sixties",
             "restoring old bicycles in the garage", "birdwatching at dawn on the coast", "long-distance trains"]
    new = "climbing the Dolomites with my brother"
    result = write(profile(Likes=clauses.join_clauses(parts)), upsert("Likes", grow(parts, new)))
    d = result.decisions[0]
    assert d.evicted == [clauses.OLDEST]
    assert d.outcome == "written"
    assert d.outcome_text == "written: evicted from Likes: 'hiking in the Alps' (the oldest clause), kept in the archive"
    assert [a.old for a in result.archive] == ["hiking in the Alps"]


def test_a_junk_clause_said_now_into_a_full_field_does_not_push_a_fact_out() -> None:
    parts = ["hiking in the Alps", "sourdough baking on Sundays", "Italian westerns from the sixties",
             "restoring old bicycles in the garage", "birdwatching at dawn on the coast", "long-distance trains"]
    result = write(profile(Likes=clauses.join_clauses(parts)), upsert("Likes", grow(parts, "omg the new season was so good!!")))
    d = result.decisions[0]
    assert d.outcome == "unchanged"
    assert (d.outcome_detail or "").startswith("evicted from Likes: 'omg the new season was so good!!'")
    assert result.profile.render() == profile(Likes=clauses.join_clauses(parts)).render()
    assert [a.old for a in result.archive] == ["omg the new season was so good!!"]  # never silently lost


def test_a_field_below_its_cap_just_grows() -> None:
    result = write(profile(Likes="hiking; chess"), upsert("Likes", "hiking; chess; jazz"))
    assert result.decisions[0].outcome == "written" and result.decisions[0].evicted == [] and result.archive == []


@pytest.mark.parametrize(("key", "old", "new"), [
    ("Role", "nurse", "teacher"), ("Role", "perawat", "guru"), ("Role", "护士", "老师"), ("Role", "พยาบาล", "ครู")])
def test_a_replaced_value_says_so_and_stays_in_history_and_the_archive(key: str, old: str, new: str) -> None:
    result = write(profile(Role=old), upsert(key, new))
    d = result.decisions[0]
    assert d.outcome == "written" and d.evicted == [clauses.REPLACED]
    assert d.outcome_detail == f"replaced {old!r} (kept in history and the archive)"
    assert [(c.key, c.old, c.new) for c in result.changes] == [(key, old, new)]
    assert [(a.op, a.old) for a in result.archive] == [("overwritten", old)]


# -- through the pipeline: history, archive, recall, undo -----------------------------------------------------

def test_an_eviction_is_in_history_the_archive_and_recall_and_undo_puts_it_back(mem: Memory) -> None:
    parts = FULL["en"][0]
    mem.seed("ana", "USER.md", f"# USER\n\n## Preferences\n- Likes: {clauses.join_clauses(parts)}\n")
    with mem.pipeline(engine="offline") as pipe:
        result = pipe.process_turn("ana", [{"role": "user", "content": "I love long walks through pine forests and along quiet rivers"}],
                                   timestamp="2026-07-30T09:00:00Z")
        history = pipe.history("ana")
        recalled = pipe.recall("ana", "lease of life")
        after = mem.read("ana", "USER.md") or ""
        undo(pipe, "ana")
        undone = mem.read("ana", "USER.md") or ""
    d = next(d for d in result.decisions if d.key == "Likes")
    assert "'I got a new lease of life' (junk: a whole sentence, not a phrase)" in (d.outcome_detail or "")
    assert "lease of life" not in after and "long walks through pine forests" in after and "piano" in after
    assert any(h["op"] == "evict" and h["old_value"] == "I got a new lease of life" for h in history)
    assert any(hit["source"] == "archive" and "lease of life" in hit["text"] for hit in recalled)
    assert undone == f"# USER\n\n## Preferences\n- Likes: {clauses.join_clauses(parts)}\n"


def test_the_batch_summary_counts_evictions_with_their_reasons(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    turns = [
        "I'm a nurse.", "I love hiking in the Alps with my sister", "I love sourdough baking on Sundays",
        "I love Italian westerns from the sixties", "I love restoring old bicycles in the garage",
        "I love birdwatching at dawn on the coast", "I love long-distance night trains",
        "I love woodworking in the shed on rainy weekends", "I love old jazz records and the smell of vinyl",
        "I love slow mornings with black coffee and the radio",
        "I love long walks through pine forests and along quiet rivers",
        "I love knitting scarves for the whole family", "I love kayaking on mountain lakes at sunrise",
        "I love stargazing from the hills above town", "I love board games with my old friends",
        "I'm a teacher now.", "I love climbing the Dolomites with my brother",
    ]
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"conversation_id": "c1", "user_id": "ana", "turns": [
        {"timestamp": f"2026-07-30T09:{i:02d}:00Z", "user": t, "assistant": "ok"} for i, t in enumerate(turns)]}) + "\n")
    code = run_batch_cli([str(src)], str(tmp_path / "out"), fmt=None, concurrency=1, rpm=None, restart=False,
                         json_out=True, decisions_out=str(tmp_path / "d.jsonl"), max_failures=None,
                         settings=Settings(engine="offline"), progress=False)
    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    records = [json.loads(line) for line in (tmp_path / "d.jsonl").read_text().splitlines()]
    evicted = Counter(why for r in records for why in r["evicted"])
    assert evicted[clauses.REPLACED] == 1 and evicted[clauses.OLDEST] >= 1  # the role, then a like at the cap
    assert summary["evictions"] == dict(sorted(evicted.items()))
    written = [r for r in records if r["route"] == "user" and r["outcome"].split(":")[0] == "written"]  # the stored form
    assert summary["writes"]["user"] == len(written)
    report = BatchReport(evictions=dict(evicted))
    assert f"evicted from USER.md (kept in the archive): {sum(evicted.values())} (" in format_summary(report)
    assert f"{clauses.OLDEST} {evicted[clauses.OLDEST]}" in format_summary(report)
