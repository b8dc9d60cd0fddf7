"""Indonesian: how the language is told apart, and the subject a clause that dropped it gets."""

from __future__ import annotations

import re

from pipeline.engines.offline.lang.contract import Words

WORDS = Words(
    script="latin",
    # Function words that tell Indonesian from English (Latin script both), counted.
    function_words=frozenset({
        "abis", "adalah", "aja", "akan", "aku", "anak", "anda", "anjing", "atau", "ayah", "banget", "bekerja", "berarti",
        "bersama", "bgt", "bisa", "buat", "bukan", "capek", "dan", "dari", "deh", "dengan", "di", "dia", "dong",
        "favorit", "ga", "gak", "gue", "gw", "harga", "hari", "hr", "ibu", "ingin", "ini", "itu", "iya", "jadi", "jam",
        "juga", "kalo", "kami", "kamu", "karena", "kayaknya", "ke", "kemarin", "kerja", "kita", "kok", "kucing", "lagi",
        "lalu", "lg", "lupakan", "mager", "maksud", "maksudku", "malam", "malem", "mau", "memiliki", "menikmati",
        "minggu", "mungkin", "nama", "nggak", "nya", "oke", "pada", "pagi", "pakai", "pake", "paket", "pegang", "punya",
        "rumah", "sama", "santai", "saya", "sebagai", "sedang", "sekali", "seneng", "seorang", "setuju", "sih", "skrg",
        "sore", "sudah", "suka", "tahun", "tapi", "td", "tidak", "tinggal", "tolong", "udah", "udh", "untuk", "yang",
        "yg",
    }),
    subject="saya ",
    pro_drop=True,
    other_subject=re.compile(r"\b(?:dia|ia|beliau|mereka)\b", re.IGNORECASE),
)
