"""Indonesian cue words: the words that name a profile key ("my brother ..." is Family), and plan words."""

from __future__ import annotations

import re

from pipeline.engines.offline.lang.contract import Cues
from pipeline.engines.offline.lexicon import cue_words

CUES = Cues(
    key_cues={
        "Relationship": cue_words("lajang", "jomblo", "jomlo", "cerai", "bercerai", "janda", "duda", "tunangan(?:ku)?", "istri(?:ku|nya)?",
                                  "suami(?:ku|nya)?", "pacar(?:ku|nya)?", "menikah", "nikah"),
        "Family": cue_words("anak(?:-anak)?", "anakku", "ibu", "ayah", "bapak", "mama", "papa", "orang ?tua",
                            "ortu", "kakak", "adik", "saudara(?: perempuan| laki-laki)?", "nenek", "kakek", "keluarga",
                            "keponakan", "sepupu", "hamil", "bayi", "cucu", "mertua"),
        "Pets": cue_words("anjing", "kucing", "peliharaan", "kelinci", "hamster", "kura-kura", "burung", "kuda", "anak anjing"),
        "Work": cue_words("kerja", "bekerja", "pekerjaan", "kantor", "pensiun", "usaha", "bisnis", "karyawan", "jualan",
                          "berjualan", "profesi", "freelance", "bengkel", "toko", "pelanggan", "klien"),
        "Education": cue_words("sekolah", "kuliah", "kampus", "mahasiswa", "siswa", "kelas", "jurusan", "ujian", "skripsi", "sma",
                               "smp", "universitas", "lulus", "semester", "s2", "s1"),
        "Origin": cue_words("berasal", "asal", "asli", "kampung halaman", "lahir", "dibesarkan"),
        "Location": cue_words("tinggal", "kota", "desa", "pindah", "apartemen", "kos", "kost", "rumah", "pertanian"),
        "Diet": cue_words("vegetarian", "vegan", "daging", "babi", "halal", "pedas"),
        "Languages": cue_words("fasih", "bahasa ibu", "bisa bahasa", "ngomong bahasa", "berbicara bahasa"),
        "Hobbies": cue_words("hobi", "hobiku", "main", "bermain", "mengoleksi", "koleksi", "berkebun", "memanggang", "menjahit", "mendaki", "memancing",
                             "mancing", "membaca", "baca", "melukis", "menyanyi", "bernyanyi", "menari", "masak", "memasak",
                             "musik", "game", "olahraga", "gitar", "piano", "lari", "berlari", "berenang", "renang", "berkemah",
                             "traveling", "jalan-jalan", "nonton", "menonton", "film", "buku", "novel", "gym", "yoga", "bersepeda"),
        "Likes": cue_words("suka", "senang", "favorit", "favoritku", "penggemar", "cinta", "hobi", "doyan", "demen", "ngefans"),
        "Owns": cue_words("punya", "memiliki", "mobil", "motor", "kapal", "mengendarai"),
    },
    planned=re.compile(r"\b(?:akan|bakal|rencana(?:nya)?|berencana|mau ke|nanti)\b", re.IGNORECASE),
)
