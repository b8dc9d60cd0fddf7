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

With --dated the templates also say when things happened at every precision ("yesterday", "on
Sunday", "May 3", "last week", "last month", "last year", "in 2024", "back in college"), and each
turn of the turns format carries `said`: what the user's words say about the date (WHEN below), so
benchmarks/bench_dates.py can check every entry's date against it (`expected_date`).

With --restate each person also has a pet and a hobby, which come up again and again over their
conversations in different words, plainly or in passing, hedged or not ("I have a dog named Rex, I
think you know", "Rex, my dog, says hi"): the long-conversation case where a fact said too weakly
to write the first time (a candidate) should be recognised when it comes back. With --asked as well, the
assistant sometimes asks back about the pet or hobby ("So you have a dog named Rex?") and the person's next
message is only a yes (four in five) or a no; and sometimes the assistant speaks of its own pet ("I have a cat
named Tofu too") and the person answers about it: a fact that is never the person's.

    python benchmarks/gen_transcripts.py A.jsonl --users 80 --conversations 1000 --restate --asked --format turns --seed 5
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
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
# Time phrases at every precision (issue 29). The third item says what the words give, for expected_date:
# day:N (N days from the turn's day), weekday:K (the last weekday K before it, Monday = 0), monthday:M:D
# (the last M/D on or before it), week:N / weekend:N (the calendar week or weekend N weeks away), month:N,
# year:N (relative) or year:YYYY, none (a period no calendar places).
DATED: dict[str, list[tuple[str, str, str]]] = {
    "en": [
        ("memory", "Last month we moved {project} to a new cloud account.", "month:-1"),
        ("memory", "Last year we rebuilt {thing} from scratch.", "year:-1"),
        ("memory", "Last weekend we ran a load test on {thing}.", "weekend:-1"),
        ("memory", "On Sunday we migrated {thing} to the new cluster.", "weekday:6"),
        ("memory", "On May 3 we signed the contract for {project}.", "monthday:5:3"),
        ("memory", "Last night was amazing! We celebrated the launch of {thing} with the team.", "day:-1"),
        ("memory", "Last week was wild, we fixed three outages in {thing}.", "week:-1"),
        ("memory", "Last week, we rewrote {thing} for {project}.", "week:-1"),
        ("memory", "Two weeks ago we hired a designer for {project}.", "week:-2"),
        ("memory", "In 2024 we launched the first version of {project}.", "year:2024"),
        ("memory", "Back in college we built a robot that played chess.", "none"),
    ],
    "id": [
        ("memory", "Bulan lalu kami pindahkan {project} ke akun cloud baru.", "month:-1"),
        ("memory", "Tahun lalu kami bangun ulang {thing} dari nol.", "year:-1"),
        ("memory", "Akhir pekan lalu kami uji beban {thing}.", "weekend:-1"),
        ("memory", "Hari Minggu kami sudah migrasi {thing} ke cluster baru.", "weekday:6"),
        ("memory", "Pada 3 Mei kami sudah tanda tangan kontrak untuk {project}.", "monthday:5:3"),
        ("memory", "Tadi malam seru banget! Kami rayakan peluncuran {thing} bareng tim.", "day:-1"),
        ("memory", "Minggu lalu, kami tulis ulang {thing} untuk {project}.", "week:-1"),
        ("memory", "Tahun 2024 kami rilis versi pertama {project}.", "year:2024"),
    ],
    "zh": [
        ("memory", "上个月我们把{project}迁到了新的云账号。", "month:-1"),
        ("memory", "去年我们从零重写了{thing}。", "year:-1"),
        ("memory", "上周末我们给{thing}做了压力测试。", "weekend:-1"),
        ("memory", "上周日我们把{thing}迁到了新集群。", "weekday:6"),
        ("memory", "5月3日我们签了{project}的合同。", "monthday:5:3"),
        ("memory", "昨晚太棒了！我们和团队一起庆祝了{thing}上线。", "day:-1"),
        ("memory", "上周，我们为{project}重写了{thing}。", "week:-1"),
        ("memory", "2024年我们发布了{project}的第一个版本。", "year:2024"),
    ],
    "th": [
        ("memory", "เดือนที่แล้วเราย้าย {project} ไปบัญชีคลาวด์ใหม่", "month:-1"),
        ("memory", "ปีที่แล้วเราเขียน{thing}ใหม่ทั้งหมด", "year:-1"),
        ("memory", "สุดสัปดาห์ที่แล้วเราทดสอบโหลด{thing}", "weekend:-1"),
        ("memory", "วันอาทิตย์ที่แล้วเราย้าย{thing}ไปคลัสเตอร์ใหม่", "weekday:6"),
        ("memory", "วันที่ 3 พฤษภาคมเราเซ็นสัญญาสำหรับ {project} แล้ว", "monthday:5:3"),
        ("memory", "เมื่อคืนสนุกมาก เราฉลองเปิดตัว{thing}กับทีม", "day:-1"),
        ("memory", "สัปดาห์ที่แล้ว เราเขียน{thing}ใหม่ให้ {project}", "week:-1"),
        ("memory", "ปี 2567 เราเปิดตัว {project} เวอร์ชันแรก", "year:2024"),
    ],
}
# What the words of the plain templates say about the date.
WHEN: dict[str, str] = {
    "Yesterday we shipped {thing} for {project}.": "day:-1",
    "We decided to move {project} to Postgres last week.": "week:-1",
    "Today the team finished the review of {thing}.": "day:0",
    "I'm {name} and I work as a {role}. We launched {thing} yesterday.": "day:-1",
    "Kemarin kami merilis {thing} untuk {project}.": "day:-1",
    "Minggu lalu kami memutuskan pindah {project} ke Postgres.": "week:-1",
    "昨天我们上线了{project}的{thing}。": "day:-1",
    "上周我们决定把{project}迁移到Postgres。": "week:-1",
    "เมื่อวานเราปล่อย{thing}ของ{project}แล้ว": "day:-1",
    "สัปดาห์ที่แล้วเราตัดสินใจย้าย{project}ไปใช้ Postgres": "week:-1",
} | {text: when for templates in DATED.values() for _, text, when in templates}

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
# --asked (with --restate): after the person mentions their pet or hobby the assistant sometimes asks back
# ("So you have a dog named Rex?") and the person's next message is only a yes or a no; and sometimes the
# assistant speaks of its own pet, and the person answers about that pet (a fact that is never theirs).
ASK_BACK: dict[str, dict[str, list[str]]] = {
    "en": {"pet": ["So you have a {pet} named {petname}?"], "hobby": ["So you're into {hobby}?"],
           "yes": ["yes", "yep", "yeah, I do"], "no": ["no", "nope"]},
    "id": {"pet": ["Jadi kamu punya {pet} namanya {petname}?"], "hobby": ["Jadi kamu suka {hobby}?"],
           "yes": ["iya", "ya betul"], "no": ["bukan", "nggak"]},
    "zh": {"pet": ["所以你有一只{pet}叫{petname}吗？"], "hobby": ["所以你喜欢{hobby}吗？"],
           "yes": ["对", "是的"], "no": ["不是"]},
    "th": {"pet": ["คุณมี{pet}ชื่อ{petname}เหรอคะ"], "hobby": ["คุณชอบ{hobby}เหรอคะ"],
           "yes": ["ใช่ค่ะ", "ใช่ครับ"], "no": ["ไม่ใช่ค่ะ"]},
}
THEIR_PET: dict[str, list[tuple[str, str]]] = {  # (the assistant's own pet, the person's answer)
    "en": [("I have a {otherpet} named {othername} too, asleep on my desk.", "Aww, a {otherpet} named {othername}, cute!"),
           ("My {otherpet} {othername} says hi!", "haha hi {othername}")],
    "id": [("Aku juga punya {otherpet} namanya {othername}, lagi tidur di mejaku.", "Lucu banget {otherpet} namanya {othername}!")],
    "zh": [("我也有一只{otherpet}叫{othername}，正在我桌上睡觉。", "一只{otherpet}叫{othername}，好可爱！")],
    "th": [("ฉันก็มี{otherpet}ชื่อ{othername}นะ กำลังนอนบนโต๊ะฉัน", "{otherpet}ชื่อ{othername}น่ารักจัง")],
}
REPLIES = {
    "en": ["Got it.", "Noted, thanks!", "Done.", "Sounds good."],
    "id": ["Siap.", "Oke, dicatat.", "Sudah.", "Baik."],
    "zh": ["好的。", "明白了。", "已完成。", "收到。"],
    "th": ["รับทราบครับ", "ได้เลยครับ", "เรียบร้อยครับ", "โอเคครับ"],
}
MAX_BLOCK_CHARS = 16_000_000  # the shuffle window never holds more than this
FILLER = "def handler(event):\n    return {'status': 200, 'body': event}\n"


def _stamp_of_days(first: date, last: date) -> str:
    """The finest of day / month / year that holds every day from first to last (across New Year: the year
    holding most of the days): a date that claims nothing the words did not say."""
    if first == last:
        return first.isoformat()
    if (first.year, first.month) == (last.year, last.month):
        return first.isoformat()[:7]
    if first.year == last.year:
        return str(first.year)
    in_first = (date(first.year, 12, 31) - first).days + 1
    return str(first.year if in_first > (last - date(last.year, 1, 1)).days + 1 else last.year)


def expected_date(when: str, day: date) -> str | None:
    """The entry date a turn on `day` with words `when` (WHEN) should get: "2026-02-10", "2026-01", "2025", None."""
    kind, _, arg = when.partition(":")
    if kind == "none":
        return None
    if kind == "day":
        return (day + timedelta(days=int(arg))).isoformat()
    if kind == "weekday":
        back = (day.weekday() - int(arg)) % 7 or 7
        return (day - timedelta(days=back)).isoformat()
    if kind == "monthday":
        month, dom = (int(x) for x in arg.split(":"))
        this_year = date(day.year, month, dom)
        return (this_year if this_year <= day else date(day.year - 1, month, dom)).isoformat()
    if kind in ("week", "weekend"):
        monday = day - timedelta(days=day.weekday()) + timedelta(weeks=int(arg))
        first = monday + timedelta(days=5) if kind == "weekend" else monday
        return _stamp_of_days(first, monday + timedelta(days=6))
    if kind == "month":
        index = day.year * 12 + day.month - 1 + int(arg)
        return f"{index // 12:04d}-{index % 12 + 1:02d}"
    if kind == "year":
        n = int(arg)
        return str(n if n > 1000 else day.year + n)
    raise ValueError(f"unknown date words {when!r}")


def parse_size(text: str) -> int:
    units = {"K": 1024, "M": 1024**2, "G": 1024**3}
    text = text.strip().upper().rstrip("B")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def persona(rng: random.Random, n: int, restate: bool = False, asked: bool = False) -> dict[str, Any]:
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
    if restate and asked:  # the assistant's own pet: never the same name as the person's
        other, names = rng.choice(PETS[lang])
        person.update(otherpet=other, othername=rng.choice([x for x in names if x != person["petname"]]), asked=True)
    return person


def asked_back(rng: random.Random, p: dict[str, Any], kind: str, template: str, reply: str) -> tuple[str, str | None]:
    """--asked: the assistant's line after the person's message, and the person's answer to it (or None)."""
    lang, names = p["lang"], {k: p[k] for k in ("pet", "petname", "hobby", "otherpet", "othername")}
    roll = rng.random()
    if kind == "restate" and roll < 0.5:
        about = "pet" if "{pet" in template else "hobby"
        question = rng.choice(ASK_BACK[lang][about]).format(**names)
        return question, rng.choice(ASK_BACK[lang]["yes" if rng.random() < 0.8 else "no"])
    if kind != "answer" and roll > 0.9:
        theirs, said = rng.choice(THEIR_PET[lang])
        return theirs.format(**names), said.format(**names)
    return reply, None


def conversation(
    rng: random.Random, p: dict[str, Any], index: int, fmt: str, turns: int, pad: int, dated: bool = False,
) -> dict[str, Any]:
    """The index-th conversation of a user: later conversations are later in time. With `dated`, the
    templates include DATED and each turn of the turns format says what its words say about the date."""
    lang = p["lang"]
    start = p["start"] + timedelta(days=index * 2, minutes=rng.randrange(0, 600))
    pool = TEMPLATES[lang] + ([(kind, text) for kind, text, _ in DATED[lang]] if dated else [])
    pool += RESTATE[lang] if p.get("restate") else []
    pairs = []
    saids: list[str | None] = []
    answer: str | None = None  # with --asked: the person's next message answers the assistant's last line
    for t in range(turns):
        if answer is not None:
            kind, template, text, answer = "answer", "", answer, None
        else:
            kind, template = rng.choice(pool)
            text = template.format(
                name=p["name"], role=p["role"], city=p["city"], project=p["project"], thing=rng.choice(THINGS[lang]),
                pet=p.get("pet", ""), petname=p.get("petname", ""), hobby=p.get("hobby", ""),
            )
        saids.append(WHEN.get(template) if dated else None)
        reply = rng.choice(REPLIES[lang])
        if p.get("asked") and t + 1 < turns:
            reply, answer = asked_back(rng, p, kind, template, reply)
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
    turn_list: list[dict[str, Any]] = [{"timestamp": ts, "user": text, "assistant": reply} for text, reply, ts in pairs]
    for turn, said in zip(turn_list, saids, strict=True):
        if said is not None:
            turn["said"] = said  # ignored by the reader: for benchmarks/bench_dates.py
    return {"conversation_id": cid, "user_id": p["user_id"], "turns": turn_list}


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
    dated: bool = False,
    restate: bool = False,
    asked: bool = False,
) -> Iterator[str]:
    """JSONL lines. Conversations are dealt round-robin over users; with shuffle, in blocks of
    3 x `users` lines (at most 16 MB) the order is shuffled (so per user the file is mostly, not strictly, in time order).
    With repeat, the stream never ends (conversation indexes keep growing)."""
    rng = random.Random(seed)
    people = [persona(rng, n, restate, asked) for n in range(users)]
    count = [0] * users
    block: list[str] = []
    block_bytes = 0
    n = 0
    while repeat or n < conversations:
        u = n % users
        f = FORMATS[n % len(FORMATS)] if fmt == "mix" else fmt
        conv = conversation(rng, people[u], count[u], f, rng.randint(min_turns, max_turns), pad, dated)
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
    ap.add_argument("--dated", action="store_true", help="add time phrases at every precision (bench_dates.py)")
    ap.add_argument("--restate", action="store_true", help="each person's pet and hobby come up again in other words")
    ap.add_argument("--asked", action="store_true", help="with --restate: the assistant asks back about the pet or "
                    "hobby (the next message is a yes or a no) or speaks of its own pet")
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
        dated=args.dated,
        restate=args.restate,
        asked=args.asked,
    )
    stats = write(Path(args.out), lines, target)
    print(json.dumps({"out": args.out, **stats}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
