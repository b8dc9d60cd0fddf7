"""Indonesian word lists and statement shapes (formal "saya" and casual "aku"/"gue")."""

from __future__ import annotations

from pipeline.engines.offline.lang.en.lexicon import ROLE_HEAD
from pipeline.engines.offline.lexicon import FactRule, Lexicon, rx, words

# ROLE_HEAD: English's role nouns, since job titles are often said in English ("saya seorang software engineer").

_I = r"(?:saya|aku|gue|gua|gw|sy)"
_MY = r"(?:saya|ku|aku|gue|gw)"
_FAMILY = words(
    "ibu", "ayah", "bapak", "mama", "papa", "bunda", "orang tua", "orangtua", "kakak", "adik", "saudara", "saudari",
    "suami", "istri", "anak", "anak-anak", "putra", "putri", "keluarga", "nenek", "kakek", "paman", "bibi", "tante",
    "om", "sepupu", "pacar", "tunangan", "mertua", "cucu",
)
_PETS = words("anjing", "kucing", "sapi", "kuda", "ikan", "burung", "kelinci", "hamster", "ular", "kura-kura", "peliharaan", "kambing", "ayam")
_APPEARANCE = words("rambut", "mata", "kulit", "tinggi badan", "berat badan", "tato", "jenggot")

FACTS: tuple[FactRule, ...] = (
    FactRule("name", rx(rf"^(?:nama {_MY}(?: adalah)?|namaku|nama gue|panggil (?:saya|aku) |{_I} bernama)\s*(?P<v>[^,;]+)"), "Name", confidence=0.95),
    FactRule("name-intro", rx(rf"^{_I}\s+(?P<v>[A-Z][a-zA-Z'-]+(?:\s+[A-Z][a-zA-Z'-]+)?)(?:\s+dari\s+[A-Z][\w\s-]*)?$", 0), "Name", confidence=0.8),
    FactRule("role-explicit", rx(rf"^(?:{_I} (?:sekarang )?(?:bekerja|kerja|berprofesi|bertugas) sebagai|pekerjaan {_MY}(?: adalah| sekarang)?|profesi {_MY}(?: adalah)?|"
                                 rf"{_I} (?:sekarang )?(?:menjadi|jadi)|{_I} dipromosikan (?:menjadi|jadi))\s+(?:seorang\s+)?(?P<v>.+)"),
             "Role", confidence=0.95),
    FactRule("role-noun", rx(rf"^{_I}\s+(?:sekarang\s+|adalah\s+)?(?:seorang|sebagai)\s+(?P<v>(?!yang\b).+)"), "Role", confidence=0.85),
    FactRule("role-head", rx(rf"^{_I}\s+(?:sekarang\s+|udah\s+|sudah\s+|jadi\s+)?(?P<v>(?:[\w-]+\s+){{0,3}}(?:{ROLE_HEAD}|guru|dokter|perawat|petani|pengacara|"
                             rf"akuntan|mahasiswa|mahasiswi|pelajar|karyawan|pegawai|wiraswasta|pengusaha|penulis|desainer|programmer|insinyur|musisi|"
                             rf"koki|sopir|supir|dosen|peneliti|ibu rumah tangga|freelancer)\b.*)"), "Role", confidence=0.85),
    FactRule("budget", rx(rf"^(?:budget|anggaran|bujet)\s+(?:{_MY}\s+)?(?P<v>.+)"), "Budget", confidence=0.85),
    FactRule("employer", rx(rf"^{_I} (?:bekerja|kerja|magang) (?:di|untuk|pada)\s+(?P<v>.+)"), "Employer"),
    FactRule("comm-style", rx(rf"^{_I} (?:lebih )?(?:suka|senang|prefer|ingin|mau|menyukai)\s+(?:komunikasi|jawaban|penjelasan|gaya komunikasi|balasan)\s+(?P<v>.+)"),
             "Response style", confidence=0.9),
    FactRule("stack", rx(rf"^(?:stack (?:andalan |utama |favorit )?{_MY}(?: biasanya)?(?: adalah)?|{_I} (?:biasanya|selalu) (?:pakai|memakai|menggunakan|ngoding dengan))\s+(?P<v>.+)"),
             "Usual stack"),
    FactRule("education", rx(rf"^{_I} (?:masih |sedang )?(?P<v>(?:di|kuliah di|sekolah di|belajar di) (?:sekolah|kampus|universitas|sma|smp|sd|kelas|kuliah)\b.*|(?:kuliah|sekolah) di\b.*|mahasiswa\b.*|di kelas \w+.*)"),
             "Education", confidence=0.8),
    FactRule("location", rx(rf"^{_I} (?:sekarang )?(?:tinggal|menetap|berdomisili|berada|bermukim)\s+(?:bersama\s+.+?\s+)?(?:di|dekat)\s+(?P<v>.+)|"
                            rf"^{_I} (?:sekarang )?di (?:kota |negara bagian )?(?P<v2>(?!rumah|sini|sana|kantor|jalan|kamar|dapur|luar|dalam|tempat)\w[\w .-]{{1,30}})$"),
             "Location", confidence=0.9),
    FactRule("moved", rx(rf"^{_I} (?:(?:baru|saja|sudah|udah|udh|akhirnya|sekarang|barusan)\s+)*pindah(?:an)? (?:ke|dari)\s+(?P<v>.+)"), "Location", confidence=0.8),
    FactRule("origin", rx(rf"^{_I} (?:berasal |asli |asal )?dari\s+(?P<v>.+)|^{_I} orang\s+(?P<v2>[A-Z].+)"), "Origin"),
    FactRule("birthplace", rx(rf"^{_I} lahir (?:dan (?:besar|dibesarkan|tumbuh) )?di\s+(?P<v>.+)"), "Origin"),
    FactRule("born-when", rx(rf"^{_I} (?P<v>lahir (?:pada|tahun)\s+.+)"), "Age"),
    FactRule("age", rx(rf"^(?:{_I} (?:berusia|berumur|umur|usia)|umur {_MY}|usia {_MY}|umurku|usiaku)\s+(?P<v>\d+.*)|^{_I}\s+(?P<v2>\d{{1,3}}\s+tahun)\b(?!\s+(?:lalu|yang lalu|terakhir))"), "Age", confidence=0.9),
    FactRule("gender", rx(rf"^{_I}\s+(?:seorang\s+)?(?P<v>laki-laki|perempuan|pria|wanita|cowok|cewek)$"), "Gender"),
    FactRule("relationship", rx(rf"^{_I}\s+(?:sudah\s+|baru\s+)?(?P<v>menikah|lajang|bercerai|cerai|bertunangan|jomblo|single)\b.*"), "Relationship"),
    FactRule("languages", rx(rf"^{_I} (?:bisa |fasih |lagi |sedang |masih )?(?:(?:berbicara|bicara|belajar|mempelajari|menguasai)\s+)?(?P<v>bahasa\s+.+)|^.*bahasa yang {_I} pelajari.*"),
             "Languages"),
    FactRule("goal", rx(rf"^(?:(?:target|tujuan|goal|resolusi)(?:\s+{_MY})?(?:\s+(?:saat ini|sekarang|tahun ini|bulan ini))?(?:\s+adalah|\s*:)?|tujuan {_MY}(?: saat ini| sekarang)?(?: adalah)?|impian {_MY}(?: adalah)?|cita-cita {_MY}(?: adalah)?|"
                        rf"{_I} (?:ingin|mau) (?:menjadi|jadi)|{_I} (?:ingin|mau|pengen|pingin)(?=\s+.*\b(?:dalam \d+|dalam (?:satu|dua|tiga|lima) tahun|tahun depan|suatu hari)\b)|{_I} (?:bercita-cita|bermimpi|sedang menabung untuk)(?: menjadi| jadi)?|"
                        rf"(?:ketika|kalau|saat) {_I} (?:dewasa|besar)(?:,)? {_I} ingin(?: menjadi| jadi)?)\s+(?P<v>.+)"),
             "Goal", confidence=0.85),
    FactRule("allergies", rx(rf"^{_I} (?:punya )?(?P<v>alergi\b.+|intoleransi laktosa.*)"), "Allergies", confidence=0.85),
    FactRule("diet", rx(rf"^{_I} (?P<v>(?:hanya|cuma|tidak|nggak|gak|ga|tak|tidak pernah|tidak bisa|gak bisa|nggak bisa|ga bisa) (?:makan|minum|mengonsumsi)\s+.+)|"
                        rf"^{_I} (?:seorang )?(?P<v2>vegetarian|vegan|pescatarian)\b.*"),
             "Diet", confidence=0.85),
    FactRule("accessibility", rx(rf"^{_I} (?P<v>tunanetra\b.*|tunarungu\b.*|buta warna\b.*|disleksia\b.*|tuli\b.*|low vision\b.*)"), "Accessibility", confidence=0.85),
    FactRule("fears", rx(rf"^{_I} (?:sangat |sangat )?(?:takut|ngeri|fobia)\s+(?:(?:pada|akan|sama|dengan)\s+)?(?P<v>.+)"), "Fears", confidence=0.8),
    FactRule("timezone", rx(rf"^zona waktu {_MY}(?: adalah)?\s+(?P<v>.+)"), "Time zone"),
    FactRule("prefers", rx(rf"^{_I} lebih (?:suka|senang|menyukai|memilih|prefer|milih)\s+(?P<v>.+)"), "Likes"),
    FactRule("favorite-bare", rx(rf"^(?:favorit|kesukaan) {_MY}(?:\s+adalah|\s+ialah|\s+yaitu)?\s+(?P<v>.+)|^(?P<v2>.+?)\s+(?:adalah|ialah)\s+(?:\w+\s+)?(?:favorit|kesukaan) {_MY}\b.*"),
             "Favorites"),
    FactRule("work-style", rx(rf"^{_I} (?:biasanya |lebih suka |suka |paling )?(?:bekerja|kerja|ngoding|fokus|produktif)\s+(?P<v>(?:paling baik )?(?:malam|pagi|dari rumah|remote|jarak jauh|sendiri).*)"),
             "Work habits", confidence=0.8),
    FactRule("favorite", rx(rf"^(?P<k>[\w\s-]+?)\s+(?:favorit|favorite|kesukaan|kegemaran) {_MY}(?:\s+adalah|\s+ialah|\s+yaitu)?\s+(?P<v>.+)"),
             "Favorites", confidence=0.9),
    FactRule("tools", rx(rf"^{_I} (?:pakai|pake|menggunakan|ngoding pakai)\s+(?P<v>(?=.*\b(?-i:[A-Z0-9]))\S.*)"), "Usual stack"),
    FactRule("dislikes", rx(rf"^{_I} (?:sangat |benar-benar )?(?:tidak suka|nggak suka|gak suka|ga suka|tak suka|kurang suka|benci|membenci|tidak menyukai)\s+(?P<v>.+)"),
             "Dislikes"),
    FactRule("likes", rx(rf"^{_I} (?:sangat |juga |paling |benar-benar )?(?:suka|senang|menyukai|gemar|hobi|cinta|mencintai|menikmati|doyan|hobinya|sayang)\s+(?P<v>.+)"),
             "Likes"),
    FactRule("fan", rx(rf"^{_I} (?:seorang )?(?:penggemar|pecinta|fans|penikmat)\s+(?P<v>.+)"), "Likes"),
    FactRule("pets", rx(rf"^(?:{_I} (?:punya|memiliki|memelihara|pelihara|piara)\b.*\b{_PETS}\b.*|{_PETS} {_MY}\b.*|.*\b{_PETS}\b.*\b(?:tinggal )?bersama {_I}.*)"),
             "Pets", whole=True),
    # A close person counts when the sentence places them in the user's life, not for their own tastes ("adik aku vegan").
    FactRule("family", rx(rf"^(?:{_FAMILY}(?: (?:laki-laki|perempuan|tertua|bungsu))? {_MY}\s+(?:adalah|seorang|bekerja|kerja|tinggal|sudah|udah|baru|punya|"
                          rf"memiliki|lahir|namanya|bernama|kuliah|sekolah|berumur|berusia|umur|usia|\d|meninggal|jadi|menjadi|ada|dan {_I})\b.*|{_I} (?:hanya |cuma |juga )?(?:punya|memiliki|mempunyai)\b.*\b{_FAMILY}\b.*|{_I} \w+ bersaudara\b.*|"
                          rf"{_I} (?:tinggal )?bersama {_FAMILY}\b.*|{_I} (?:sedang )?hamil\b.*|{_I} (?:berencana )?(?:bercerai|menikah)\b.*|{_I} (?:seorang )?(?:ibu|ayah)\b.*)"),
             "Family", whole=True),
    FactRule("appearance", rx(rf"^(?:{_I} (?:punya|memiliki|mempunyai)\b.*\b{_APPEARANCE}\b.*|{_I} (?:berambut|bermata|berkulit|bertubuh)\b.*|{_APPEARANCE} {_MY}\b.*)"),
             "Appearance", whole=True),
    FactRule("background", rx(rf"^(?:{_I} (?:dulu|dulunya|lulus|dibesarkan|tumbuh|besar di|mantan)\b|(?:ketika|waktu|saat) {_I} (?:kecil|muda)\b).*"),
             "Background", whole=True),
    FactRule("hobbies", rx(rf"^(?:{_I} (?:bermain|main|mengoleksi|koleksi|melukis|menggambar|bernyanyi|menyanyi|menari|mendaki|berenang|berlari|lari|memasak|masak|"
                           rf"membaca|baca|menulis|berselancar|menanam|berkebun|memancing|bersepeda|menonton|nonton|mendengarkan|menjadi sukarelawan|bersaing|berlatih|latihan)\b|"
                           rf"(?:di )?akhir pekan\b|(?:di )?waktu luang\b).*"),
             "Hobbies", whole=True),
    FactRule("owns", rx(rf"^{_I} (?:punya|memiliki|mempunyai)\s+(?P<v>(?!(?:\w+\s+)?(?:pertanyaan|masalah|ide|waktu|kerjaan|pekerjaan rumah|rencana|perasaan|teman yang|kesulitan|itu|ini|banyak favorit)\b).+)"),
             "Owns", confidence=0.75),
    FactRule("habits", rx(rf"^{_I} (?:sering|biasanya|selalu|jarang|tidak pernah)\b.*|^{_I} .*\b(?:setiap|tiap) (?:hari|pagi|malam|minggu|pekan)\b.*"),
             "Routine", whole=True),
)

LEXICON = Lexicon(
    lang="id",
    first_person=rx(r"\b(?:saya|aku|gue|gua|gw|sy|namaku|ibuku|ayahku|rumahku|kucingku|anjingku|maksudku|tempatku|umurku|usiaku|hobiku|pacarku|"
                      r"suamiku|istriku|anakku|adikku|kakakku|keluargaku|kantorku|temanku|mamaku|papaku|kerjaanku|pekerjaanku)\b"),
    plural_person=rx(r"\b(?:kami|kita|tim kami|tim kita|tim saya)\b"),
    subject=rx(rf"^{_I}\s+"),
    greeting=rx(r"^(?:hai|halo|hallo|hei|hey|hi|kenalin|kenalkan|perkenalkan|selamat (?:pagi|siang|sore|malam)|assalamualaikum|permisi|pagi|met pagi)(?:\s+(?:di sana|semua|kak|bang|mas|mbak|teman|(?-i:[A-Z][a-z]+)(?=\s*[,!])))?[\s,!.:-]+"),
    phatic=rx(r"^(?:hai|halo|hei|terima kasih|makasih|trims|thanks|oke|ok|okay|sip|siap|baik|baiklah|ya|iya|yap|tidak|nggak|gak|mantap|keren|"
              r"bagus|selamat (?:pagi|siang|sore|malam)|sampai jumpa|dadah|wkwk\w*|haha\w*|hmm+|betul|benar|paham|mengerti|noted)(?:\s+(?:ya|banyak|kak|banget|sekali|deh|dong))*[\s!.?]*$"),
    discourse=rx(r"^(?:sebenarnya|sebetulnya|eh|oh|nah|jadi|terus|lalu|dan|tapi|juga|btw|omong-omong|oke|ok|ya|iya|yup|bener|betul|benar|sip|"
                 r"sekarang|oh ya|oh iya|maaf|sori|sorry|koreksi|ralat|update|info|fyi|berarti|btw ya)(?:\s*[,:;!-]\s*|\s+)|"
                 # laughter and interjections before the speaker's own clause: "wkwk aku punya dua kucing"
                 r"(?:(?:ha)+h?|(?:he)+|(?:hi)+|(?:xi)+|a?(?:wk)+|lol|wah|waduh|wow|gak|nggak|enggak|ngga|tidak|bukan)"
                 r"(?:\s*[,:;!.?~-]+\s*|\s+)(?=(?:saya|aku|gue|gw|sy)\b)"),
    question=rx(r"\?\s*$|\bjam berapa\b|^(?:apa|apakah|siapa|di ?mana|kapan|mengapa|kenapa|bagaimana|gimana|berapa|mana|bisakah|dapatkah|bolehkah|maukah)\b|\b(?:nggak|gak|tidak|bukan)\s*\?$"),
    request=rx(r"^(?:tolong|mohon|minta|coba|bisa|bisakah|boleh|bantu|anggap|pura-pura|misalkan|bayangkan|bantuin|ubah|ganti|gantikan|buat|buatkan|bikin|bikinin|terjemahkan|terjemahin|"
               r"ringkas|ringkaskan|singkatkan|perpendek|persingkat|tulis|tuliskan|perbaiki|benerin|tambahkan|tambahin|kirim|kirimkan|cek|periksa|"
               r"jelaskan|jelasin|carikan|cari|hitung|rapikan|format|pakai|gunakan|jangan|tampilkan|kasih|berikan|sebutkan|rangkum|susun|"
               r"saya (?:mau|ingin|perlu) (?:ubah|mengubah|ganti|mengganti|tanya|bertanya|minta|membatalkan|batalkan))\b"),
    remember=rx(r"^(?:tolong\s+)?(?:ingat|ingatlah|ingat ya|catat|catatlah|simpan|perlu dicatat|jangan lupa|inget|ingetin|mengingatkan|pengingat|"
                r"cuma mau ingetin|sekadar info|fyi)(?:\s+(?:bahwa|kalau|kalo|ya|ini|aja))?[\s:,]+"),
    standing=rx(r"^(?:tolong\s+)?(?:selalu|jangan pernah|mulai sekarang|mulai skrg|mulai hari ini|ke depannya|untuk seterusnya)\b|"
                r"\b(?:mulai sekarang|mulai skrg|ke depannya|seterusnya)\b"),
    # "hapus alamat saya": delete/remove only for what is about the user or the notes; "hapus paragraf ini" is a task.
    forget=rx(r"^(?:tolong\s+)?(?:(?:lupakan|lupain|gak usah ingat|nggak usah ingat|tidak usah ingat|jangan ingat|ga usah inget|gak usah inget|"
              r"nggak usah inget|jangan simpan)\s+(?:lagi\s+)?(?:tentang\s+|bahwa\s+|soal\s+|kalau\s+|kalo\s+|catatan\s+(?:tentang|soal)\s+)?(?P<t>(?!(?:itu|ini|aja|saja)\s*[.!]*$).+)|"
              r"(?:hapus|hapuskan|buang)\s+(?:catatan|data|info|informasi)\s+(?:tentang|soal|mengenai)\s+(?P<t3>.+)|"
              r"(?:hapus|hapuskan|buang)\s+(?:data\s+|info\s+)?(?P<t2>(?=.*(?:\b(?:saya|aku|gue|gw)\b|\w+ku\b|dari (?:memori|catatan)))(?!.*\b(?:paragraf|kalimat|baris|judul|kata)\b).+))$"),
    hedge=rx(r"\b(?:mungkin|kayaknya|sepertinya|kelihatannya|agak|entahlah|entah|nggak tahu|gak tahu|tidak tahu|ga tau|gak tau|nggak tau|kurang tahu|"
             r"kurang yakin|tidak yakin|nggak yakin|gak yakin|barangkali|sedikit banyak|semacam|terserah|kali ya|mungkin aja|kadang-kadang|"
             r"oke lah|boleh lah|sama aja|tergantung|belum tahu|belum tau|belum yakin|belum mutusin|bisa jadi)\b"),
    mood_state=rx(r"\b(?:turut (?:berduka|prihatin|sedih)|ikut sedih|maaf (?:mendengar|ya|banget)|(?:cuma |hanya )?bercanda|gak bohong|nggak bohong|"
                  r"(?:saya|aku) (?:agak|sedikit|jadi|lagi) (?:gugup|takut|khawatir|cemas|deg-degan)|(?:saya|aku) (?:gugup|khawatir|cemas|deg-degan)|capek|cape|capai|lelah|letih|ngantuk|mengantuk|lapar|laper|haus|pusing|sakit kepala|bosan|bosen|bete|badmood|bad mood|galau|"
                  r"kesal|kesel|stres|stress|mumet|lemas|lemes|meriang|masuk angin|pegal|mager|baper|sebel|seneng banget|senang banget|"
                  r"happy banget|sedih banget|kesel banget)\b"),
    mood_emotion=rx(r"\b(?:senang|seneng|sedih|marah|kecewa|gembira|bahagia|cemas|gugup|khawatir|frustrasi|kesepian|jengkel|happy|sakit|baik|buruk|semangat|"
                    r"excited|panik|deg-degan|males|malas)\b"),
    now_marker=rx(r"\b(?:hari ini|hr ini|sekarang|skrg|lagi|lg|sedang|malam ini|pagi ini|barusan|saat ini)\b"),
    moment=rx(r"\b(?:hari ini|hr ini|skrg|sekarang ini|saat ini|malam ini|pagi ini|barusan)\b"),
    temporary=rx(r"\b(?:(?:untuk|buat) (?:perjalanan|liburan|dinas|konferensi|workshop|acara|event|training|pelatihan)|sedang (?:liburan|dinas|berlibur)|"
                 r"lagi (?:liburan|dinas)|perjalanan bisnis|minggu ini|sementara)\b"),
    project_cue=rx(r"\b(?:harga|paket|langganan|layanan|billing|pembayaran|server|deploy|di-deploy|dideploy|rilis|merilis|dirilis|luncurkan|meluncurkan|diluncurkan|merge|migrasi|bug|fitur|proyek|project|"
                   r"repo|api|database|basis data|server|backend|frontend|staging|production|produksi|versi|v\d[\w.]*|sprint|tenggat|deadline|"
                   r"rapat|meeting|klien|pelanggan|halaman|situs|website|aplikasi|app|dasbor|dashboard|desain|prototipe|demo|hero section|"
                   r"landing page|kode|codebase|tim)\b"),
    decision_cue=rx(r"\b(?:memutuskan|diputuskan|sepakat|disepakati|setuju|deal|fix pakai|jadinya|akhirnya pakai|memilih|dipilih|beralih ke|pindah ke|mengganti|diganti|mengubah|diubah|"
                    r"menggunakan|pakai|kita pakai|kami pakai|jadi pakai)\b"),
    done=rx(r"\b(?:sudah|udah|udh|telah|barusan|tadi|selesai|beres|kelar|lagi ngerjain|sedang mengerjakan|lagi bikin|sedang membuat|"
            r"di-deploy|dideploy|dirilis|diluncurkan|diperbaiki|diganti|diubah|dipindah|ditunda|dibatalkan)\b"),
    language_word=rx(r"\b(?:bahasa \w+|inggris|indonesia|mandarin|thai|jepang)\b"),
    trailing=rx(r"[\s,;:]*(?:\b(?:sekarang|skrg|saat ini|kok|sih|deh|dong|ya|lho|loh|kan|juga|aja|saja|banget|btw|lagi|lg|kok)\b[\s,;:]*)+$"),
    no_longer=rx(r"\b(?:(?:udah|sudah|udh)\s+(?:gak|nggak|tidak|tak|ga|enggak|bukan|berhenti)|tidak lagi|gak lagi|nggak lagi|ga lagi|berhenti|"
                 r"bukan lagi|batal|dibatalkan|gak jadi|nggak jadi)\b"),
    meant=rx(r"^(?:(?:eh\s+)?(?:maaf|sori|sorry),?\s*)?(?:maksud(?:ku|nya| saya| aku| gue))\s+(?P<new>.+?),?\s+bukan\s+(?P<old>.+)$"),
    switched=rx(r"\b(?:ganti|pindah|beralih|migrasi)\s+dari\s+(?P<old>.+?)\s+ke\s+(?P<new>.+)$"),
    facts=FACTS,
    second_person=rx(r"\b(?:kamu|anda|kau|engkau|lu|lo|loe|elo|dirimu|milikmu|punyamu|kalian)\b"),
    empty_value=rx(r"^(?:itu|ini|dia|mereka|semua|semuanya|begitu|gitu|juga|banget|sekali|hal itu|hal ini|main|menang|sama|yang sama)$|"
                   r"\b(?:dia|mereka|hal itu|hal ini|begitu|gitu|ke sana|di sana|ke situ|di situ)\b|^(?:bagaimana|cara|itu|ini)\b"),
    addressed=rx(r"\b(?:kamu|anda|jawab|jawaban|balas|balasan|gunakan|pakai bahasa|jelaskan|tulis|panggil saya|panggil aku|beri(?:kan)? saya|"
                 r"kasih saya|ingatkan saya|emoji|poin|ringkas|singkat)\b"),
)
