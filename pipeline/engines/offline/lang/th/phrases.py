"""Thai words the splitter, the rules, the extractor, consolidation and the sensitive-data check read."""

from __future__ import annotations

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang.contract import Phrases

# A space in Thai ends a sentence only after a closing particle or before a new subject; elsewhere it
# separates phrases of one sentence ("ชอบคำตอบสั้นๆ ตรงประเด็น").
_PARTICLE = r"(?:(?<=ครับ)|(?<=ค่ะ)|(?<=คะ)|(?<=นะ)|(?<=จ้ะ)|(?<=จ้า)|(?<=ฮะ)|(?<=555))"
_NEW_SUBJECT = r"(?=ผม|ฉัน|หนู|ดิฉัน|เรา|พวกเรา|อ้อ|อ๋อ|ส่วน|เป็น|อยู่|ทำงาน|เมื่อวาน|เมื่อคืน|สัปดาห์ที่แล้ว|อาทิตย์ที่แล้ว)"

PHRASES = Phrases(
    # -- splitting --
    sentence_end=(
        rf"{_PARTICLE}\s+(?=[\u0E00-\u0E7FA-Za-z])|(?<=[\u0E00-\u0E7F])\s+{_NEW_SUBJECT}"
        r"|(?<=[A-Za-z0-9])\s+(?=อยู่|ทำงาน|เมื่อวาน|เมื่อคืน|สัปดาห์ที่แล้ว|อาทิตย์ที่แล้ว)"
        r"|(?:(?<=ครับ)|(?<=ค่ะ))(?=[\u0E00-\u0E7F])(?!นะ|ผม)"
    ),
    clause_cuts=r"\s*(?:และ|แล้วก็)(?=ผม|ฉัน|หนู|ดิฉัน|เรา|พวกเรา)|(?<=[\u0E00-\u0E7F])\s+แต่\s*",
    fragment_subjects=((lazy_compile(r"^เป็น"), "ผม"),),
    # -- routing --
    topic_named=r"(?:โปรเจกต์|โปรเจค|โครงการ)\s*([A-Za-z0-9][\w.-]*)",
    contrast_tail=r"\s+ไม่ใช่.+",
    contrast_head=r"ไม่ใช่",
    chronic=r"บ่อย|ประจำ|ง่าย|ทุกครั้ง|เสมอ",
    agreed=r"ตัดสินใจ|ตกลง",
    habitual=r"ปกติ|ทุกวัน|มักจะ",
    as_you_said=r"ตามที่(?:คุณ)?บอก",
    evaluative=r"เยี่ยม|ดีมาก|เจ๋ง|น่าสนใจ",
    sharing=r"ด้วย|เหมือนกัน",
    pointer=r"นี้|นี่",
    correction_cues=r"หมายถึง|เปลี่ยนจาก",
    showing=r"นี่(?:คือ)?(?:รูป|คลิป|ลิงก์)",
    advice=r"อย่าลืม",
    negative_instruction=r"อย่า|ห้าม",
    forget_lead=r"ของ(?:ผม|ฉัน)",
    # -- the engine, consolidation, the keyer --
    material=r"(?:แปล|สรุป|เขียนใหม่|แก้|ตรวจ|เรียบเรียง)[^\n:]{0,30}?[:\n]",
    about_before=r"มันคือ|นั่นคือ|มันเป็น",
    topic_stop_words=frozenset("และ หรือ แต่ แล้ว วันนี้ เมื่อวาน พรุ่งนี้".split()),
    change_cues=r"เปลี่ยน|ย้าย|ตอนนี้",
    # -- the sensitive-data check --
    identifier_words=r"รหัสไปรษณีย์|ทะเบียนรถ|บัตรประชาชน|พาสปอร์ต",
    # -- the extractor --
    subject_words=frozenset({"ผม", "ฉัน"}),
    value_lead_drop=frozenset({"และ", "แต่", "ผม", "ฉัน", "เป็น", "ก็", "ครับ", "ค่ะ"}),
    value_tail_drop=frozenset({"ครับ", "ค่ะ", "คะ", "นะ", "จ้ะ", "จ้า", "และ", "ที่", "ของ", "ก็"}),
    negations=frozenset({"ไม่"}),
    second_person_words=frozenset({"คุณ", "เธอ"}),
)
