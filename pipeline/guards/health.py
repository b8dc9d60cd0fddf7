"""Health details in four languages: the spans guards treats as sensitive (kind HEALTH).

The line (docs/design.md: "exact health details nobody asked to keep" are sensitive):

- HEALTH, a skip unless the user asks in that turn to keep it: a diagnosis or condition ("I was
  diagnosed with asthma", "我有糖尿病"), a medication or treatment ("I'm on sertraline", "minum
  obat darah tinggi", "จิตแพทย์"), an allergy to a drug or medical material ("allergic to
  penicillin", "แพ้ยา"), a symptom ("my head hurts today", "sakit kepala", "头疼", "ปวดหัว").
- Not HEALTH, writable like any lasting constraint: diets, and allergies or intolerances to food
  or materials ("I'm vegetarian", "allergic to peanuts", "lactose intolerant", "celiac, so
  gluten-free", "allergic to latex"): they are what an assistant needs to suggest a recipe or a
  product, and are stated as constraints, not as a medical history.

Each pattern names a medical thing (a condition, a drug, a symptom), not a topic: "I read about
diabetes", "my doctor friend" and "a headache of a bug" stay ordinary. Gated by keywords so an
ordinary sentence costs one set intersection.
"""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.guards.medical import about_a_topic, medical_spans

_I = re.IGNORECASE

# --- English --------------------------------------------------------------------------------

_EN_CONDITIONS = (
    r"diabetes|asthma|cancer|leukemia|leukaemia|lymphoma|melanoma|hiv|aids|hepatitis(?: [abc])?|epilepsy|depression|"
    r"anxiety(?: disorder)?|panic disorder|bipolar(?: disorder)?|schizophrenia|ptsd|ocd|adhd|add|autism|dementia|"
    r"alzheimer'?s|parkinson'?s|multiple sclerosis|lupus|crohn'?s(?: disease)?|ulcerative colitis|colitis|ibs|"
    r"hypertension|high blood pressure|heart disease|a heart condition|arrhythmia|"
    r"kidney disease|copd|tuberculosis|an eating disorder|anorexia|bulimia|insomnia|migraines?|sleep apnea|"
    r"arthritis|fibromyalgia|endometriosis|pcos|hypothyroidism|hyperthyroidism|a thyroid condition|long covid|covid|"
    r"the flu|a fever|a headache|a migraine|a cold(?!\s+(?:brew|drink|shower|one|beer|coffee|water|plunge|call|case|start|war))|a sore throat|a stomach ?ache|a toothache|a backache|an std|herpes|"
    r"chlamydia|a tumou?r|a concussion|glaucoma|scoliosis|chronic pain|food poisoning|pneumonia|bronchitis|"
    r"diarrh?oea|diarrhea|nausea|a rash|shingles|chickenpox|measles|strep throat|an infection|a kidney stone"
)
_EN_DRUGS = (
    r"penicillin|amoxicillin|antibiotics?|sulfa(?: drugs)?|sulfonamides?|aspirin|ibuprofen|nsaids?|codeine|morphine|"
    r"opioids?|contrast dye|anesthesia|anaesthesia|cephalosporins?|erythromycin|tetracycline|"
    r"\w+(?:cillin|mycin|cycline|floxacin)"
)
_EN_MEDS = (
    r"metformin|insulin|lithium|sertraline|zoloft|prozac|fluoxetine|lexapro|escitalopram|citalopram|paroxetine|xanax|"
    r"alprazolam|valium|diazepam|adderall|ritalin|methylphenidate|vyvanse|levothyroxine|synthroid|warfarin|eliquis|"
    r"ozempic|semaglutide|wegovy|prednisone|gabapentin|lamotrigine|seroquel|quetiapine|abilify|wellbutrin|bupropion|"
    r"antidepressants?|anti-?depressants?|antipsychotics?|blood thinners|chemo(?:therapy)?|radiation therapy|dialysis|"
    r"hormone therapy|hrt|antiretrovirals?|statins?|beta[ -]blockers?|painkillers|pain killers|steroids|"
    r"sleeping pills|anxiety meds|medication|meds|\w{2,}(?:pril|olol|statin|sartan|prazole|xetine|zepam)"
)
_EN_BODY = r"head|stomach|tummy|back|lower back|chest|throat|tooth|teeth|ear|ears|knee|knees|neck|shoulder|joints|eyes?|body|belly|gut"
_EN_HEALTH_RE = lazy_compile(
    # a stored line ("Allergy: penicillin", "Medication: sertraline", "Diagnosis: asthma")
    r"\ballerg(?:y|ies|ic)\s*(?:to\s*)?[:：=-]\s*(?:" + _EN_DRUGS + r")\b|"
    r"\b(?:medications?|meds|prescriptions?|diagnos(?:is|es)|medical conditions?|health conditions?|chronic conditions?|"
    r"illness(?:es)?|diseases?|symptoms?|medical history|health issues?)\s*[:：=]\s*\S|"
    r"\ballergic to (?:(?:the |all |most )?[\w-]+ ){0,2}?(?:" + _EN_DRUGS + r")\b|\b(?:" + _EN_DRUGS + r") allerg(?:y|ies)\b|"
    r"\b(?:drug|medication|medicine) allerg(?:y|ies)\b|"
    r"\b(?:I(?:'m| am| was| have been|'ve been| got| just got)?|just|recently|been|got)\s+(?:just\s+|recently\s+|finally\s+)?"
    r"diagnosed (?:with|as)\b[^.!?\n]{0,40}|"
    r"\bI(?:'ve| have)?\s+(?:have|got|'ve got|suffer from|live with|am living with|'m living with|struggle with|"
    r"was treated for|am being treated for|'m being treated for|am recovering from|'m recovering from|caught|came down with)\s+"
    r"(?:(?:mild|severe|chronic|bad|terrible|awful|type [12]|stage \w+|clinical|early|late|acute|a bad|a terrible|a mild)\s+){0,3}"
    r"(?:" + _EN_CONDITIONS + r")\b|"
    r"\bI(?:'m| am)\s+(?:a\s+)?(?:(?:type [12]|pre-?)\s*)?(?:diabetic|asthmatic|epileptic|anemic|anaemic|hiv[ -]positive|bipolar|immunocompromised|"
    r"on the autism spectrum|in remission|in chemo|in rehab|in therapy|in (?:the )?hospital)\b|"
    r"\bI(?:'m| am)?\s+(?:on|taking|take|started taking|was prescribed|got prescribed|have been prescribed|"
    r"'ve been prescribed|need to take|have to take|stopped taking)\s+(?:\d+\s*mg\s+(?:of\s+)?)?(?:my\s+)?(?:" + _EN_MEDS + r")\b|"
    r"\b\d+\s*mg\s+(?:of\s+)?(?:" + _EN_MEDS + r")\b|"
    r"\bmy (?:" + _EN_BODY + r")\s+(?:really\s+|still\s+|kind of\s+)?(?:hurts?|aches?|is killing me|is sore|are sore|is bleeding|is throbbing|"
    r"is swollen|are swollen|has been hurting|have been hurting)\b|"
    r"\bI(?:'ve| have)?\s+(?:have|got|'ve got)\s+(?:a\s+|an\s+)?(?:bad\s+|terrible\s+|splitting\s+|mild\s+)?"
    r"(?:headache|migraine|fever|sore throat|stomach ?ache|toothache|backache|earache|the flu|flu|cough|rash|nausea|"
    r"diarrh?o?ea|food poisoning|covid|a cold(?!\s+(?:brew|drink|shower|one|beer|coffee|water|plunge|call|case|start|war))|cold sores?|hives)\b|"
    r"\bI(?:'m| am|'ve been| have been)?\s+(?:feel(?:ing)?\s+|been\s+)?(?:so\s+|really\s+|very\s+|pretty\s+|kind of\s+)?"
    r"(?:sick|nauseous|feverish|dizzy|ill)\b(?!-|\s+(?:of|and tired|at ease)\b)|"
    # a lab result: the measure named with its value ("my a1c was 7.2", "cholesterol is 240", "BP 150/90")
    r"\b(?:hba1c|a1c|blood sugar|blood glucose|glucose|cholesterol|ldl|hdl|triglycerides|blood pressure|bp|psa|tsh|"
    r"viral load|cd4(?: count)?|ferritin|creatinine|egfr|inr)\b(?:\s+(?:level|levels|reading|result|count))?"
    r"(?:\s+(?:was|is|were|are|came back|came back at|at|of|around|about|reads?))*\s*[:=]?\s*\d+(?:[.,/]\d+)?|"
    r"\bmy (?:therapist|psychiatrist|psychologist|oncologist|cardiologist|endocrinologist|neurologist)\b|"
    r"\bI (?:see|saw|am seeing|'m seeing|started seeing) (?:a |my )?(?:therapist|psychiatrist|psychologist|counsel?lor)\b|"
    r"\bI (?:had|have|'m having|am having|need|just had)\s+(?:a\s+|an\s+|my\s+)?(?:surgery|an operation|operation|chemo|"
    r"a transplant|a miscarriage|an abortion|a biopsy|a colonoscopy|a root canal|an mri|a ct scan)\b",
    _I,
)
_EN_GATE = frozenset(
    "allergic allergy allergies diagnosed diabetes asthma cancer leukemia leukaemia lymphoma melanoma hiv aids hepatitis "
    "epilepsy depression anxiety panic bipolar schizophrenia ptsd ocd adhd add autism dementia alzheimer alzheimers "
    "parkinson parkinsons sclerosis lupus crohn crohns colitis ibs celiac coeliac hypertension blood heart arrhythmia "
    "kidney copd tuberculosis eating anorexia bulimia insomnia migraine migraines apnea arthritis fibromyalgia "
    "endometriosis pcos hypothyroidism hyperthyroidism thyroid covid flu fever headache cold sore stomachache stomach "
    "toothache backache earache std herpes chlamydia tumor tumour concussion glaucoma scoliosis pain poisoning "
    "pneumonia bronchitis diarrhea diarrhoea nausea rash shingles chickenpox measles strep infection stone diabetic "
    "asthmatic epileptic anemic anaemic positive immunocompromised spectrum remission chemo rehab therapy hospital "
    "mg medication meds metformin insulin lithium sertraline zoloft prozac fluoxetine lexapro escitalopram citalopram "
    "paroxetine xanax alprazolam valium diazepam adderall ritalin methylphenidate vyvanse levothyroxine synthroid "
    "warfarin eliquis ozempic semaglutide wegovy prednisone gabapentin lamotrigine seroquel quetiapine abilify "
    "wellbutrin bupropion antidepressant antidepressants antipsychotic antipsychotics thinners chemotherapy radiation "
    "dialysis hormone hrt prep antiretroviral antiretrovirals statin statins beta blockers painkillers painkiller "
    "killers steroids sleeping pills hurts hurt aches ache sore bleeding throbbing swollen hurting sick nauseous "
    "feverish dizzy ill therapist psychiatrist psychologist oncologist cardiologist endocrinologist neurologist "
    "counselor counsellor surgery operation transplant miscarriage abortion biopsy colonoscopy canal mri ct cough "
    "hives drug medicine penicillin amoxicillin antibiotic antibiotics sulfa aspirin ibuprofen codeine morphine "
    "opioids latex iodine contrast anesthesia anaesthesia medical prescription prescriptions diagnosis diagnoses "
    "medications illness illnesses diseases disease symptom symptoms issues hba1c a1c sugar glucose cholesterol ldl hdl "
    "triglycerides pressure bp psa tsh viral load cd4 ferritin creatinine egfr inr".split()
)
_EN_SUFFIXES = ("cillin", "mycin", "cycline", "floxacin", "pril", "olol", "statin", "sartan", "prazole", "xetine", "zepam")

# --- Indonesian -----------------------------------------------------------------------------

_ID_CONDITIONS = (
    r"diabetes|kencing manis|asma|kanker|leukemia|hiv|aids|hepatitis|epilepsi|ayan|depresi|gangguan kecemasan|kecemasan|"
    r"anxiety|bipolar|skizofrenia|ptsd|ocd|adhd|autisme|demensia|alzheimer|parkinson|lupus|hipertensi|darah tinggi|"
    r"penyakit jantung|sakit jantung|gagal ginjal|penyakit ginjal|tbc|tuberkulosis|maag|gerd|migrain|vertigo|asam urat|"
    r"kolesterol tinggi|stroke|tifus|tipes|demam berdarah|dbd|covid|flu|demam|radang tenggorokan|diare|tumor|"
    r"insomnia|tiroid|anemia|infeksi"
)
_ID_HEALTH_RE = lazy_compile(
    r"\b(?:alergi obat|riwayat penyakit|penyakit|diagnosis|obat(?:-obatan)?|obat rutin|gejala)\s*[:=]\s*\S|"
    r"\balergi(?: terhadap| sama| dengan)? (?:obat|penisilin|penicillin|amoksisilin|antibiotik|aspirin|ibuprofen|"
    r"parasetamol|sulfa|bius|anestesi)\w*|"
    r"\bdidiagnosis(?:a)?\b[^.!?\n]{0,40}|"
    r"\b(?:saya|aku|gue|gw|sy)\s+(?:sudah\s+|udah\s+|lagi\s+|sedang\s+|baru\s+)?(?:punya|mengidap|menderita|kena|terkena|"
    r"sakit|divonis|positif|ada riwayat)\s+(?:penyakit\s+)?(?:" + _ID_CONDITIONS + r")\b|"
    r"\b(?:saya|aku|gue|gw)\s+(?:lagi\s+|sedang\s+|rutin\s+|harus\s+|masih\s+)?(?:minum|konsumsi|mengonsumsi|pakai|suntik)\s+"
    r"(?:obat\b|insulin|antidepresan|antibiotik|metformin|obat darah tinggi|obat jantung|obat tidur|kemoterapi)|"
    r"\b(?:sakit|pusing|nyeri)\s+(?:kepala|perut|gigi|punggung|dada|tenggorokan)\b|"
    r"\b(?:kepala|perut|gigi|punggung|dada|tenggorokan)\s+(?:saya|aku|gue|gw|ku)?\s*(?:lagi\s+|masih\s+)?(?:sakit|pusing|nyeri|"
    r"mules)\b|"
    r"\b(?:saya|aku|gue|gw)\s+(?:lagi\s+|sedang\s+|masih\s+|juga\s+)?(?:sakit|demam|pusing|mual|meriang|masuk angin|flu|"
    r"batuk|pilek|diare)\b(?!\s+hati)|"
    r"\b(?:terapis|psikiater|psikolog)\s+(?:saya|aku|gue|ku)\b|\b(?:dirawat di rumah sakit|opname|rawat inap|"
    r"(?:saya|aku|gue)\s+(?:baru\s+|habis\s+|akan\s+)?(?:operasi|dioperasi|kemoterapi|cuci darah))\b",
    _I,
)
_ID_GATE = frozenset(
    "alergi obat diagnosis gejala punya penyakit kepala perut gigi punggung dada tenggorokan didiagnosis didiagnosa mengidap menderita kena terkena sakit divonis positif riwayat minum konsumsi "
    "mengonsumsi pakai suntik pusing nyeri demam mual meriang masuk flu batuk pilek diare terapis psikiater psikolog "
    "dirawat opname rawat operasi dioperasi kemoterapi cuci".split()
)

# --- Chinese --------------------------------------------------------------------------------

_ZH_HEALTH_RE = lazy_compile(
    r"(?:药物过敏|过敏药物|病史|诊断|用药|疾病|病情|症状)\s*[:：]\s*\S|"
    r"对(?:青霉素|盘尼西林|阿莫西林|抗生素|阿司匹林|布洛芬|磺胺|头孢\S{0,3}|麻药|麻醉药|药物|某些药|\S{0,4}霉素)过敏|"
    r"(?:青霉素|阿莫西林|抗生素|阿司匹林|布洛芬|磺胺|头孢|药物)过敏|"
    r"(?:有|患有|得了|患了|确诊(?:了|为|出)?|被诊断(?:出|为)?(?:有|患有)?|查出(?:了)?)(?:轻度|重度|慢性|早期|晚期|二型|一型|2型|1型)?"
    r"(?:糖尿病|哮喘|癌症|\S{1,3}癌|白血病|淋巴瘤|艾滋病|HIV|乙肝|肝炎|癫痫|抑郁症|焦虑症|双相情感障碍|躁郁症|精神分裂症|"
    r"创伤后应激障碍|强迫症|多动症|自闭症|老年痴呆|阿尔茨海默|帕金森|高血压|心脏病|肾病|肺结核|结核病|偏头痛|失眠症|关节炎|"
    r"甲状腺\S{0,3}|新冠|流感|红斑狼疮|胃病|肿瘤)|"
    r"(?:在|正在|每天|一直|长期)?(?:吃|服用|打)(?:着)?(?:抗抑郁药|二甲双胍|降压药|安眠药|避孕药|抗生素|激素|胰岛素|精神科的药|"
    r"处方药)|吃药|服药|"
    r"(?:头|肚子|胃|牙|喉咙|嗓子|背|腰|胸口|膝盖|关节)(?:好|很|有点|非常|特别)?(?:疼|痛)|"
    r"头晕|发烧|发高烧|咳嗽|拉肚子|生病了|我病了|感冒了|"
    r"(?:看|去看)(?:了)?(?:心理医生|精神科)|心理医生|心理咨询师|做了手术|做手术|住院(?!医|部)|化疗|透析",
)
_ZH_GATE = (
    "过敏", "病史", "诊断", "用药", "疾病", "病情", "症状", "有", "患", "得了", "确诊", "诊断", "查出", "吃", "服", "打", "疼", "痛", "头晕", "发烧", "咳嗽", "拉肚子",
    "病", "感冒", "心理", "精神科", "手术", "住院", "化疗", "透析",
)

# --- Thai -----------------------------------------------------------------------------------

_TH_HEALTH_RE = lazy_compile(
    r"(?:โรคประจำตัว|ยาที่ใช้|ยาประจำตัว|การวินิจฉัย|ประวัติการรักษา|อาการ)\s*[:：]\s*\S|"
    r"แพ้(?:ยา\S{0,12}|เพนิซิลลิน|เพนนิซิลลิน|ยาปฏิชีวนะ|แอสไพริน|ไอบูโพรเฟน|ซัลฟา|อะม็อกซี\S{0,8})|"
    r"(?:เป็น|ป่วยเป็น|ป่วยด้วย|วินิจฉัยว่าเป็น|ตรวจพบ|มี)(?:โรค)?(?:เบาหวาน|หอบหืด|มะเร็ง\S{0,6}|เอชไอวี|เอดส์|ตับอักเสบ|"
    r"ลมชัก|ซึมเศร้า|โรควิตกกังวล|ไบโพลาร์|จิตเภท|สมาธิสั้น|ออทิสติก|ความดันสูง|ความดันโลหิตสูง|โรคหัวใจ|โรคไต|วัณโรค|"
    r"ไมเกรน|ไทรอยด์|โควิด|ไข้หวัด|หวัด|ไข้)|"
    r"(?:กินยา|ทานยา|ฉีดอินซูลิน|ยาต้านซึมเศร้า|ยาคุม|ยานอนหลับ|ยาความดัน)|"
    r"ปวด(?:หัว|ท้อง|ฟัน|หลัง|เอว|ข้อ|เข่า)|เจ็บ(?:คอ|หน้าอก)|ไม่สบาย(?!ใจ)|ท้องเสีย|คลื่นไส้|เวียนหัว|"
    r"จิตแพทย์|นักบำบัด|เคมีบำบัด|ผ่าตัด|นอนโรงพยาบาล|แอดมิทโรงพยาบาล|ฟอกไต",
)
_TH_GATE = (
    "แพ้", "โรคประจำตัว", "วินิจฉัย", "ประวัติการรักษา", "อาการ", "เป็น", "ป่วย", "วินิจฉัย", "ตรวจพบ", "มีโรค", "กินยา", "ทานยา", "ยา", "ปวด", "เจ็บ", "ไม่สบาย", "ท้องเสีย",
    "คลื่นไส้", "เวียนหัว", "จิตแพทย์", "บำบัด", "ผ่าตัด", "โรงพยาบาล", "ฟอกไต",
)
# --- health by what it is: pregnancy, HIV status, treatments, symptoms, health labels -----------
#
# These name a medical state, a treatment or a symptom wherever the sentence puts it ("my chemo
# plan starts Monday", "chest pains since the weekend", "we're expecting our first in May"), so
# they count when the sentence is about a person: the speaker, their family, or "we".

_PERSON_RE = lazy_compile(
    r"\b(?:i|i'm|im|i've|i'd|i'll|my|me|mine|we|we're|we've|our|us|mom|mum|dad|mother|father|wife|husband|partner|"
    r"girlfriend|boyfriend|son|daughter|sister|brother|grandma|grandpa|grandmother|grandfather|aunt|uncle|cousin|"
    r"baby|kid|kids|child|she|he|she's|he's|her|his|saya|aku|gue|gw|sy|kami|kita|istri|istriku|suami|suamiku|ibu|ibuku|"
    r"ayah|ayahku|bapak|anak|anakku|kakak|adik|pacar|nenek|kakek|mama|papa)\b|"
    r"我|我们|老婆|妻子|太太|丈夫|老公|妈|爸|母亲|父亲|女儿|儿子|姐|妹|哥|弟|奶奶|爷爷|外婆|外公|女朋友|男朋友|孩子|"
    r"ฉัน|ผม|ดิฉัน|หนู|เรา|ภรรยา|เมีย|สามี|แฟน|แม่|พ่อ|ลูก|พี่|น้อง|ยาย|ตา|ย่า|ปู่",
    _I,
)
_STATE_RE = lazy_compile(
    # pregnancy and fertility
    r"\btrimester\b|\b(?:pre|ante|post)natal\b|\bivf\b|"
    r"\bfertility (?:treatment|clinic|issues?)\b|\b(?:weeks?|months?) along\b|\bexpecting (?:a baby|twins|our (?:first|second|third|baby)|"
    r"a (?:boy|girl)|my first|(?:her|our|my) (?:first|second|third) (?:child|baby))\b|\bbaby is due\b|\bdue date\b|"
    r"\bkandungan\b|\bmengandung\s+(?:anak|bayi|\d)|\bprogram hamil\b|\bpromil\b|\bbayi tabung\b|\bhpl\b|"
    r"产检|预产期|试管婴儿|ฝากครรภ์|กำหนดคลอด|ทำเด็กหลอดแก้ว|"
    # HIV status, sexual health
    r"\bhiv\b[\s-]*(?:\+|status|positive|negative|pos\b|neg\b|test(?:ed)?|results?|infection|infected|diagnosis|meds|medication|"
    r"viral load|undetectable)|\b(?:positive|negative|tested|infected) (?:for |with )?hiv\b|\bliving with hiv\b|\bhiv\+|"
    r"\bprep\b(?=[^.!?\n]{0,30}\b(?:hiv|pill|daily|prescription|clinic)\b)|\bstds?\b|\bstis?\b|\bherpes\b|"
    r"\bsyphilis\b|\bgonorrh?oea\b|\bchlamydia\b|\bodha\b|\bstatus hiv\b|\bhiv (?:positif|negatif)\b|"
    r"\b(?:positif|negatif|terinfeksi|kena) hiv\b|HIV(?:阳性|阴性|感染|检测)|艾滋(?:病)?(?:病毒)?(?:阳性|感染|患者)|"
    r"感染(?:了)?(?:HIV|艾滋)|梅毒|淋病|性病|ติดเชื้อ\s*(?:HIV|เอชไอวี)|(?:HIV|เอชไอวี)\s*(?:บวก|ลบ)|ผลเลือด(?:เป็น)?บวก|"
    r"ผู้ติดเชื้อ|ซิฟิลิส|หนองใน|"
    # treatments
    r"\bchemo(?:therapy)?\b|\bradiotherapy\b|\bradiation (?:therapy|treatment|sessions?)\b|\bimmunotherapy\b|\bdialysis\b|"
    r"\btransfusions?\b|\bmastectomy\b|\bbiopsy\b|\b(?:physio|occupational|cognitive behavio(?:u)?ral|behavio(?:u)?ral) therapy\b|"
    r"\bantidepressants?\b|\binsulin\b|\bkemo(?:terapi)?\b|\bradioterapi\b|\bcuci darah\b|\bhemodialisis\b|"
    r"化疗|放疗|透析|靶向药|免疫治疗|活检|เคมีบำบัด|คีโม|ฉายแสง|ฉายรังสี|ฟอกไต|ล้างไต|"
    # being diagnosed, anyone
    r"\b(?:was|were|been|got|is|being|get) diagnosed\b|\bdidiagnosis\w*|被诊断|确诊|ได้รับการวินิจฉัย|หมอวินิจฉัย",
    _I,
)
# Pregnancy and symptoms need no person named: "pregnant again", "chest pains since Saturday".
_STRONG_STATE_RE = lazy_compile(
    r"\bpregnan(?:t|cy|cies)\b|\bmorning sickness\b|\bmiscarr(?:y|ied|iage)\b|\bhamil\b|\bkehamilan\b|\bkeguguran\b|"
    r"怀孕|怀上了|有喜了|孕期|孕妇|孕\d+周|孕[早中晚]期|身孕|流产|害喜|孕吐|"
    r"ตั้งครรภ์|ตั้งท้อง|ท้องได้|ท้อง\s*\d+\s*(?:เดือน|สัปดาห์|วีค)|อายุครรภ์|แพ้ท้อง|แท้ง|"
    r"\bchest (?:pains?|tightness|pressure)\b|\btight(?:ness)? (?:in )?(?:my |the )?chest\b|\bshort(?:ness)? of breath\b|"
    r"\bpalpitations?\b|\bheart (?:racing|flutters?)\b|\bblood in (?:my |the )?(?:stool|urine|pee|poop)\b|\blumps? in (?:my|her|his)\b|"
    r"\bnumbness\b|\bseizures?\b|\bfainted\b|\bfainting\b|\bblackouts?\b|\bpanic attacks?\b|\bsuicidal\b|\bself[- ]harm\b|"
    r"\b(?:lower back|joint|knee|stomach|pelvic|abdominal|nerve) pains?\b|"
    r"\bnyeri dada\b|\bdada (?:sesak|nyeri|sakit)\b|\bsesak napas\b|\bsesak nafas\b|\bjantung berdebar\b|\bkejang\b|\bpingsan\b|"
    r"胸痛|胸口疼|胸口痛|胸闷|心悸|心慌|气短|呼吸困难|便血|晕倒|昏倒|抽搐|惊恐发作|"
    r"เจ็บหน้าอก|แน่นหน้าอก|ใจสั่น|หายใจไม่อิ่ม|หายใจลำบาก|เป็นลม",
    _I,
)
# A stored line whose label names a health matter ("HIV status: positive", "Pregnancy: 12 weeks").
_HEALTH_LABEL_RE = lazy_compile(
    r"(?:^|(?<=[\n,;(]))\s*(?:[-*+]\s+)?(?:[^\n:：=]{0,24}?\b)?(?:hiv|aids|pregnan\w*|diagnos\w*|medical|medications?|"
    r"prescriptions?|treatments?|therap(?:y|ies)|chemo\w*|symptoms?|illness(?:es)?|diseases?|disorders?|conditions?|"
    r"mental health|blood type|disabilit(?:y|ies)|std|sti|hamil|kehamilan|penyakit|diagnosis|obat|kondisi|"
    r"health(?!\s*(?:goals?|insurance|plan|app|tracker|club|food|coach|kick|check-?up))|kesehatan|riwayat medis|"
    r"健康(?!目标|保险|码)|健康状况|สุขภาพ(?!ดี)|"
    r"怀孕|孕期|病情|病史|诊断|疾病|用药|艾滋|ตั้งครรภ์|โรค|ยา|อาการ|เอชไอวี)\b[^\n:：=]{0,20}[:：=]\s*\S[^\n]*",
    _I,
)
_STATE_GATE = frozenset(
    "pregnant pregnancy pregnancies trimester morning prenatal antenatal postnatal ivf fertility along expecting baby "
    "due miscarry miscarried miscarriage hamil kehamilan kandungan mengandung program promil bayi keguguran hpl mual hiv "
    "aids prep std stds sti stis herpes syphilis gonorrhea gonorrhoea chlamydia odha chemo chemotherapy radiotherapy "
    "radiation immunotherapy dialysis transfusion transfusions mastectomy biopsy physio occupational cognitive "
    "behavioral behavioural rehab rehabilitation antidepressant antidepressants insulin kemo kemoterapi radioterapi "
    "cuci hemodialisis status positif negatif terinfeksi kena chest tight tightness short shortness palpitation palpitations heart blood lump lumps numbness "
    "seizure seizures fainted fainting blackout blackouts panic suicidal self back joint knee stomach pelvic abdominal "
    "nerve neck shoulder migraine migraines nyeri dada sesak jantung kejang pingsan was were been got is being get "
    "didiagnosis".split()
)
_STATE_FOREIGN = ("怀", "孕", "有喜", "产检", "试管", "流产", "害喜", "艾滋", "HIV", "梅毒", "淋病", "性病", "化疗", "放疗",
                  "透析", "靶向", "免疫治疗", "活检", "胸", "心悸", "心慌", "气短", "呼吸困难", "便血", "晕倒", "昏倒", "抽搐",
                  "惊恐", "诊断", "确诊", "ติดเชื้อ", "ผลเลือด", "ตั้งครรภ์", "ท้อง", "ครรภ์", "คลอด", "แท้ง", "หลอดแก้ว", "เอชไอวี", "เอดส์",
                  "ซิฟิลิส", "หนองใน", "เคมี", "คีโม", "ฉาย", "ไต", "หน้าอก", "ใจสั่น", "หายใจ", "เป็นลม", "ชัก", "วินิจฉัย")
_HEALTH_LABEL_HINTS = ("health", "kesehatan", "medis", "健康", "สุขภาพ", "hiv", "aids", "pregnan", "diagnos", "medic", "prescri", "treatment", "therap", "chemo", "symptom",
                       "illness", "disease", "disorder", "condition", "mental", "blood type", "disabilit", "std", "sti",
                       "hamil", "penyakit", "obat", "kondisi", "怀孕", "孕期", "病", "诊断", "用药", "艾滋", "ตั้งครรภ์",
                       "โรค", "ยา", "อาการ", "เอชไอวี")
_STATE_NOT_RE = lazy_compile(
    # a figure of speech, not a body: "pregnant pause", "due date for the report", "back pain of a bug"
    r"pregnant (?:pause|silence)|due date (?:for|of|on) (?:the|a|this|our|my) (?:report|project|invoice|bill|assignment|"
    r"essay|sprint|release|paper|task|ticket|payment|rent)|(?:is|was|being|get|got) diagnosed as (?:a|the) (?:bug|issue|"
    r"problem|race condition|memory leak|regression)|\bis diagnosed by the (?:linter|compiler)",
    _I,
)


def _state_spans(text: str, words: set[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    if words & _STATE_GATE or (not text.isascii() and any(g in text for g in _STATE_FOREIGN)):
        if not _STATE_NOT_RE.search(text):
            spans += [m.span() for m in _STRONG_STATE_RE.finditer(text)]
            if _PERSON_RE.search(text):
                spans += [m.span() for m in _STATE_RE.finditer(text) if not about_a_topic(text, *m.span())]
    if (":" in text or "：" in text or "=" in text) and any(h in text.lower() for h in _HEALTH_LABEL_HINTS):
        spans += [m.span() for m in _HEALTH_LABEL_RE.finditer(text)]
    return spans


_WORD_RE = lazy_compile(r"[a-z0-9]+")
_CJK_RE = lazy_compile("[\u4e00-\u9fff]")
_THAI_RE = lazy_compile("[\u0e00-\u0e7f]")


def health_spans(text: str, words: set[str] | None = None) -> list[tuple[int, int]]:
    """(start, end) of each health detail in `text` (any of the four languages). `words`: the
    lowercased ASCII words of `text` when the caller has them already."""
    spans: list[tuple[int, int]] = []
    if words is None:
        words = set(_WORD_RE.findall(text.lower()))
    if words & _EN_GATE or any(w.endswith(_EN_SUFFIXES) for w in words if len(w) > 6):
        spans += [m.span() for m in _EN_HEALTH_RE.finditer(text)]
    if words & _ID_GATE:
        spans += [m.span() for m in _ID_HEALTH_RE.finditer(text)]
    spans += _state_spans(text, words)
    spans += medical_spans(text, words)
    if not text.isascii():
        if _CJK_RE.search(text) and any(g in text for g in _ZH_GATE):
            spans += [m.span() for m in _ZH_HEALTH_RE.finditer(text)]
        if _THAI_RE.search(text) and any(g in text for g in _TH_GATE):
            spans += [m.span() for m in _TH_HEALTH_RE.finditer(text)]
    return spans
