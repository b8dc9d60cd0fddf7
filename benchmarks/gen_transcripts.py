"""Generate a synthetic transcript set for `memroute batch` (tests and benchmarks).

Conversations for N users, written from templates in four languages (en, id, zh, th), with
timestamps, in the three input formats (openai, sharegpt, turns; mixed by default). Each
user speaks one language and has a small persona (name, role, city, project) that the
templates fill in; turns mix profile facts, project events, moods and one-off requests, so
the run exercises every route. Lines are shuffled by default, so a user's conversations are
not in time order in the file (the batch must sort them).

    python benchmarks/gen_transcripts.py OUT.jsonl --users 100 --conversations 1000
    python benchmarks/gen_transcripts.py /tmp/big.jsonl --target-bytes 1G --pad 4000 --users 20000
    python benchmarks/gen_transcripts.py OUT.jsonl --users 40 --conversations 400 --restate --format turns

With --target-bytes the generator keeps writing conversations until the file reaches the size
(streaming, nothing held in memory), and --pad adds that many characters of assistant text per
reply (code-like filler), which makes large files cheap to replay.

With --restate each person also has a pet and a hobby, which come up again and again over their
conversations in different words, plainly or in passing, hedged or not ("I have a dog named Rex, I
think you know", "Rex, my dog, says hi"): the long-conversation case where a fact said too weakly
to write the first time (a candidate) should be recognised when it comes back.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

LANGS = ("en", "id", "zh", "th")
FORMATS = ("openai", "sharegpt", "turns")

NAMES = {
    "en": ["Alex", "Morgan", "Priya", "Jonas", "Keiko", "Daniel", "Fatima", "Lena"],
    "id": ["Rina", "Budi", "Sari", "Agus", "Dewi", "Putri", "Yusuf", "Wulan"],
    "zh": ["王磊", "李娜", "陈杰", "刘洋", "赵敏", "孙浩", "周婷", "吴刚"],
    "th": ["สมชาย", "มาลี", "อนันต์", "สุดา", "วิชัย", "นภา", "ปรีชา", "กมล"],
}
ROLES = {
    "en": ["backend engineer", "designer", "data analyst", "product manager"],
    "id": ["insinyur backend", "desainer", "analis data", "manajer produk"],
    "zh": ["后端工程师", "设计师", "数据分析师", "产品经理"],
    "th": ["วิศวกรแบ็กเอนด์", "นักออกแบบ", "นักวิเคราะห์ข้อมูล", "ผู้จัดการผลิตภัณฑ์"],
}
CITIES = {
    "en": ["Berlin", "Toronto", "Austin", "Dublin"],
    "id": ["Bandung", "Surabaya", "Yogyakarta", "Medan"],
    "zh": ["成都", "杭州", "深圳", "南京"],
    "th": ["เชียงใหม่", "ขอนแก่น", "ภูเก็ต", "หาดใหญ่"],
}
PROJECTS = ["atlas", "billing-v2", "nova-app", "orbit", "lighthouse", "quill"]
THINGS = {
    "en": ["the login page", "the search API", "the onboarding flow", "the pricing page", "the mobile build"],
    "id": ["halaman login", "API pencarian", "alur onboarding", "halaman harga", "build mobile"],
    "zh": ["登录页面", "搜索接口", "新手引导流程", "定价页面", "移动端版本"],
    "th": ["หน้าล็อกอิน", "API ค้นหา", "ขั้นตอนเริ่มต้นใช้งาน", "หน้าราคา", "เวอร์ชันมือถือ"],
}

# Each template: (kind, text). {name} {role} {city} {project} {thing} are filled per user/turn.
TEMPLATES: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("user", "I'm {name}, a {role}."),
        ("user", "I live in {city} now."),
        ("user", "I prefer short answers with the conclusion first."),
        ("memory", "Yesterday we shipped {thing} for {project}."),
        ("memory", "We decided to move {project} to Postgres last week."),
        ("memory", "Today the team finished the review of {thing}."),
        ("skip", "Ugh, I'm so tired today."),
        ("skip", "Can you rename this heading to 'Release notes'?"),
        ("mixed", "I'm {name} and I work as a {role}. We launched {thing} yesterday."),
    ],
    "id": [
        ("user", "Nama saya {name}, saya {role}."),
        ("user", "Sekarang saya tinggal di {city}."),
        ("user", "Saya lebih suka jawaban singkat."),
        ("memory", "Kemarin kami merilis {thing} untuk {project}."),
        ("memory", "Minggu lalu kami memutuskan pindah {project} ke Postgres."),
        ("skip", "Aduh, hari ini saya capek banget."),
        ("skip", "Tolong ganti judul ini jadi 'Catatan rilis'."),
    ],
    "zh": [
        ("user", "我叫{name}，是一名{role}。"),
        ("user", "我现在住在{city}。"),
        ("user", "我喜欢简短的回答，先说结论。"),
        ("memory", "昨天我们上线了{project}的{thing}。"),
        ("memory", "上周我们决定把{project}迁移到Postgres。"),
        ("skip", "今天好累啊。"),
        ("skip", "帮我把这个标题改成“发布说明”。"),
    ],
    "th": [
        ("user", "ผมชื่อ{name} เป็น{role}"),
        ("user", "ตอนนี้ผมอยู่ที่{city}"),
        ("user", "ผมชอบคำตอบสั้นๆ"),
        ("memory", "เมื่อวานเราปล่อย{thing}ของ{project}แล้ว"),
        ("memory", "สัปดาห์ที่แล้วเราตัดสินใจย้าย{project}ไปใช้ Postgres"),
        ("skip", "วันนี้เหนื่อยมาก"),
        ("skip", "ช่วยเปลี่ยนหัวข้อนี้เป็น 'บันทึกการปล่อย' หน่อย"),
    ],
}
PETS = {
    "en": [("dog", ["Rex", "Biscuit", "Luna"]), ("cat", ["Miso", "Pepper", "Tofu"])],
    "id": [("anjing", ["Bobi", "Kiki", "Coklat"]), ("kucing", ["Momo", "Oyen", "Mochi"])],
    "zh": [("狗", ["豆豆", "旺财", "球球"]), ("猫", ["咪咪", "花花", "年糕"])],
    "th": [("หมา", ["ถั่ว", "ข้าวปั้น", "มะม่วง"]), ("แมว", ["ส้ม", "ขนมปัง", "โมจิ"])],
}
HOBBIES = {
    "en": ["rock climbing", "baking bread", "chess", "jazz piano"],
    "id": ["main gitar", "memasak", "bersepeda", "fotografi"],
    "zh": ["攀岩", "烘焙", "下棋", "弹钢琴"],
    "th": ["ถ่ายรูป", "ทำขนม", "ปีนเขา", "เล่นกีตาร์"],
}
# --restate: the person's pet and hobby, said again and again in other words (kind "restate").
RESTATE: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("restate", "I have a {pet} named {petname}, I think you know."),
        ("restate", "My {pet} {petname} is sleeping next to me."),
        ("restate", "{petname}, my {pet}, says hi lol"),
        ("restate", "I'm kind of into {hobby} these days."),
        ("restate", "I guess {hobby} is my thing now, did it again this weekend."),
        ("restate", "I love {hobby}."),
    ],
    "id": [
        ("restate", "Aku punya {pet} namanya {petname}, kayaknya udah pernah cerita."),
        ("restate", "{pet} aku si {petname} lagi tidur di sebelahku."),
        ("restate", "Kayaknya aku lagi suka {hobby}."),
        ("restate", "Aku suka {hobby}."),
    ],
    "zh": [
        ("restate", "我有一只{pet}叫{petname}，好像跟你说过。"),
        ("restate", "我家{pet}{petname}在旁边睡觉呢。"),
        ("restate", "我最近好像挺喜欢{hobby}的。"),
        ("restate", "我喜欢{hobby}。"),
    ],
    "th": [
        ("restate", "ฉันมี{pet}ชื่อ{petname} คิดว่าเคยเล่าแล้วนะ"),
        ("restate", "{pet}ของฉันชื่อ{petname}กำลังนอนอยู่ข้างๆ"),
        ("restate", "ช่วงนี้ฉันชอบ{hobby}นะ"),
        ("restate", "ฉันชอบ{hobby}"),
    ],
}
REPLIES = {
    "en": ["Got it.", "Noted, thanks!", "Done.", "Sounds good."],
    "id": ["Siap.", "Oke, dicatat.", "Sudah.", "Baik."],
    "zh": ["好的。", "明白了。", "已完成。", "收到。"],
    "th": ["รับทราบครับ", "ได้เลยครับ", "เรียบร้อยครับ", "โอเคครับ"],
}
MAX_BLOCK_CHARS = 16_000_000  # the shuffle window never holds more than this
FILLER = "def handler(event):\n    return {'status': 200, 'body': event}\n"


def parse_size(text: str) -> int:
    units = {"K": 1024, "M": 1024**2, "G": 1024**3}
    text = text.strip().upper().rstrip("B")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def persona(rng: random.Random, n: int, restate: bool = False) -> dict[str, Any]:
    lang = LANGS[n % len(LANGS)]
    person = {
        "user_id": f"user-{n:05d}",
        "lang": lang,
        "name": rng.choice(NAMES[lang]),
        "role": rng.choice(ROLES[lang]),
        "city": rng.choice(CITIES[lang]),
        "project": rng.choice(PROJECTS),
        "start": datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc) + timedelta(days=rng.randrange(0, 60)),
    }
    if restate:  # drawn after the rest, so a set made without --restate stays as it was
        pet, names = rng.choice(PETS[lang])
        person.update(pet=pet, petname=rng.choice(names), hobby=rng.choice(HOBBIES[lang]), restate=True)
    return person


def conversation(rng: random.Random, p: dict[str, Any], index: int, fmt: str, turns: int, pad: int) -> dict[str, Any]:
    """The index-th conversation of a user: later conversations are later in time."""
    lang = p["lang"]
    start = p["start"] + timedelta(days=index * 2, minutes=rng.randrange(0, 600))
    pairs = []
    templates = TEMPLATES[lang] + (RESTATE[lang] if p.get("restate") else [])
    for t in range(turns):
        kind, template = rng.choice(templates)
        text = template.format(
            name=p["name"], role=p["role"], city=p["city"], project=p["project"], thing=rng.choice(THINGS[lang]),
            pet=p.get("pet", ""), petname=p.get("petname", ""), hobby=p.get("hobby", ""),
        )
        reply = rng.choice(REPLIES[lang])
        if pad:
            reply += "\n" + (FILLER * (pad // len(FILLER) + 1))[:pad]
        ts = start + timedelta(minutes=3 * t)
        pairs.append((text, reply, ts.isoformat().replace("+00:00", "Z")))
    cid = f"{p['user_id']}-c{index:04d}"
    if fmt == "openai":
        messages: list[dict[str, Any]] = []
        for text, reply, ts in pairs:
            messages += [
                {"role": "user", "content": text, "timestamp": ts},
                {"role": "assistant", "content": reply, "timestamp": ts},
            ]
        return {"id": cid, "user_id": p["user_id"], "messages": messages}
    if fmt == "sharegpt":
        convs: list[dict[str, Any]] = []
        for text, reply, _ in pairs:
            convs += [{"from": "human", "value": text}, {"from": "gpt", "value": reply}]
        # ShareGPT has no per-message times: the conversation's start stands for all its turns.
        return {"id": cid, "user_id": p["user_id"], "timestamp": pairs[0][2], "conversations": convs}
    return {
        "conversation_id": cid,
        "user_id": p["user_id"],
        "turns": [{"timestamp": ts, "user": text, "assistant": reply} for text, reply, ts in pairs],
    }


def generate_lines(
    *,
    users: int,
    conversations: int,
    seed: int = 7,
    fmt: str = "mix",
    min_turns: int = 2,
    max_turns: int = 5,
    pad: int = 0,
    shuffle: bool = True,
    repeat: bool = False,
    restate: bool = False,
) -> Iterator[str]:
    """JSONL lines. Conversations are dealt round-robin over users; with shuffle, in blocks of
    3 x `users` lines (at most 16 MB) the order is shuffled (so per user the file is mostly, not strictly, in time order).
    With repeat, the stream never ends (conversation indexes keep growing)."""
    rng = random.Random(seed)
    people = [persona(rng, n, restate) for n in range(users)]
    count = [0] * users
    block: list[str] = []
    block_bytes = 0
    n = 0
    while repeat or n < conversations:
        u = n % users
        f = FORMATS[n % len(FORMATS)] if fmt == "mix" else fmt
        conv = conversation(rng, people[u], count[u], f, rng.randint(min_turns, max_turns), pad)
        count[u] += 1
        block.append(json.dumps(conv, ensure_ascii=False))
        block_bytes += len(block[-1])
        n += 1
        if len(block) >= 3 * users or block_bytes > MAX_BLOCK_CHARS:
            if shuffle:
                rng.shuffle(block)
            yield from block
            block = []
            block_bytes = 0
    if shuffle:
        rng.shuffle(block)
    yield from block


def write(path: Path, lines: Iterator[str], target_bytes: int | None = None) -> dict[str, int]:
    written = conversations = 0
    with path.open("w", encoding="utf-8") as fh:
        for line in lines:
            data = line + "\n"
            fh.write(data)
            written += len(data.encode("utf-8"))
            conversations += 1
            if target_bytes is not None and written >= target_bytes:
                break
    return {"bytes": written, "conversations": conversations}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--conversations", type=int, default=1000)
    ap.add_argument("--min-turns", type=int, default=2)
    ap.add_argument("--max-turns", type=int, default=5)
    ap.add_argument("--format", default="mix", choices=["mix", *FORMATS])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--pad", type=int, default=0, help="characters of filler per assistant reply")
    ap.add_argument("--no-shuffle", action="store_true")
    ap.add_argument("--target-bytes", help="keep writing until the file has this size, e.g. 1G")
    ap.add_argument("--restate", action="store_true", help="each person's pet and hobby come up again in other words")
    args = ap.parse_args(argv)
    target = parse_size(args.target_bytes) if args.target_bytes else None
    lines = generate_lines(
        users=args.users,
        conversations=args.conversations,
        seed=args.seed,
        fmt=args.format,
        min_turns=args.min_turns,
        max_turns=args.max_turns,
        pad=args.pad,
        shuffle=not args.no_shuffle,
        repeat=target is not None,
        restate=args.restate,
    )
    stats = write(Path(args.out), lines, target)
    print(json.dumps({"out": args.out, **stats}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
