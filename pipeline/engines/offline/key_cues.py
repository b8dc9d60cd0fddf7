"""Words that name the profile key of a self-attributed clause, per language: "my brother ..." is Family.

The keyer (keyer.py) decides whether a clause is a durable fact; these cues decide which field holds it. A clause
with no cue gets no field: there is no catch-all key. Keys are tried in order, so "I love my two dogs" is Pets
before Likes, and "my son plays football" is Family before Hobbies.
(Language-specific like the packs' lexicons; they belong in the packs once the pack interface settles.)
"""

from __future__ import annotations

import re
from functools import lru_cache


def _words(*ws: str) -> str:
    return r"\b(?:" + "|".join(ws) + r")\b"


def _chars(*ws: str) -> str:
    return "(?:" + "|".join(ws) + ")"


# (key, {lang: pattern}); Latin-script patterns match whole words, Chinese and Thai ones anywhere.
_CUES: tuple[tuple[str, dict[str, str]], ...] = (
    ("Relationship", {
        "en": _words("single", "divorced", "widowed", "widow(?:er)?", "engaged", "wife", "husband", "boyfriend",
                     "girlfriend", "fianc[eé]e?", "married", "spouse"),
        "id": _words("lajang", "jomblo", "jomlo", "cerai", "bercerai", "janda", "duda", "tunangan(?:ku)?", "istri(?:ku|nya)?",
                     "suami(?:ku|nya)?", "pacar(?:ku|nya)?", "menikah", "nikah"),
        "zh": _chars("单身", "离婚", "离异", "丧偶", "订婚", "妻子", "老婆", "太太", "丈夫", "老公", "男友", "女友", "男朋友",
                     "女朋友", "结婚"),
        "th": _chars("โสด", "หย่า", "หมั้น", "ภรรยา", "เมีย", "สามี", "แต่งงาน"),  # not แฟน: also "a fan of"
    }),
    ("Family", {
        "en": _words("sons?", "daughters?", "kids?", "child", "children", "babies", "baby", "mom",
                     "mum", "mother", "dad", "father", "parents", "brothers?", "sisters?", "siblings?", "grandma",
                     "grandmother", "grandpa", "grandfather", "grand(?:kids|children|sons?|daughters?)", "aunt", "uncle",
                     "cousins?", "nephews?", "nieces?", "family", "twins",
                     "triplets", "pregnant", "step(?:son|daughter|mom|dad|kids)", "in-laws"),
        "id": _words("anak(?:-anak)?", "anakku", "ibu", "ayah", "bapak", "mama", "papa", "orang ?tua",
                     "ortu", "kakak", "adik", "saudara(?: perempuan| laki-laki)?", "nenek", "kakek", "keluarga",
                     "keponakan", "sepupu", "hamil", "bayi", "cucu", "mertua"),
        "zh": _chars("儿子", "女儿", "孩子", "父母", "爸爸", "妈妈", "父亲", "母亲",
                     "哥哥", "姐姐", "弟弟", "妹妹", "爷爷", "奶奶", "外婆", "外公", "家人", "怀孕", "宝宝", "独生", "养父", "养母", "孙子", "孙女", "三胞胎", "双胞胎"),
        "th": _chars("ลูก", "พ่อ", "แม่", "พี่ชาย", "พี่สาว", "น้องชาย", "น้องสาว", "ครอบครัว",
                     "ปู่", "ย่า", "ยาย", "หลาน", "ตั้งท้อง"),
    }),
    ("Pets", {
        "en": _words("dogs?", "pupp(?:y|ies)", "cats?", "kittens?", "pets?", "parrots?", "hamsters?", "rabbits?", "bunn(?:y|ies)",
                     "turtles?", "tortoises?", "goldfish", "guinea pigs?", "lizards?", "iguanas?", "ferrets?", "horses?"),
        "id": _words("anjing", "kucing", "peliharaan", "kelinci", "hamster", "kura-kura", "burung", "kuda", "anak anjing"),
        "zh": _chars("狗", "猫", "宠物", "鹦鹉", "兔子", "仓鼠", "乌龟", "柯基", "金鱼", "锦鲤"),
        "th": _chars("หมา", "สุนัข", "แมว", "สัตว์เลี้ยง", "กระต่าย", "เต่า", "นกแก้ว", "แฮมสเตอร์"),
    }),
    ("Work", {
        "en": _words("work", "works", "working", "worked", "job", "career", "retired", "business", "shift", "employed",
                     "boss", "office", "salon", "factory", "freelanc(?:e|er|ing)", "for a living", "clients?", "customers?"),
        "id": _words("kerja", "bekerja", "pekerjaan", "kantor", "pensiun", "usaha", "bisnis", "karyawan", "jualan",
                     "berjualan", "profesi", "freelance", "bengkel", "toko", "pelanggan", "klien"),
        "zh": _chars("工作", "上班", "退休", "职业", "公司", "生意", "老板", "开店", "店里", "客户", "当老师", "当医生",
                     "护士", "司机", "工程师", "设计师", "程序员"),
        "th": _chars("ทำงาน", "อาชีพ", "เกษียณ", "บริษัท", "เปิดร้าน", "ขายของ", "ลูกค้า", "ฟรีแลนซ์"),
    }),
    ("Education", {
        "en": _words("school", "college", "university", "uni", "student", "studying", "study", "studied", "class(?:es)?",
                     "grade", "degree", "major(?:ing)?", "exams?", "thesis", "phd", "masters?", "graduated?", "semester"),
        "id": _words("sekolah", "kuliah", "kampus", "mahasiswa", "siswa", "kelas", "jurusan", "ujian", "skripsi", "sma",
                     "smp", "universitas", "lulus", "semester", "s2", "s1"),
        "zh": _chars("学校", "大学", "学生", "上学", "专业", "本科", "高中", "初中", "考试", "研究生", "毕业", "读书", "年级"),
        "th": _chars("เรียน", "โรงเรียน", "มหาวิทยาลัย", "มหาลัย", "นักเรียน", "นักศึกษา", "สอบ", "ปริญญา"),
    }),
    ("Origin", {
        "en": _words("grew up", "born", "hometown", "originally", "raised"),
        "id": _words("berasal", "asal", "asli", "kampung halaman", "lahir", "dibesarkan"),
        "zh": _chars("老家", "来自", "出生", "长大", "家乡"),
        "th": _chars("บ้านเกิด", "เกิดที่", "มาจาก", "โตที่"),
    }),
    ("Location", {
        "en": _words("live", "lives", "living", "lived", "town", "city", "apartment", "neighbou?rhood", "moved", "farm",
                     "countryside", "suburbs?", "village"),
        "id": _words("tinggal", "kota", "desa", "pindah", "apartemen", "kos", "kost", "rumah", "pertanian"),
        "zh": _chars("住", "城市", "公寓", "搬到", "搬来", "农场", "小镇", "村里", "农村"),
        "th": _chars("อาศัย", "อยู่ที่", "อยู่บ้าน", "ย้ายไป", "ย้ายมา", "คอนโด", "หมู่บ้าน"),
    }),
    ("Diet", {
        "en": _words("vegetarian", "vegan", "pescatarian", "meat", "pork", "beef", "gluten", "dairy", "halal", "kosher",
                     "spicy"),
        "id": _words("vegetarian", "vegan", "daging", "babi", "halal", "pedas"),
        "zh": _chars("吃素", "素食", "吃肉", "清真", "不吃", "吃辣", "不能吃"),
        "th": _chars("มังสวิรัติ", "กินเจ", "วีแกน", "ฮาลาล", "ไม่กิน", "กินเผ็ด"),
    }),
    ("Languages", {
        "en": _words("speak", "speaks", "fluent", "bilingual", "native language", "mother tongue"),
        "id": _words("fasih", "bahasa ibu", "bisa bahasa", "ngomong bahasa", "berbicara bahasa"),
        "zh": _chars("会说", "会讲", "母语", "说英语", "说法语", "说中文", "讲英语"),
        "th": _chars("พูดภาษา", "ภาษาแม่"),
    }),
    ("Hobbies", {
        "en": _words("hobb(?:y|ies)", "play(?:s|ing)?", "collect(?:s|ing)?", "garden(?:ing)?", "hik(?:e|es|ing)",
                     "fishing", "read(?:s|ing)?", "paint(?:s|ing)?", "sing(?:s|ing)?", "danc(?:e|es|ed|ing)", "cook(?:s|ing)?",
                     "bak(?:e|es|ed|ing)", "knit(?:s|ting)?", "sew(?:s|ing)?", "music", "games?", "gaming", "sports?", "guitar",
                     "piano", "run(?:s|ning)?", "swim(?:s|ming)?", "camping", "travel(?:s|ing|ling)?", "surf(?:s|ing)?",
                     "yoga", "gym", "volunteer(?:s|ing)?", "watch(?:es|ing)?", "movies?", "books?", "novels?"),
        "id": _words("hobi", "hobiku", "main", "bermain", "mengoleksi", "koleksi", "berkebun", "memanggang", "menjahit", "mendaki", "memancing",
                     "mancing", "membaca", "baca", "melukis", "menyanyi", "bernyanyi", "menari", "masak", "memasak",
                     "musik", "game", "olahraga", "gitar", "piano", "lari", "berlari", "berenang", "renang", "berkemah",
                     "traveling", "jalan-jalan", "nonton", "menonton", "film", "buku", "novel", "gym", "yoga", "bersepeda"),
        "zh": _chars("爱好", "玩", "打球", "篮球", "足球", "乒乓球", "收集", "园艺", "钓鱼", "看书", "读书", "小说", "画画",
                     "唱歌", "跳舞", "做饭", "烘焙", "音乐", "游戏", "运动", "吉他", "钢琴", "跑步", "游泳", "旅行", "旅游",
                     "爬山", "健身", "瑜伽", "电影", "看剧"),
        "th": _chars("งานอดิเรก", "เล่น", "สะสม", "ทำสวน", "ตกปลา", "อ่านหนังสือ", "นิยาย", "วาดรูป", "ร้องเพลง", "เต้น",
                     "ทำอาหาร", "ทำขนม", "ดนตรี", "เกม", "กีฬา", "วิ่ง", "ว่ายน้ำ", "เดินป่า", "ท่องเที่ยว", "ดูหนัง",
                     "ฟิตเนส", "โยคะ", "ปั่นจักรยาน"),
    }),
    ("Likes", {
        "en": _words("like", "likes", "love", "loves", "enjoy", "enjoys", "favou?rites?", "fan", "into", "obsessed", "adore"),
        "id": _words("suka", "senang", "favorit", "favoritku", "penggemar", "cinta", "hobi", "doyan", "demen", "ngefans"),
        "zh": _chars("喜欢", "爱", "最爱", "迷", "粉丝", "热衷"),
        "th": _chars("ชอบ", "รัก", "โปรด", "แฟนคลับ", "ติด"),
    }),
    ("Owns", {
        "en": _words("own", "owns", "drive", "drives", "car", "truck", "motorcycle", "boat"),
        "id": _words("punya", "memiliki", "mobil", "motor", "kapal", "mengendarai"),
        "zh": _chars("开车", "汽车", "摩托", "游艇"),
        "th": _chars("มีรถ", "ขับรถ", "รถยนต์", "มอเตอร์ไซค์", "เรือ"),
    }),
)


@lru_cache(maxsize=8)
def compiled(lang: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((key, re.compile(by_lang[lang], re.IGNORECASE)) for key, by_lang in _CUES if lang in by_lang)


def key_asked(assistant: str, lang: str) -> str | None:
    """The key the assistant's question names ("what do you do for work?" -> Work): what a bare answer is about."""
    return key_for(assistant, lang) if assistant.rstrip().endswith(("?", "？")) else None


def key_for(clause: str, lang: str) -> str | None:
    """The first key (in order) whose cue words the clause holds, or None: no field without a named key."""
    for key, pattern in compiled(lang if lang in ("en", "id", "zh", "th") else "en"):
        if pattern.search(clause):
            return key
    return None


KEYS = tuple(key for key, _ in _CUES)


# Words that put a clause in the future: a plan ("we're going to Japan in April") is MEMORY.md's, not a profile fact.
_PLANNED = {
    "en": re.compile(r"\b(?:will|won't|gonna|going to|'ll|plan(?:s|ning)? to|about to)\b", re.IGNORECASE),
    "id": re.compile(r"\b(?:akan|bakal|rencana(?:nya)?|berencana|mau ke|nanti)\b", re.IGNORECASE),
    "zh": re.compile("打算|准备|计划|将要|就要|快要"),
    "th": re.compile("จะ|วางแผน|กำลังจะ"),
}


def planned(clause: str, lang: str) -> bool:
    pattern = _PLANNED.get(lang)
    return bool(pattern and pattern.search(clause))
