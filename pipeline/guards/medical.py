"""Health by what it names, whoever it is about: a condition, a medicine, an implanted or medical
device, an operation, in four languages (kind HEALTH).

health.py reads health from how a sentence is said ("I was diagnosed with", "I'm on sertraline").
This module reads it from the medical word itself, so it holds for the user's family too ("my mum
has Parkinson's", "our son is autistic", "Dad got a pacemaker fitted", "我爸装了心脏起搏器") and in
a stored line ("Family: mum has Parkinson's"). Only the medical words are the span: "my mum has
[REDACTED:HEALTH] and moved in with us" keeps the living arrangement on record.

A medical word about a topic rather than a body stays ordinary: research, a ward, a charity, a
job ("I work in cancer research", "a diabetes nurse", "she makes insulin pumps", "a book about
dementia"). Words that are medical only in some frames (stroke, operation, surgery, transplant,
bypass, depression, 手术, ผ่าตัด) need that frame.

`about_others(text)`: whether a health detail in `text` is about someone other than the speaker.
A person may ask to keep their own health details; nobody can consent for their mother.
"""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile

_I = re.IGNORECASE

# --- English: words that name a medical thing wherever they stand ----------------------------
_EN_CONDITIONS = (
    r"parkinson'?s(?: disease)?|parkinsons|alzheimer'?s(?: disease)?|alzheimers|dementia|"
    r"(?:breast|lung|prostate|colon|colorectal|bowel|skin|ovarian|cervical|pancreatic|brain|bone|liver|blood|throat|"
    r"stomach|kidney|bladder|thyroid|testicular|uterine|stage (?:[1-4]|i{1,3}v?|iv|one|two|three|four)|terminal)\s+cancer|"
    r"cancer|leuka?emia|lymphoma|melanoma|sarcoma|myeloma|glioblastoma|carcinoma|metasta(?:sis|ses|tic)|tumou?rs?|"
    r"multiple sclerosis|motor neuron(?:e)? disease|\bals\b(?=[^.!?\n]{0,30}\b(?:diagnos|disease|has|had|with)\b)|"
    r"cerebral palsy|down'?s? syndrome|cystic fibrosis|muscular dystrophy|spina bifida|huntington'?s(?: disease)?|"
    r"epilepsy|epileptic|autism|autistic|asperger'?s(?: syndrome)?|tourette'?s(?: syndrome)?|tourettes|\badhd\b|"
    r"diabetes|diabetic|asthma|asthmatic|\bcopd\b|"
    r"emphysema|hypertension|high blood pressure|heart (?:attack|failure|disease|condition|murmur|defect|problems?)|"
    r"congestive heart|angina|arrhythmia|atrial fibrillation|\bafib\b|kidney (?:failure|disease|stones?)|"
    r"renal failure|liver (?:disease|failure)|cirrhosis|hepatitis(?: [abc])?|\bhiv\b|lupus|crohn'?s(?: disease)?|"
    r"ulcerative colitis|endometriosis|\bpcos\b|fibromyalgia|rheumatoid|(?:osteo)?arthritis|osteoporosis|"
    r"schizophreni(?:a|c)|bipolar(?: disorder)?|clinical depression|major depression|postnatal depression|"
    r"postpartum depression|anxiety disorder|panic disorder|\bocd\b|\bptsd\b|anorexia|bulimia|an eating disorder|"
    r"sleep apn(?:o)?ea|glaucoma|cataracts?|macular degeneration|tinnitus|hypothyroidism|hyperthyroidism|"
    r"thyroid (?:condition|disease|problems?|issues?)|graves'? disease|hashimoto'?s|long covid|tuberculosis|"
    r"meningitis|sepsis|appendicitis|gallstones|hernia|scoliosis|psoriasis|sickle cell|ha?emophilia|thalass(?:a)?emia|"
    r"an(?:a)?emia|chronic fatigue|\bme/cfs\b|migraines|concussion|"
    r"(?:a |his |her |their |my )?(?:rare |genetic |chronic |autoimmune |heart |lung |kidney |liver |mental |"
    r"neurological |degenerative )(?:disease|disorder|condition|illness)|terminal(?:ly)? ill(?:ness)?|chronically ill|"
    r"[a-z]+(?:'s)?\s+(?:disease|syndrome)"
)
_EN_MEDICINES = (
    r"antiretrovirals?|levothyroxine|thyroxine|metformin|insulin|methotrexate|tamoxifen|letrozole|herceptin|humira|adalimumab|"
    r"enbrel|donepezil|aricept|levodopa|carbidopa|sinemet|lithium(?!\s*(?:-?ion|batter|mine|mining|price|polymer|cell))|"
    r"sertraline|fluoxetine|citalopram|escitalopram|venlafaxine|mirtazapine|amitriptyline|bupropion|quetiapine|"
    r"olanzapine|risperidone|aripiprazole|clozapine|lamotrigine|levetiracetam|keppra|valproate|topiramate|"
    r"gabapentin|pregabalin|warfarin|apixaban|rivaroxaban|eliquis|xarelto|clopidogrel|heparin|prednisone|"
    r"prednisolone|hydroxychloroquine|methylphenidate|ritalin|concerta|adderall|vyvanse|atomoxetine|"
    r"semaglutide|ozempic|wegovy|mounjaro|tirzepatide|sildenafil|tadalafil|naltrexone|buprenorphine|methadone|"
    r"antidepressants?|antipsychotics?|anticonvulsants?|anticoagulants?|immunosuppressants?|blood thinners?|"
    r"chemo(?:therapy)?|radiotherapy|radiation (?:therapy|treatment)|immunotherapy|dialysis|"
    r"[a-z]{3,}(?:pril|olol|statin|sartan|prazole|oxetine|zepam|dipine|triptan|gliptin|gliflozin|glutide|"
    r"umab|ximab|zumab|tinib|conazole|cillin|mycin|cycline|floxacin|azepam|xaban)"
)
_EN_DEVICES = (
    r"pacemakers?|defibrillators?|insulin pumps?|(?:continuous )?glucose monitors?|\bcgm\b|stents?|"
    r"cochlear implants?|hearing aids?|(?:artificial|replacement|new|titanium|metal) (?:hip|knee|joint|heart valve)s?|"
    r"(?:hip|knee|joint|shoulder) replacements?|(?:heart|mechanical|artificial) valves?|colostomy(?: bag)?|"
    r"ileostomy|stoma(?: bag)?|catheters?|\bcpap(?: machine)?|oxygen (?:tank|concentrator)s?|feeding tubes?|"
    r"\bvp shunt|prosthetic (?:leg|arm|limb|foot|hand)s?|prosthes[ie]s|wheelchair(?: user)?|epipens?|"
    r"inhalers?|nebuli[sz]ers?|ventilators?|"
    # implants in a bone, ear tubes, a fused spine: "a titanium plate put in my ankle", "grommets put in"
    r"(?:titanium|metal|steel) (?:plates?|rods?|screws?|pins?|implants?)|grommets|ear tubes|(?:spinal|back|neck) fusion|"
    r"(?:thyroid|cholesterol|blood sugar|liver|kidney|prostate|heart|blood pressure) (?:levels?|function|tests?|panel|results?) "
    r"(?:were|was|are|is|came back) (?:off|high|low|abnormal|bad|elevated|raised)|"
    r"(?:getting|get|got|had|having)\s+(?:my|his|her|their)\s+(?:thyroid|heart|liver|kidneys?|prostate|blood pressure|cholesterol|"
    r"blood sugar|moles?|lump)\s+(?:checked|tested|scanned|looked at|monitored)|(?:iron|iv|b12|immunoglobulin|ivig|ketamine|biologic) (?:infusions?|drips?)|infusion therapy|glucose sensors?|dexcom|freestyle libre|(?:hip|spine|spinal|pelvic|pelvis|skull|femur|femoral|wrist|ankle|leg|arm|rib|"
    r"collarbone|vertebral|stress|compression) fractures?|fractured (?:hip|spine|skull|pelvis|femur|wrist|ankle|leg|arm|ribs?|collarbone)|"
    r"(?:plates?|rods?|screws?|pins?) (?:and (?:plates?|rods?|screws?|pins?) )?(?:put |fitted |inserted |placed )?in (?:my|his|her|their|our|the) "
    r"(?:ankle|leg|arm|wrist|hip|spine|back|knee|shoulder|neck|jaw|foot|hand|collarbone|femur|shin|elbow|pelvis)|shunts?|port-a-cath"
)
_EN_PROCEDURES = (
    r"[a-z]{3,}ectomy|tracheo(?:s)?tomy|colostomy|angioplasty|rhinoplasty|c-section|ca?esarean(?: section)?|"
    r"(?:kidney|liver|heart|lung|bone marrow|stem cell|organ|cornea|corneal) transplants?|"
    r"(?:heart|gastric|triple|quadruple|coronary) bypass|bypass surgery|"
    r"(?:knee|hip|back|spine|spinal|heart|brain|eye|cataract|laser eye|lasik|shoulder|bariatric|weight[- ]loss|"
    r"open[- ]heart|cancer|dental|jaw|foot|hand|wrist|ankle|cosmetic|plastic|reconstructive|emergency|major) surgery|"
    r"biops(?:y|ies)|mastectomy|lumpectomy"
)
# Words that are medical only in a frame: "had a stroke", "had an operation", "surgery" after a verb of undergoing.
_EN_FRAMED = (
    r"\b(?:had|has|have|having|suffered|survived|recovering from|recovered from|after)\s+(?:a\s+|her\s+|his\s+|their\s+|my\s+)?"
    r"(?:(?:two|three|several|multiple|a few|a couple of|\d+)\s+)?"
    r"(?:mild\s+|minor\s+|major\s+|small\s+|massive\s+|second\s+)?(?:stroke|heart attack|seizure|nervous breakdown|"
    r"operation|surgery|transplant|procedure on|miscarriage)s?\b|"
    r"\b(?:had|has|have|having|got|getting|needs?|needed)\s+(?:(?:his|her|their|my|a|an|the)\s+)?(?:\w+\s+)?"
    r"(?:appendix|gallbladder|tonsils|adenoids|wisdom teeth|thyroid|uterus|womb|ovaries|ovary|spleen|kidney|prostate|breast|"
    r"lump|tumou?r|polyps?|cyst)\s+(?:removed|taken out|out|cut out)\b|"
    r"\b(?:operated on|under the knife|in surgery|out of surgery|post-?op|pre-?op|(?:undergo|undergoing|underwent|"
    r"scheduled for|booked for|waiting for|recovering from)\s+(?:an?\s+|his\s+|her\s+|my\s+)?(?:\w+\s+)?(?:surgery|operation))\b|"
    r"\b(?:is|are|was|were|'s|am|'m|be|been|being|got|get|gets)\s+(?:very\s+|really\s+|seriously\s+|terminally\s+|chronically\s+|"
    r"critically\s+|gravely\s+)?(?:ill|unwell|sick(?!\s+(?:of|and tired|day|leave|note|pay|burn|beat|trick|joke))|hospitali[sz]ed|in (?:the )?hospital|in intensive care|in the icu|"
    r"on (?:a )?ventilator|on oxygen|on dialysis|on chemo|in remission|in hospice|in palliative care|in rehab|"
    r"on the (?:autism )?spectrum)\b|"
    r"\b(?:pills|meds|medications?|medicines?|tablets|injections|shots|prescriptions?)\s+for\s+(?:his|her|my|their|our)\s+"
    r"(?!(?:\w+\s+)?(?:dog|cat|pet|horse|plants?|garden|lawn)\b)\w+(?:\s+\w+)?|"
    r"\b(?:suffers|suffered|suffering|struggles|struggled|lives|living|diagnosed|battling|fighting|treated|being treated)\s+"
    r"(?:from|with|for)\s+(?:severe\s+|chronic\s+|clinical\s+|mild\s+)?(?:depression|anxiety|cancer|an illness|a disease|"
    r"addiction|alcoholism|insomnia)\b"
)

# --- Indonesian ------------------------------------------------------------------------------
_ID_TERMS = (
    r"parkinson|alzheimer|demensia|kanker(?:\s+\w+)?|leukemia|limfoma|tumor|kista|autis(?:me|tik)?|adhd|"
    r"hiv|odha|alat bantu (?:napas|nafas)|tabung oksigen|selang makan|(?:cek |kadar )?gula darah|hiv|odha|(?:pengidap|penderita)\s+(?:penyakit\s+)?\w+|kelainan jantung|jantung bawaan|jantung bocor|kelainan bawaan|"
    r"(?:pasang|dipasang)\s+(?:pen|platina)|pen (?:di )?(?:tulang|kaki|tangan|lutut|pinggul|lengan)|"
    r"diabetes|kencing manis|epilepsi|ayan|asma|hipertensi|darah tinggi|penyakit jantung|serangan jantung|"
    r"sakit (?:jantung|ginjal|gula|kanker|paru(?:-paru)?|liver|lever|stroke|kuning)|pengencer darah|"
    r"gagal jantung|jantung koroner|gagal ginjal|penyakit ginjal|batu ginjal|cuci darah|hemodialisis|"
    r"skizofrenia|gangguan bipolar|bipolar|depresi berat|gangguan kecemasan|lupus|hepatitis|tbc|tuberkulosis|"
    r"talasemia|thalasemia|hemofilia|sindrom down|down syndrome|lumpuh otak|cerebral palsy|lumpuh (?:total|separuh|sebagian|permanen)|katarak|"
    r"glaukoma|osteoporosis|rematik|asam urat|pengapuran|sirosis|penyakit kronis|"
    r"alat pacu jantung|pacu jantung|ring jantung|alat bantu dengar|kursi roda|implan koklea|"
    r"pompa insulin|insulin|kemoterapi|kemo|radioterapi|usus buntu|amandel|operasi caesar|operasi sesar|"
    r"(?:operasi|dioperasi|bedah)\s+(?:\w+\s+)?(?:usus|jantung|lutut|mata|katarak|ginjal|hernia|tumor|kanker|"
    r"tulang|otak|tulang belakang|caesar|sesar|amandel|kista|pinggul|payudara|rahim)|"
    r"transplantasi\s+\w+|cangkok\s+(?:ginjal|hati|jantung|sumsum)|"
    r"(?:kena|terkena|mengalami|menderita|pernah|habis|pasca|serangan)\s+stroke|stroke ringan|"
    r"(?:menjalani|jalani|habis|baru|pernah|akan|mau|sudah|udah|selesai|pasca|setelah)\s+(?:\w+\s+)?operasi|dioperasi|"
    r"(?:minum|konsumsi|mengonsumsi)\s+obat\s+(?:\w+\s+)?(?:untuk\s+|buat\s+)?\w+|obat\s+(?:diabetes|jantung|darah tinggi|"
    r"hipertensi|epilepsi|kanker|depresi|asma|kolesterol|tiroid|hiv|saraf|ginjal)|"
    r"(?:sakit|dirawat|diopname|masuk rumah sakit|opname)\s+(?:keras|parah|kritis|di icu|di rumah sakit)"
)

# --- Chinese ---------------------------------------------------------------------------------
_ZH_TERMS = (
    r"帕金森|阿尔茨海默|老年痴呆|痴呆症?|中风|脑梗(?:塞|死)?|脑溢血|脑出血|心梗|心肌梗[塞死]|心脏病|心衰|心力衰竭|冠心病|"
    r"心律不齐|房颤|(?:[乳肺肝胃肠鼻咽宫颈卵巢胰腺前列甲状皮肤血骨脑膀胱直结食道]{1,4})?癌(?:症)?|肿瘤|白血病|淋巴瘤|自闭症|孤独症|多动症|抑郁症|焦虑症|躁郁症|双相(?:情感)?障碍|精神分裂|"
    r"糖尿病|高血压|哮喘|癫痫|红斑狼疮|乙肝|丙肝|肝硬化|尿毒症|肾衰竭?|透析|甲亢|甲减|痛风|类风湿|关节炎|骨质疏松|"
    r"白内障|青光眼|唐氏综合[征症]|脑瘫|渐冻症|艾滋|地中海贫血|血友病|"
    r"心脏起搏器|起搏器|心脏支架|(?:放|装|安|植入)(?:了)?(?:个|一个|两个)?支架|胰岛素泵|胰岛素|助听器|人工耳蜗|轮椅|呼吸机|"
    r"假肢|人工(?:关节|髋关节|膝关节|心脏瓣膜)|"
    r"(?:做|动|接受|进行|安排|刚做完|做完)(?:了|过|完)?\S{0,8}?手术|开刀|\S{1,4}切除|剖腹产|剖宫产|"
    r"(?:肾|肝|心脏|骨髓|器官|眼角膜|肺)移植|(?:心脏)?搭桥(?:手术)?|阑尾炎?|胆囊|扁桃体|化疗|放疗|靶向药|"
    r"二甲双胍|降压药|降糖药|抗抑郁药|抗癫痫药|左甲状腺素|优甲乐|华法林|他汀|氯吡格雷|利他林|"
    r"胃镜|肠镜|息肉|结节|囊肿|(?:腿|骨头|骨|膝盖|膝|手臂|胳膊|脊椎|腰椎|颈椎|脚踝|手腕|肩膀|髋|下巴)\S{0,4}?(?:钢钉|钢板|钢针)|(?:钢钉|钢板|钢针)\S{0,3}?(?:固定|取出)|骨钉|内固定|人工晶体|舍曲林|氟西汀|帕罗西汀|艾司西酞普兰|西酞普兰|度洛西汀|文拉法辛|奥氮平|喹硫平|利培酮|"
    r"阿立哌唑|碳酸锂|丙戊酸|拉莫三嗪|左乙拉西坦|卡马西平|氯硝西泮|阿普唑仑|劳拉西泮|哌甲酯|专注达|托莫西汀|"
    r"(?:治|治疗|控制)(?:焦虑|抑郁|失眠|癫痫|高血压|糖尿病|哮喘|心脏病|多动症|偏头痛|痛风)|"
    r"(?:病危|病重|重病|住院|进了?icu|进了?重症监护)"
)

# --- Thai ------------------------------------------------------------------------------------
_TH_TERMS = (
    r"พาร์กินสัน|พาร์คินสัน|อัลไซเมอร์|สมองเสื่อม|หลอดเลือดสมอง|สโตรก|อัมพาต|อัมพฤกษ์|มะเร็ง\S{0,6}|เนื้องอก|"
    r"ลูคีเมีย|ออทิสติก|ออทิซึม|สมาธิสั้น|ซึมเศร้า|ไบโพลาร์|จิตเภท|เบาหวาน|ความดัน(?:โลหิต)?สูง|หอบหืด|ลมชัก|"
    r"โรคหัวใจ|หัวใจวาย|หัวใจล้มเหลว|กล้ามเนื้อหัวใจตาย|ไตวาย|โรคไต|ตับแข็ง|ตับอักเสบ|เอชไอวี|เอดส์|เก๊าต์|"
    r"ข้ออักเสบ|รูมาตอยด์|กระดูกพรุน|ต้อกระจก|ต้อหิน|ดาวน์ซินโดรม|ธาลัสซีเมีย|ไทรอยด์|"
    r"เครื่องกระตุ้นหัวใจ|เครื่องกระตุกหัวใจ|ใส่ขดลวด|ขดลวดค้ำยัน|ขดลวด(?:หัวใจ|หลอดเลือด)|บอลลูนหัวใจ|เครื่องช่วยฟัง|"
    r"ประสาทหูเทียม|นั่งรถเข็น|รถเข็นผู้ป่วย|วีลแชร์|เครื่องช่วยหายใจ|ขาเทียม|แขนเทียม|ข้อเข่าเทียม|ข้อสะโพกเทียม|"
    r"อินซูลิน|เมตฟอร์มิน|ลิเทียม|วาร์ฟาริน|(?:กิน|ทาน|ใช้|ฉีด)ยา\S{0,10}|ผ่าตัด\S{0,8}|ไส้ติ่ง|ถุงน้ำดี|ต่อมทอนซิล|ผ่าคลอด|ปลูกถ่าย(?:ไต|ตับ|ไขกระดูก|อวัยวะ|หัวใจ|ปอด)|"
    r"ฟอกไต|ล้างไต|เคมีบำบัด|ฉายแสง|ยา(?:ต้าน|รักษา|ลด)\S{0,12}|ป่วยหนัก|ป่วยเป็น\S{0,12}|นอนโรงพยาบาล|เข้าไอซียู|"
    r"บายพาส\S{0,8}|ทำบอลลูน\S{0,8}|รูรั่วที่หัวใจ|หัวใจรั่ว|ส่องกล้อง\S{0,8}|ติ่งเนื้อ|ก้อนเนื้อ|(?:เป็น|ป่วยเป็น|ป่วยด้วย)โรค(?!ขี้|เลื่อน|ติดมือถือ|ติดเกม|กลัว)\S{1,12}|เกาต์|ไอซียู|ป่วยติดเตียง|ติดเตียง|เหล็กดาม|ดามเหล็ก|เหล็กยึดกระดูก|สกรูยึดกระดูก|แผ่นเหล็กยึด|ใส่เหล็ก(?:ที่|ใน)?(?:ขา|แขน|เข่า|หลัง|กระดูก)"
)

# A condition by its capital letters after "has" ("my hubby has MS"), and a diagnosis dated ("diagnosed 2019").
_ACRONYM_RE = lazy_compile(
    r"\b(?:has|have|had|with|diagnosed with|got)\s+(?-i:MS|ALS|CF|IBS|COPD|PTSD|OCD|ADHD|ASD|CKD|CHF|AFib|T1D|T2D)\b"
    r"(?!\s+(?:Office|Word|Excel|Teams|Outlook|Access|Paint|SQL|Project|Edge|DOS|degree|in|from|at|on)\b)|"
    r"\bdiagnosed (?:in |back in |around )?(?:\d{4}|last (?:year|month|week|spring|summer|autumn|fall|winter)|"
    r"this (?:year|month|spring|summer|autumn|fall|winter)|as a (?:child|kid|teen|baby))\b",
    _I,
)
_ACRONYM_GATE = frozenset({"has", "have", "had", "with", "got", "diagnosed"})
# "my son has Tourette's", "she has Crohn's.": a name's condition, said with nothing after it.
_EPONYM_RE = lazy_compile(
    r"\b(?:has|have|had|with|diagnosed with)\s+(?!(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|"
    r"tomorrow|yesterday|january|february|march|april|may|june|july|august|september|october|november|december|"
    r"mcdonald|wendy|domino|trader joe|macy|lowe|kohl|dillard|sainsbury|tesco)(?:'s|’s))(?-i:[A-Z][a-z]{2,})(?:'s|’s)"
    r"(?=\s*(?:$|[.,;!?]|and\b|so\b|but\b|disease\b|"
    r"syndrome\b|palsy\b))",
    _I,
)

_TERMS_RE = lazy_compile(
    r"\b(?:" + _EN_CONDITIONS + "|" + _EN_MEDICINES + "|" + _EN_DEVICES + "|" + _EN_PROCEDURES + r")\b|"
    + _EN_FRAMED + r"|\b(?:" + _ID_TERMS + r")\b|" + _ZH_TERMS + "|" + _TH_TERMS,
    _I,
)
_EN_GATE = frozenset(
    "parkinson parkinsons alzheimer alzheimers dementia cancer leukemia leukaemia lymphoma melanoma sarcoma myeloma "
    "glioblastoma carcinoma metastasis metastases metastatic tumor tumour tumors tumours sclerosis motor als cerebral "
    "downs syndrome cystic muscular spina huntington huntingtons epilepsy epileptic autism autistic asperger "
    "aspergers adhd diabetes diabetic asthma asthmatic copd emphysema hypertension blood heart congestive angina "
    "arrhythmia atrial afib kidney renal liver cirrhosis hepatitis hiv lupus crohn crohns colitis endometriosis pcos "
    "fibromyalgia rheumatoid arthritis osteoarthritis osteoporosis schizophrenia schizophrenic bipolar clinical major "
    "postnatal postpartum anxiety panic ocd ptsd anorexia bulimia eating sleep glaucoma cataract cataracts macular "
    "tinnitus hypothyroidism hyperthyroidism thyroid graves hashimoto hashimotos tuberculosis meningitis sepsis "
    "appendicitis gallstones hernia scoliosis psoriasis sickle hemophilia haemophilia thalassemia thalassaemia anemia "
    "anaemia celiac coeliac chronic me migraines concussion rare genetic autoimmune lung mental neurological "
    "degenerative terminal terminally chronically disease levothyroxine thyroxine metformin insulin methotrexate "
    "tamoxifen letrozole herceptin humira adalimumab enbrel donepezil aricept levodopa carbidopa sinemet lithium "
    "sertraline fluoxetine citalopram escitalopram venlafaxine mirtazapine amitriptyline bupropion quetiapine olanzapine "
    "risperidone aripiprazole clozapine lamotrigine levetiracetam keppra valproate topiramate gabapentin pregabalin "
    "warfarin apixaban rivaroxaban eliquis xarelto clopidogrel heparin prednisone prednisolone hydroxychloroquine "
    "methylphenidate ritalin concerta adderall vyvanse atomoxetine semaglutide ozempic wegovy mounjaro tirzepatide "
    "sildenafil tadalafil naltrexone buprenorphine methadone antidepressant antidepressants antipsychotic antipsychotics "
    "anticonvulsant anticonvulsants anticoagulant anticoagulants immunosuppressant immunosuppressants thinner thinners "
    "chemo chemotherapy radiotherapy radiation immunotherapy dialysis pacemaker pacemakers defibrillator defibrillators "
    "pump pumps glucose cgm stent stents cochlear hearing artificial replacement titanium metal hip knee joint shoulder "
    "valve valves mechanical colostomy ileostomy stoma catheter catheters cpap oxygen feeding vp prosthetic prosthesis "
    "prostheses wheelchair epipen epipens inhaler inhalers nebulizer nebulizers nebuliser nebulisers ventilator "
    "ventilators tracheotomy tracheostomy angioplasty rhinoplasty section caesarean cesarean transplant transplants "
    "marrow stem organ cornea corneal bypass surgery biopsy biopsies mastectomy lumpectomy stroke attack seizure "
    "breakdown operation procedure miscarriage appendix gallbladder tonsils adenoids wisdom uterus womb ovaries ovary "
    "spleen prostate breast lump polyps polyp cyst operated knife postop preop ill unwell sick hospitalized "
    "hospitalised hospital intensive icu remission hospice palliative tourette tourettes "
    "strokes seizures "
    "diagnosed depression addiction alcoholism illness covid syndrome op rehab spectrum pills "
    "tablets injections shots prescription prescriptions medicine medicines meds having plate plates rod rods screws "
    "pins grommets tubes fusion shunt shunts port sensor sensors dexcom libre fracture fractures fractured "
    "antiretroviral antiretrovirals infusion infusions drip drips hiv aids odha napas nafas oksigen selang gula checked tested scanned monitored levels moles pengidap penderita kelainan bawaan pen platina "
    # Indonesian
    "pengencer sakit demensia kanker limfoma kista autis autisme autistik kencing epilepsi ayan asma hipertensi darah penyakit "
    "serangan gagal jantung koroner ginjal batu cuci hemodialisis skizofrenia gangguan depresi tbc tuberkulosis "
    "talasemia hemofilia sindrom lumpuh katarak glaukoma rematik asam pengapuran sirosis alat pacu ring pasang bantu "
    "kursi implan pompa kemoterapi kemo radioterapi usus amandel operasi dioperasi bedah transplantasi cangkok kena "
    "terkena mengalami menderita pernah habis pasca minum konsumsi mengonsumsi obat sakit dirawat diopname masuk opname".split()
)
_EN_SUFFIXES = ("pril", "olol", "statin", "sartan", "prazole", "oxetine", "zepam", "dipine", "triptan", "gliptin",
                "gliflozin", "glutide", "umab", "ximab", "zumab", "tinib", "conazole", "cillin", "mycin", "cycline",
                "floxacin", "azepam", "xaban", "ectomy")
_FOREIGN_GATE_RE = lazy_compile(
    r"帕金森|阿尔茨海默|痴呆|中风|脑梗|脑溢血|脑出血|心梗|心肌梗|心脏|心衰|心力衰竭|冠心病|心律|房颤|癌|肿瘤|白血病|淋巴瘤|自闭|孤独症|"
    r"多动症|抽动|抑郁|焦虑症|躁郁|双相|精神分裂|糖尿病|高血压|哮喘|癫痫|狼疮|乙肝|丙肝|肝硬化|尿毒症|肾衰|透析|甲亢|甲减|痛风|"
    r"风湿|关节|骨质疏松|白内障|青光眼|唐氏|脑瘫|渐冻|艾滋|贫血|血友病|起搏器|支架|胰岛素|助听器|耳蜗|轮椅|呼吸机|假肢|"
    r"人工|手术|开刀|切除|剖腹|剖宫|移植|阑尾|胆囊|扁桃体|化疗|放疗|靶向|二甲双胍|降压|降糖|抗抑郁|抗癫痫|甲状腺素|优甲乐|"
    r"华法林|他汀|氯吡格雷|利他林|病危|病重|重病|住院|icu|重症|搭桥|钢钉|钢板|钢针|骨钉|内固定|晶体|西汀|曲林|西泮|唑仑|"
    r"法辛|氮平|硫平|培酮|哌唑|碳酸锂|丙戊酸|三嗪|拉西坦|西平|哌甲酯|专注达|莫西汀|治焦虑|治抑郁|治失眠|治疗|控制|"
    r"พาร์|อัลไซเมอร์|สมองเสื่อม|หลอดเลือดสมอง|สโตรก|อัมพ|มะเร็ง|เนื้องอก|ลูคีเมีย|ออทิ|สมาธิสั้น|ซึมเศร้า|ไบโพลาร์|จิตเภท|"
    r"เบาหวาน|ความดัน|หอบหืด|ลมชัก|หัวใจ|ไต|ตับ|เอชไอวี|เอดส์|เก๊าต์|ข้อ|กระดูกพรุน|ต้อ|ดาวน์ซินโดรม|ธาลัสซีเมีย|ไทรอยด์|"
    r"ขดลวด|เครื่องช่วย|ประสาทหูเทียม|รถเข็น|วีลแชร์|เทียม|อินซูลิน|ผ่า|ไส้ติ่ง|ถุงน้ำดี|ทอนซิล|ปลูกถ่าย|เคมีบำบัด|"
    r"ฉายแสง|ยา|ป่วย|โรงพยาบาล|ไอซียู|ติดเตียง|เหล็ก|สกรู|โรค|เกาต์|ส่องกล้อง|ติ่งเนื้อ|ก้อนเนื้อ|บายพาส|บอลลูน|"
    r"胃镜|肠镜|息肉|结节|囊肿",
    _I,
)

# A medical word about a topic, not a body: a job, research, a place, a cause, a product.
_NOT_AFTER_RE = lazy_compile(
    r"\s*(?:'s\s+)?(?:research(?:ers?)?|awareness|charit(?:y|ies)|foundation|society|association|institute|ward|wards|unit|"
    r"clinic|department|nurses?|specialists?|doctors?|consultants?|educators?|researchers?|studies|study|trials?|"
    r"fundraiser|fun ?run|walk|marathon|patients|care (?:home|worker|assistant)|drugs? (?:company|development|discovery)|"
    r"prevention|screening|vaccine|app|apps|model|dataset|detection|classifier|centre|center|hospital|team|project|"
    r"manufacturer|company|startup|industry|market|sales|conference|journal|textbook|course|module|lecture|[- ]?accessible|access|ramps?|"
    r"cafeteria|canteen|car ?park|parking|gift shop|lobby|"
    r"peneliti(?:an)?|riset|yayasan|bangsal|klinik|perawat|pasien|dokter|spesialis|研究|医院|科室|病房|护士|医生|患者|病人|"
    r"协会|基金会|筛查|项目|医师|部|วิจัย|มูลนิธิ|โรงพยาบาล|พยาบาล|แพทย์|ผู้ป่วย|คลินิก|วอร์ด)(?![a-z])",
    _I,
)
_NOT_BEFORE_RE = lazy_compile(
    r"(?:\b(?:research(?:ing)?|study(?:ing)?|studies|about|into|detect(?:s|ing)?|screen(?:s|ing)? for|prevent(?:s|ing)?|"
    r"cure for|cures? for|awareness of|books? on|articles? on|documentary on|podcast on|paper on|lecture on|course on|"
    r"class on|talk on|specialis(?:e|es|ing) in|speciali[sz](?:e|es|ing) in|work(?:s|ing|ed)? (?:on|in)|"
    r"makes?|making|sells?|selling|builds?|building|designs?|designing|manufactur\w+|develop(?:s|ing)?|"
    r"treat(?:s|ing)? (?:patients|people|kids|children)(?: with| who have)?|nurse|doctor|for people with|"
    r"tentang|meneliti|riset|penelitian|关于|研究|ศึกษา|วิจัย|เกี่ยวกับ)\s*(?:(?:the|a|an|new|early|rare|some|on)\s+)?)$",
    _I,
)
# "X is a diabetes patient", "我弟弟是癫痫患者": the patient is the person named, not a topic.
_A_PATIENT_RE = lazy_compile(r"\s*(?:patient|患者|病人|ผู้ป่วย)$", _I)
_IS_A_RE = lazy_compile(r"(?:\b(?:is|am|'m|was|are|were)\s+an?\s*|是(?:个|一名|一位|一个)?|เป็น)$", _I)
# Figures of speech, and what design keeps writable as a diet (celiac disease: "so everything gluten-free").
_FIGURE_RE = lazy_compile(
    r"(?:celiac|coeliac) disease|"
    r"(?:nearly|almost|practically|about to|gonna|going to)\s+(?:had|have|give \w+|gave \w+)\s+a heart attack|"
    r"gave (?:me|us|him|her) a heart attack|heart attack (?:of a|inducing)|cancer (?:on|of) (?:the|our|this) (?:team|company|project)|"
    r"stroke of (?:luck|genius|midnight)|operation (?:of|on) (?:the|a|our) (?:business|team|server|system)|"
    r"(?:imposter|impostor|shiny object|tall poppy|middle child|only child|stockholm|peter pan|sophomore|second[- ]system) syndrome|"
    r"(?:i'?m|am|is|she's|he's|she is|he is) an? cancer\b|(?:sign|zodiac|horoscope)\W+(?:\w+\W+){0,3}cancer|"
    r"cancer (?:sign|season|zodiac|horoscope)|"
    r"(?:code|codebase|build|test|pipeline|server|app|function|module|repo|project|plan|budget|car|engine|laptop|"
    r"phone|computer|system|cat|dog|plant|plants|tree|garden|lawn|tomato(?:es)?) (?:\w+ )?(?:has|had|got|is|needs?) "
    r"(?:a |an )?(?:\w+ )?(?:cancer|surgery|operation|transplant|stroke|disease|virus|infection)",
    _I,
)


def medical_spans(text: str, words: set[str]) -> list[tuple[int, int]]:
    """(start, end) of each medical word in `text` that is about a body, not a topic."""
    dated = [m.span() for m in _ACRONYM_RE.finditer(text)] if words & _ACRONYM_GATE else []
    if not (words & _EN_GATE or any(w.endswith(_EN_SUFFIXES) for w in words if len(w) > 6)
            or (not text.isascii() and _FOREIGN_GATE_RE.search(text))):
        return dated
    figure = [m.span() for m in _FIGURE_RE.finditer(text)]
    spans: list[tuple[int, int]] = []
    found = list(_TERMS_RE.finditer(text))
    if "'s" in text or "’s" in text:
        found += _EPONYM_RE.finditer(text)
    spans += dated
    for m in found:
        start, end = m.span()
        if any(a <= start < b for a, b in figure):
            continue
        if not about_a_topic(text, start, end):
            spans.append((start, end))
    return spans


def about_a_topic(text: str, start: int, end: int) -> bool:
    """Whether the medical word at text[start:end] names a topic ("cancer research", "the dialysis centre", "癫痫医院",
    "studying diabetes") rather than a body; "我弟弟是癫痫患者" and "he is a diabetes patient" are a person."""
    after = _NOT_AFTER_RE.match(text, end)
    if after and not (_A_PATIENT_RE.match(after.group()) and _IS_A_RE.search(text[max(0, start - 12):start])):
        return True
    return _NOT_BEFORE_RE.search(text[max(0, start - 48):start]) is not None


# People the speaker talks about: a health detail in the same clause is theirs, not the speaker's.
_OTHER_PERSON_RE = lazy_compile(
    r"\b(?:mum|mom|mother|mama|dad|father|papa|parents?|wife|husband|partner|spouse|son|sons|daughters?|kids?|child|"
    r"children|baby|babies|brothers?|sisters?|siblings?|grand(?:ma|pa|mother|father|parents?|son|daughter|child(?:ren)?)|"
    r"aunt|uncle|cousin|niece|nephew|friends?|colleagues?|co-?workers?|boss|neighbou?rs?|room-?mates?|flat-?mates?|"
    r"girlfriend|boyfriend|fianc[eé]e?|in-laws?|step\w+|he|she|his|her|him|hers|they|them|their|"
    r"ibu|ibuku|ayah|ayahku|bapak|bapakku|istri|istriku|suami|suamiku|anak|anakku|kakak|adik|nenek|kakek|pacar|teman|"
    r"mertua|om|tante|sepupu|keponakan|dia|beliau|tetangga|rekan)\b|"
    r"妈|爸|母亲|父亲|老婆|妻子|太太|丈夫|老公|儿子|女儿|孩子|哥|姐|弟|妹|奶奶|爷爷|外婆|外公|姥姥|姥爷|朋友|同事|他|她|"
    r"岳父|岳母|婆婆|公公|舅|姨|叔|伯|邻居|"
    r"แม่|พ่อ|ภรรยา|เมีย|สามี|แฟน|ลูก|พี่|น้อง|ยาย|ย่า|ปู่|เพื่อน|เขา|เธอ|หลาน|ป้า|ลุง|น้า|อา",
    _I,
)
_CLAUSE_END_RE = lazy_compile(r"[.!?;。！？；\n]")


def about_others(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether one of the health `spans` of `text` sits in a clause that names someone else."""
    for start, end in spans:
        before = text[max(0, start - 60):start]
        cut = [m.end() for m in _CLAUSE_END_RE.finditer(before)]
        if cut:
            before = before[cut[-1]:]
        after = text[end:end + 30]
        stop = _CLAUSE_END_RE.search(after)
        if stop:
            after = after[:stop.start()]
        if _OTHER_PERSON_RE.search(before) or _OTHER_PERSON_RE.search(after):
            return True
    return False
