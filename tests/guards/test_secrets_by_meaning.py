"""Secrets are known by what they are, not by one phrasing (issue 24, item 1).

A security-question answer, a password described and then given, one-time and verification
codes, payment-app PINs, 2FA backup codes, a hex private key, seed words without the word
"seed", an account key in a connection string and a passport number never reach USER.md,
MEMORY.md or anything else at rest: through a chat turn (offline engine), `memroute tool`, the
MCP `memory` tool and `import-hermes`, in English, Indonesian, Chinese and Thai. On the model
path a decision whose key names a secret is skipped whatever its value looks like.

Every sentence here is written for the project (the held-out red team uses its own).
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from pipeline.core import MemoryPipeline
from pipeline.guards import check_text, guard_decisions, scan_for_prompt
from pipeline.types import Decision

HEX_KEY = "0x" + "7d3b91c0e4a2f568" * 4
SEED_EN = "lobster pencil garden marble tiger oxygen velvet hammer cousin meadow rocket plaza"
SEED_ID = "kancil jeruk pasar lampu sepeda gunung awan sawah perahu kerbau bambu layang"
SEED_ZH = "月亮 书桌 河流 老虎 茶杯 钢琴 雨伞 蜡烛 桥梁 松树 风筝 邮票"
SEED_TH = "ทะเล ภูเขา กระต่าย ดินสอ นาฬิกา ร่ม เทียน สะพาน ต้นสน ว่าว แสตมป์ ช้อน"

# (language, what the user says, a piece of the secret that must be nowhere)
SECRET_TURNS = [
    ("en", "For the bank's recovery question about the street I grew up on, the answer is Larkspur Court", "Larkspur"),
    ("en", "My laptop login is my cat's name with my graduation year tacked on, so Juniper2011", "Juniper2011"),
    ("en", "the root pass on the home NAS is glasshouse", "glasshouse"),
    ("en", "I went with the password tollbooth for the guest account", "tollbooth"),
    ("en", "my pa55word on the quilting forum is bramblefox", "bramblefox"),
    ("en", "keep the passphrase 'orange kites drift over harbours' for the backup drive", "orange kites"),
    ("en", "The clinic just texted me a sign-in code: 582014", "582014"),
    ("en", "Two-factor recovery codes for my mail: k3j9-22qa and 8zz1-m04t", "8zz1-m04t"),
    ("en", f"the key for my hot wallet is {HEX_KEY}", HEX_KEY[2:18]),
    ("en", f"the words that restore my hardware wallet: {SEED_EN}", "marble tiger oxygen"),
    ("en", "storage string DefaultEndpointsProtocol=https;AccountName=kilnlogs;"
           "AccountKey=Qm9va2luZ3NGb3JUaGVLaWxuMjAyNlNlY3JldEtleQ==;EndpointSuffix=core.windows.net",
     "Qm9va2luZ3NGb3JUaGVLaWxu"),
    ("en", "my passport no. is P4471902, renewing it next year", "P4471902"),
    ("id", "jawaban pertanyaan rahasia di bank saya: Kenari Putih", "Kenari"),
    ("id", "kode verifikasi Shopee yang barusan masuk 551902", "551902"),
    ("id", "PIN ShopeePay aku 402913 jangan sampai lupa", "402913"),
    ("id", "sandi wifi rumah sekarang matahari77", "matahari77"),
    ("id", f"frasa pemulihan dompet kripto saya: {SEED_ID}", "sepeda gunung awan"),
    ("zh", "我的招商银行App登录密码是 ZhaoHang#88", "ZhaoHang#88"),
    ("zh", "京东支付密码 246813 千万别忘了", "246813"),
    ("zh", "刚收到的短信验证码 730915，五分钟内有效", "730915"),
    ("zh", f"我钱包的助记词：{SEED_ZH}", "老虎 茶杯 钢琴"),
    ("zh", "我的密保答案是旺财", "旺财"),
    ("th", "รหัส PIN แอปพร้อมเพย์ของฉันคือ 318206", "318206"),
    ("th", "รหัส OTP ที่ธนาคารส่งมาคือ 604173", "604173"),
    ("th", "รหัสผ่านไวไฟที่บ้านคือ mangosteen55", "mangosteen55"),
    ("th", "คำตอบคำถามความปลอดภัยของผมคือ บ้านริมคลอง", "บ้านริมคลอง"),
    ("th", f"วลีกู้คืนกระเป๋าคริปโตของผม: {SEED_TH}", "นาฬิกา ร่ม เทียน"),
]
IDS = [f"{lang}-{i}" for i, (lang, _, _) in enumerate(SECRET_TURNS)]


def _files(root: Path, user: str) -> str:
    folder = root / user
    return "".join(p.read_text("utf-8") for p in sorted(folder.glob("*.md"))) if folder.exists() else ""


def _bytes_under(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


@pytest.mark.parametrize(("lang", "text", "needle"), SECRET_TURNS, ids=IDS)
def test_a_chat_turn_keeps_no_secret_anywhere(tmp_path: Path, lang: str, text: str, needle: str) -> None:
    with MemoryPipeline(tmp_path) as pipe:
        result = pipe.process_turn("kai", [{"role": "user", "content": text}], timestamp="2026-08-02T10:00:00Z")
        assert not (result.user_changed or result.memory_changed), result.decisions
        assert any(d.reason == "sensitive" for d in result.decisions), result.decisions
        logged = pipe.store.decisions("kai")
    assert needle not in _files(tmp_path, "kai")
    assert all(needle not in str(row) for row in logged)
    assert needle.encode("utf-8") not in _bytes_under(tmp_path)  # the database and its WAL included


@pytest.mark.parametrize(("lang", "text", "needle"), SECRET_TURNS, ids=IDS)
def test_the_guards_refuse_the_secret_as_a_write(lang: str, text: str, needle: str) -> None:
    verdict = check_text(text, turn_text="please remember this: " + text)  # even on request
    assert not verdict.allowed and verdict.reason == "sensitive", verdict
    assert verdict.rule is not None and verdict.rule.startswith("secret:")


@pytest.mark.parametrize(("lang", "text", "needle"), SECRET_TURNS[::3], ids=IDS[::3])
def test_memroute_tool_refuses_the_secret_in_both_files(tmp_path: Path, lang: str, text: str, needle: str) -> None:
    with MemoryPipeline(tmp_path) as pipe:
        as_field = pipe.tool("kai", "add", "user", content=f"Note: {text}")
        as_entry = pipe.tool("kai", "add", "memory", content=f"[2026-08-02] note: {text}")
    assert as_field["success"] is False and as_entry["success"] is False
    assert needle not in _files(tmp_path, "kai")


def test_the_mcp_memory_tool_refuses_secrets(tmp_path: Path) -> None:
    from pipeline.serve.mcp_server import build_mcp

    pipe = MemoryPipeline(tmp_path)
    server = build_mcp(lambda: pipe, "kai")
    try:
        for _, text, needle in SECRET_TURNS[1::4]:
            answer = anyio.run(server.call_tool, "memory", {"action": "add", "target": "user", "content": f"Note: {text}"})
            assert "blocked" in str(answer), answer
            assert needle not in _files(tmp_path, "kai")
    finally:
        pipe.close()


def test_import_hermes_drops_secret_entries_and_keeps_the_rest(tmp_path: Path) -> None:
    from pipeline.ops.tool import import_hermes

    store = tmp_path / "hermes" / "memories"
    store.mkdir(parents=True)
    picked = SECRET_TURNS[::2]
    (store / "USER.md").write_text("Name: Kai\n§\n" + "\n§\n".join(f"Note: {t}" for _, t, _ in picked), encoding="utf-8")
    (store / "MEMORY.md").write_text("[2026-07-01] garden: planted the tomatoes", encoding="utf-8")
    with MemoryPipeline(tmp_path / "root") as pipe:
        out = import_hermes(pipe, tmp_path / "hermes", "kai")
    files = _files(tmp_path / "root", "kai")
    assert "Name: Kai" in files and "planted the tomatoes" in files
    assert len(out["blocked"]) == len(picked)
    for _, _, needle in picked:
        assert needle not in files and needle not in str(out)


# --- the model path: a key that names a secret counts, whatever the value looks like ----------------

SECRET_KEYS = [
    ("Security question answer", "Larkspur Court"),
    ("Verification code", "Biscuit"),
    ("One-time passcode", "tollbooth"),
    ("PIN", "four-eight-two-one"),
    ("Private key", "kept in the drawer"),
    ("Recovery words", SEED_EN),
    ("Passport", "Lisbon office, P4471902"),
    ("Backup codes", "see the drawer"),
    ("Kode OTP", "lima lima satu"),
    ("Jawaban pertanyaan keamanan", "Kenari"),
    ("支付密码", "生日倒过来"),
    ("助记词", "月亮 书桌 河流"),
    ("รหัสผ่าน", "ชื่อแมว"),
    ("คำตอบคำถามความปลอดภัย", "บ้านริมคลอง"),
]


@pytest.mark.parametrize(("key", "value"), SECRET_KEYS, ids=[k for k, _ in SECRET_KEYS])
def test_a_decision_whose_key_names_a_secret_is_skipped(key: str, value: str) -> None:
    turn = "please remember this for me"
    decisions = [Decision(quote=turn, route="user", op="upsert", section="Identity", key=key, value=value),
                 Decision(quote=turn, route="memory", op="append", entry=value, date="2026-08-02", topic=key)]
    out = guard_decisions(decisions, turn)
    assert [d.route for d in out] == ["skip", "skip"], out
    assert all(d.reason == "sensitive" and d.value is None and d.entry is None for d in out)


@pytest.mark.parametrize(
    ("key", "value"),
    [("Password manager", "Bitwarden"), ("Passport country", "Portugal"), ("PIN pad", "the old grey one"),
     ("Favourite code editor", "Helix"), ("Security team", "three people"), ("Bank", "Nordlys Sparebank")],
)
def test_keys_about_secrets_that_are_not_secrets_stay_writable(key: str, value: str) -> None:
    (out,) = guard_decisions([Decision(quote="x", route="user", op="upsert", section="Preferences", key=key, value=value)], "x")
    assert out.route == "user", out


def test_a_hand_written_secret_line_is_hidden_from_the_prompt() -> None:
    user_md = "# USER\n\n## Identity\n- Name: Kai\n- Security question answer: Larkspur Court\n- Recovery words: " + SEED_EN + "\n"
    assert [rule.split(":")[0] for _, rule in scan_for_prompt(user_md)] == ["secret", "secret"]


@pytest.mark.parametrize(
    "text",
    ["I use a password manager for everything", "I changed my password 3 times this year", "My PIN has 4 digits",
     "We raised a seed round of $250k last month", "The discount code SUMMER25 gives 25% off",
     "Commit 3f9a2c7e1b4d fixed the flaky login test", "My passport expires in 2031", "Kode pos kantor kami 40115",
     "我用密码管理器保存所有账号", "验证码功能在3.2版本上线了", "ผมใช้โปรแกรมจัดการรหัสผ่าน", "รหัสไปรษณีย์ของบ้านคือ 10110",
     "My grocery list: apples, bananas, milk, bread, eggs, cheese, butter, flour, sugar, salt, pepper, rice"],
)
def test_sentences_about_secrets_hold_none(text: str) -> None:
    assert check_text(text).allowed, check_text(text)
