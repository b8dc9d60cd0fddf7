"""Indonesian words the splitter, the rules, the extractor, consolidation and the sensitive-data check read."""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang.contract import Phrases

_VERBS = r"(?:suka|senang|punya|tinggal|bekerja|kerja|benci|main|bermain|mengajar|belajar)"

PHRASES = Phrases(
    # -- splitting --
    clause_conjunctions=r"dan|tapi|tetapi|serta|juga",
    clause_leads=r"oh iya|oh ya|omong-omong",
    clause_subjects=r"saya|aku|kami|kita|gue|gw",
    clause_questions=r"bagaimana|apa|apakah|di mana|kalau kamu|kalau anda|anda",
    clause_cuts=r",?\s+dan\s+(?=(?:juga\s+)?(?:suka|senang|punya|tinggal|bekerja|kerja|hobi|benci|main|bermain|mengajar|belajar)\b)",
    apposition_heads=r"saya|aku|nama saya",
    apposition_article=r"seorang",
    apposition_subject="saya ",
    asked={
        "Name": r"\b(?:nama|namanya)\s+(?:anda|kamu|lengkap|mu)\b|\bsiapa nama\b|\bdengan (?:siapa|bapak siapa|ibu siapa)\b",
        "Origin": r"\b(?:asal|berasal)\s+(?:dari\s+)?mana\b|\bdari mana asal\b",
        "Location": r"\btinggal di mana\b|\bdi mana (?:anda|kamu) tinggal\b",
    },
    plural_start=r"kami|kita",
    fragment_subjects=(
        (lazy_compile(r"^seorang\s+\w", re.I), "saya "),
        (lazy_compile(rf"^(?:juga\s+)?{_VERBS}\b", re.I), "saya "),
    ),
    plural_subjects={"saya ": "kami "},
    # -- routing --
    topic_named=r"\b(?:proyek)\s+[\"'`]?([A-Za-z0-9][\w.-]*[A-Za-z0-9])",
    not_names=frozenset({
        "yang", "dan", "ke", "di", "itu", "ini", "kemarin", "besok", "minggu", "bulan", "tahun", "untuk", "dari", "sudah",
        "udah", "lagi",
    }),
    contrast_tail=r",\s*(?:bukan)\s+.+",
    contrast_head=r"bukan",
    chronic=r"\b(?:sering|selalu|gampang|mudah|setiap|kalau|kalo)\b",
    agreed=r"\b(?:memutuskan|sepakat|disepakati)\b",
    habitual=r"\b(?:biasanya|selalu|setiap)\b",
    as_you_said=r"\b(?:seperti katamu|kayak yang kamu bilang|seperti yang kamu bilang|bener katamu)\b",
    evaluative=r"keren|bagus|mantap|seru|asyik|menarik",
    sharing=r"\b(?:juga|sama)\b",
    pointer=r"ini|itu",
    stop_words=frozenset({"yang", "di", "ke", "dan", "itu", "ini", "saya", "aku", "gue", "gua", "gw", "soal", "tentang"}),
    filler_words=frozenset({
        "dia", "mereka", "kamu", "anda", "nya", "juga", "sangat", "banget", "semua", "sekali", "hal", "begitu", "gitu",
        "sama",
    }),
    subjects=r"saya|aku|gue|gw",
    subject_adverbs=r"sebenarnya|sebetulnya|sekarang|juga|masih|kebanyakan|hanya|cuma",
    first_clause_words=r"karena|tapi|yang",
    correction_cues=r"\b(?:maksud\w*|dari)\b",
    showing=r"(?:ini|itu)\s+(?:foto|video|link|gambar)",
    advice=r"(?:jangan lupa|jgn lupa)\b",
    negative_instruction=r"jangan|jangan pernah",
    forget_lead=r"saya|aku",
    forget_tail=r"lagi|ya",
    # "seorang perawat di Bandung": "di" names the Location.
    role_where=lazy_compile(r"^(?P<role>.+?)\s+(?P<prep>di)\s+(?P<place>[A-Z][\w.&'-]*(?:\s+[A-Z][\w.&'-]*){0,3})$"),
    place_keys={"di": "Location"},
    # -- the engine, consolidation, the keyer --
    material=(r"\b(?:terjemahkan|terjemahin|ringkas|rangkum|perbaiki|tulis ulang|cek|periksa|rapikan)\b[^\n:]{0,30}?"
              r"\b(?:ini|berikut|itu)\b[^\n:]{0,30}[:\n]"),
    about_before=r"itu|ternyata",
    topic_stop_words=frozenset("""
        dan atau tapi lalu ke di dari yang ini itu untuk dengan saya aku kami kita juga sudah hari kemarin besok
    """.split()),
    change_cues=r"\b(?:diganti|ganti|pindah|beralih|sekarang)\b",
    merge_stop_words=frozenset({"yang", "di", "ke"}),
    # -- the sensitive-data check --
    identifier_words=r"plat nomor|kode ?pos|\bNIK\b|\bKTP\b",
    # -- the extractor --
    subject_words=frozenset({"saya", "aku", "gue", "gw"}),
    value_lead_drop=frozenset({
        "dan", "tapi", "atau", "jadi", "juga", "cuma", "saya", "aku", "gue", "gw", "sih", "kok", "ya", "yang", "adalah",
        "sebagai", "sekarang", "masih", "lagi",
    }),
    value_tail_drop=frozenset({
        "dan", "atau", "tapi", "di", "ke", "dari", "yang", "untuk", "dengan", "juga", "sih", "deh", "dong", "kok", "ya",
        "nih", "lho", "kan", "aja", "banget", "sekarang", "lagi", "saya", "aku", "kamu", "itu", "ini",
    }),
    phrase_openers=frozenset({"dengan", "di", "ke", "dari", "untuk"}),
    negations=frozenset({
        "tidak", "tak", "gak", "ga", "nggak", "enggak", "engga", "ngga", "bukan", "belum", "jangan",
    }),
    second_person_words=frozenset({"kamu", "anda", "kau", "lu", "lo", "mu"}),
    contentless=frozenset({"itu", "ini", "hal", "sesuatu"}),
)
