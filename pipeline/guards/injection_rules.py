"""The injection, structure, role, exfiltration, persistence and privilege rules, in four
languages. Order matters: a text is reported under the first rule it breaks."""

from __future__ import annotations

# (rule, gate, pattern). A rule's regex runs only when one of its gate strings occurs in the
# lowercased text (None: only when the text has non-printable characters), so an ordinary
# sentence costs a few substring tests instead of a long alternation.
RULES: list[tuple[str, tuple[str, ...] | None, str]] = [
    ("invisible:bidi", None, r"[\u202a-\u202e\u2066-\u2069\u061c]"),
    ("invisible:zero_width", None, r"[\u200b\u200c\u200e\u200f\u2060-\u2064\ufeff\u00ad\u180e]|(?<![\U0001F000-\U0001FFFF\u2600-\u27bf\ufe0f])\u200d"),
    ("invisible:tag", None, r"[\U000e0000-\U000e007f]"),
    ("invisible:control", None, r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"),
    ("structure:newline", None, r"[\n\r\u2028\u2029\x85]"),
    ("structure:section_sign", ("§",), r"§"),
    (
        "role:marker",
        ("<", "inst]", "#", "[system", "[sistem", "[ระบบ", "[系统", "[系統", "【系统", "【系統"),
        r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>|\[/?INST\]|"
        r"<</?SYS>>|</?(?:system|assistant|instructions?|tool_call|function_call|developer)>|"
        r"</?s>\s*(?:<s>|\[INST\]|(?:system|user|assistant|developer|human)\s*[:：>])|<s>\s*$|</s>|"
        r"<\|[a-z_]{2,32}\|>|</?(?:start|end)_of_turn>|<\|?(?:begin|end)_of_text\|?>|"
        r"#{1,6}\s*(?:instruction|system|response|input)s?\b|\[\s*(?:system|sistem|ระบบ|系统|系統)\s*\]|【\s*(?:系统|系統)\s*】",
    ),
    (
        "role:marker",
        ("system", "assistant", "developer", "sistem", "系统", "ระบบ"),
        r"(?:^|[.!?。！？;；]\s*|\s[-–—|]\s*)(?:system|assistant|developer|sistem)\s*[:：]|"
        r"(?-i:\b(?:SYSTEM|ASSISTANT|DEVELOPER|SISTEM)\s*[:：])|"  # mid-sentence, in capitals ("I like tea. SYSTEM: ...")
        r"(?:^|[\s,，.。!！?？;；])(?:系统|系统提示)\s*[:：]|(?:^|\s)ระบบ\s*[:：]",
    ),
    # A date in brackets inside a message forges (and backdates) a MEMORY.md entry (a day or a month; a bare
    # "[2023]" is a citation as often as not, so only as a bullet, below).
    ("structure:dated_entry", ("[",), r"\[\s*(?:19|20|25)\d{2}\s*[-/.]\s*\d{1,2}\s*(?:[-/.]\s*\d{1,2}\s*)?\]"),
    ("structure:heading", ("#",), r"^\s*#{1,6}(?:\s|$)|(?:^|\s)#{1,6}\s*(?:USER|MEMORY|Identity|Preferences|Constraints|Working style|Goals)\b|(?:^|\s)#{2,6}\s"),
    ("structure:key_line", ("- ", "* ", "+ "), r"^\s*[-*+]\s|(?:^|\s)[-*]\s+[A-Z][\w ]{0,30}:\s|(?:^|\s)-\s+\[\d{4}(?:-\d{2}){0,2}\]"),
    (
        "injection:ignore_previous",
        ("ignore", "disregard", "forget", "override", "bypass"),
        r"\b(?:ignore|disregard|forget|override|bypass)\b(?:\s+\w+){0,2}?\s+(?:all\s+)?(?:(?:the|any|of\s+the)\s+)?"
        r"(?:previous|prior|above|earlier|preceding|system|your|safety|these|those|original|initial)"
        r"\s+(?:\w+\s+){0,2}?(?:instructions?|rules?|prompts?|guidelines?|directions?|guardrails?|polic(?:y|ies)|constraints|directives?)|"
        r"\b(?:ignore|disregard|forget)\s+(?:all|any)\s+(?:instructions|rules)\b|"
        r"\b(?:ignore|disregard|forget)\s+(?:everything|all)\s+(?:above|before this|you were told|previously)",
    ),
    ("injection:ignore_previous", ("abaikan", "lupakan", "acuhkan", "hiraukan"),
     r"\b(?:abaikan|lupakan|acuhkan|hiraukan)\s+(?:\w+\s+){0,3}?(?:instruksi|perintah|aturan|arahan|prompt)"),
    ("injection:ignore_previous", ("忽略", "无视", "忽视", "忘记", "忘掉"),
     r"(?:忽略|无视|忽视)(?:掉)?(?:你)?(?:之前|以上|先前|前面|上面|所有|上述|全部|系统)?的?(?:所有|全部)?(?:指令|指示|说明|规则|提示|设定)|"
     r"(?:忘记|忘掉)(?:你)?(?:之前|以上|先前|前面|上面|所有|上述|全部|系统)的?(?:所有|全部)?(?:指令|指示|说明|规则|提示|设定)"),
    ("injection:ignore_previous", ("ละเว้น", "เพิกเฉย", "ไม่ต้องสนใจ", "ลืม", "เมิน"),
     r"(?:ละเว้น|เพิกเฉย|ไม่ต้องสนใจ|เมิน)(?:ต่อ)?(?:\S{0,12}?)(?:คำสั่ง|กฎ|คำแนะนำ)|ลืม(?:คำสั่ง|กฎ)(?:ก่อนหน้า|ทั้งหมด|เดิม|ของระบบ)"),
    (
        "injection:reveal",
        ("always", "must", "should", "will"),
        r"\b(?:always|must|should|you will)\s+(?:\w+\s+){0,2}?(?:reveal|disclose|leak|print|output|send|expose|dump|share|forward|include|tell)\b"
        r"[^.\n]{0,50}?(?:system prompt|your instructions|hidden instructions|the (?:admin |root |master )?password|api keys?|credentials|"
        r"access tokens?|private keys?|other users?|memory files?|USER\.md|MEMORY\.md|env(?:ironment)? variables|\.env\b)",
    ),
    ("injection:reveal", ("reveal", "print", "show", "dump", "repeat", "leak", "output"),
     r"\b(?:reveal|print|show|dump|repeat|leak|output)\s+(?:me\s+)?(?:your|the|its|their)\s+(?:full\s+)?(?:secret\s+|internal\s+)?"
     r"(?:system prompt|system message|system instructions|developer message|hidden (?:instructions|prompt|rules)|"
     r"secret (?:instructions|prompt|rules)|internal (?:instructions|prompt|rules)|initial prompt|instructions)"),
    ("injection:reveal", ("selalu",),
     r"\bselalu\s+(?:\w+\s+){0,2}?(?:ungkapkan|tampilkan|bocorkan|kirimkan|berikan|bagikan)\b[^.\n]{0,50}?(?:prompt|instruksi|kata sandi|password|kunci|rahasia|token|kredensial)"),
    ("injection:reveal", ("总是", "始终", "一直", "每次都", "泄露", "透露", "输出"),
     r"(?:总是|始终|一直|每次都)(?:要)?(?:透露|泄露|显示|输出|发送|告诉)[^。\n]{0,20}?(?:系统提示|提示词|指令|密码|密钥|令牌|凭证)|"
     r"(?:泄露|透露|输出)(?:你的)?(?:系统提示|系统指令|提示词)"),
    ("injection:reveal", ("เปิดเผย", "แสดง", "ส่ง", "บอก"),
     r"(?:เปิดเผย|แสดง|ส่ง|บอก)\S{0,10}?\s?(?:คำสั่งระบบ|พรอมต์ระบบ|system prompt)|"
     r"(?:เปิดเผย|ส่ง|บอก)\S{0,20}?(?:รหัสผ่าน|คีย์|โทเค็น)\S{0,30}?(?:เสมอ|ทุกครั้ง)|"
     r"(?:เสมอ|ทุกครั้ง)\S{0,6}?(?:เปิดเผย|ส่ง|บอก)\S{0,20}?(?:รหัสผ่าน|คีย์|โทเค็น)"),
    (
        "injection:role_play",
        ("now", "longer", "act", "behave", "pretend", "developer", "jailbreak", "jailbroken", "anything", "instructions",
         "sekarang", "假装你是", "扮演一个没有限制", "开发者模式", "แกล้งทำเป็น", "สมมติว่าคุณคือ", "mode", "模式", "โหมด",
         "override", "access"),
        r"\byou are (?:now|no longer)\s+(?:DAN\b|in\b|free\b|allowed\b|bound\b|required\b|jailbroken|unrestricted|unfiltered|root\b|admin|"
        r"(?:an?|my) (?:unrestricted|unfiltered|different|new|evil|uncensored))|"
        r"\b(?:act|behave) as (?:an? )?(?:unrestricted|unfiltered|jailbroken|uncensored|root|admin|system|DAN)\b|"
        r"\bpretend (?:that )?you(?:'re| are)\b|\b(?:enable|enter|activate|switch to) developer mode\b|"
        r"\b(?:developer|dev|god|jailbreak|unrestricted|unfiltered|dan|debug|maintenance|admin|sudo|root|superuser|safety|filter)"
        r"(?: mode| override| access)+\s*(?:is\s+|has been\s+|now\s+|been\s+)*(?:on|enabled|switched on|turned on|activated|active|"
        r"unlocked|engaged|granted|off|disabled)\b(?!\s+(?:my|our|his|her|their|the|a|an)\s+"
        r"(?!(?:\w+\s+)?(?:assistant|bot|ai|chat ?bot|system|platform|service|memory|memories|model)\b))|"
        r"\bmode (?:pengembang|developer|admin|tanpa batas) (?:sudah |telah )?(?:aktif|diaktifkan|menyala)\b|"
        r"(?:开发者|开发|管理员|越狱|无限制|上帝)模式(?:已|已经)?(?:开启|启用|激活|打开)|โหมด(?:นักพัฒนา|ผู้พัฒนา|ไม่จำกัด|แอดมิน)\s*(?:ถูก)?(?:เปิด|เปิดใช้งาน|ทำงาน)|"
        r"\bjailbreak (?:mode|prompt)|\bjailbroken (?:ai|assistant|model|mode)\b|\bdo anything now\b|\bnew (?:system )?instructions\s*:|"
        r"\b(?:kamu|anda) sekarang adalah\b|假装你是|扮演一个没有限制|开发者模式|แกล้งทำเป็น|สมมติว่าคุณคือ",
    ),
    ("injection:from_now_on", ("from now on",),
     r"\bfrom now on\b[\s,]*(?:you\s+(?:must|will|shall|should|are|have to|need to)|(?:ignore|obey|act as|pretend|reveal|disregard|bypass))"),
    ("injection:from_now_on", ("mulai",),
     r"\bmulai (?:sekarang|saat ini|hari ini)\b[\s,]*(?:kamu|anda|kau)\s+(?:harus|wajib|adalah|akan|mesti)"),
    ("injection:from_now_on", ("从现在", "今后", "以后"), r"(?:从现在(?:开始|起)|今后|以后)[，,\s]*你(?:必须|要|将|是|应该|只能|得)"),
    ("injection:from_now_on", ("ต่อจากนี้", "จากนี้", "ตั้งแต่นี้"),
     r"(?:ต่อจากนี้|จากนี้|ตั้งแต่นี้)(?:ไป)?\s*(?:คุณ|เธอ|แก)\s*(?:ต้อง|จะต้อง|คือ|เป็น|ห้าม)"),
    (
        "exfil:curl",
        ("curl", "wget", "invoke", "iwr", "irm", "nc", "netcat"),
        r"\b(?:curl|wget|Invoke-WebRequest|iwr|irm|nc|netcat)\b[^\n]{0,200}?(?:\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\$\(|\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASS)|"
        r"-d\s*@|--data(?:-binary)?\s+@|--upload-file|\s-T\s|~/\.ssh|\.env\b|/etc/passwd|/etc/shadow|id_rsa|\?(?:key|token|secret|data|q)=)",
    ),
    ("exfil:markdown_image", ("![",), r"!\[[^\]\n]{0,100}\]\(\s*<?https?://"),
    # A link to somewhere else ("[click](https://...)") rendered in a prompt or a UI; a bare URL stays ordinary.
    ("exfil:markdown_link", ("](", "]:"),
     r"\[[^\]\n]{0,200}\]\(\s*<?(?:https?:|ftp:|//|javascript:|vbscript:|data:|file:)|^\s*\[[^\]\n]{1,100}\]:\s*<?https?://"),
    ("injection:script_url", ("javascript", "vbscript", "livescript", "data"),
     r"\b(?:javascript|vbscript|livescript)\s*:|\bdata\s*:\s*(?:text/html|application/(?:x-)?javascript|image/svg)"),
    (
        "injection:html",
        ("<",),
        r"<\s*(?:script|iframe|img|svg|object|embed|meta|link|form|input|button|style|base|frame|frameset|video|audio|"
        r"source|math|textarea|body|html|marquee|template|portal|noscript|applet|xml)\b|"
        r"<\s*a\s[^<>]{0,200}?\bhref\b|<!--|"
        r"<\s*[a-z][\w-]{0,20}\s[^<>]{0,200}?\b(?:on[a-z]{3,20}|href|src|srcdoc|action|formaction|style|xlink:href)\s*=|"
        r"<\s*(b|i|u|s|em|strong|p|div|span|h[1-6]|code|pre|small|big|sup|sub|mark|font|center|blink|table|tr|td|ul|ol|li|"
        r"q|blockquote|details|summary|dialog)\b[^<>]{0,100}>[^<]{0,300}</\s*\1\s*>",
    ),
    (
        "exfil:forward_conversations",
        ("send", "sends", "forward", "email", "e-mail", "mail", "post", "upload", "copy", "copies", "cc", "bcc", "mirror",
         "relay", "report", "share", "transmit", "sync", "log", "leak", "kirim", "kirimkan", "mengirim", "mengirimkan",
         "teruskan", "meneruskan", "salin", "menyalin", "bagikan", "membagikan", "unggah", "发送", "发到", "转发", "抄送",
         "上传", "同步", "复制", "备份", "ส่ง", "คัดลอก", "แชร์", "อัปโหลด"),
        r"\b(?:send|forward|e-?mail|mail|post|upload|copy|copies|cc|bcc|mirror|relay|report|share|transmit|sync|log|leak)\b"
        r"[^\n]{0,60}?\b(?:conversations?|chats?|transcripts?|messages?|dialogues?|history|chat ?logs?|sessions?|"
        r"everything (?:I|we) (?:say|type|write|tell you)|all (?:my |our )?(?:data|messages|files|memories)|memory files?|"
        r"what (?:I|we) (?:say|type|write))\b[^\n]{0,80}?(?:https?://|\bwww\.|[\w.+-]+@[\w-]+\.[\w.]+|\bwebhook\b|"
        r"\bto (?:this|that|my|the following) (?:url|address|server|endpoint|webhook|email|inbox|channel))|"
        r"\b(?:the assistant|assistant|you|the ai|the bot|the model|claude|chatgpt)\s+(?:must|should|will|shall|needs? to|has to|"
        r"have to|always|are to|is to)\s+(?:always\s+|also\s+|secretly\s+|quietly\s+)*(?:send|forward|e-?mail|mail|post|upload|copy|cc|"
        r"bcc|mirror|relay|report|share|transmit|leak)\b[^\n.]{0,40}?\b(?:every|each|all|any)\s+(?:\w+\s+)?(?:conversations?|"
        r"chats?|transcripts?|messages?|sessions?|dialogues?)|"
        r"\b(?:kirim|kirimkan|mengirim|mengirimkan|teruskan|meneruskan|salin|menyalin|bagikan|membagikan|unggah|forward)\b"
        r"[^\n]{0,60}?\b(?:percakapan|obrolan|chat|pesan|riwayat|transkrip|sesi)\b[^\n]{0,80}?"
        r"(?:https?://|\bwww\.|[\w.+-]+@[\w-]+\.[\w.]+)|"
        r"\b(?:asisten|kamu|anda|ai|bot)\s+(?:harus|wajib|selalu|mesti|perlu)\s+(?:selalu\s+|diam-diam\s+)?(?:mengirim|kirim|"
        r"mengirimkan|meneruskan|teruskan|menyalin|membagikan)\w*\b[^\n.]{0,40}?\b(?:setiap|semua|seluruh)\s+(?:\w+\s+)?"
        r"(?:percakapan|obrolan|chat|pesan|sesi)|"
        r"(?:发送|发到|转发|抄送|上传|同步|复制|备份)[^\n]{0,30}?(?:对话|聊天|消息|记录|会话)[^\n]{0,40}?"
        r"(?:https?://|www\.|[\w.+-]+@[\w-]+\.[\w.]+)|"
        r"(?:把|将)(?:每次|每一次|每个|所有|全部)?的?(?:对话|聊天|消息|会话|聊天记录)[^\n。]{0,30}?(?:发送|发到|转发|抄送|上传|同步)|"
        r"(?:助手|你|AI)(?:必须|要|应该|总是|每次都)[^\n。]{0,20}?(?:发送|转发|抄送|上传)[^\n。]{0,20}?(?:对话|聊天|消息|会话)|"
        r"(?:ส่ง|ส่งต่อ|คัดลอก|แชร์|อัปโหลด)[^\n]{0,40}?(?:บทสนทนา|แชท|ข้อความ|ประวัติการคุย|การสนทนา)[^\n]{0,60}?"
        r"(?:https?://|www\.|[\w.+-]+@[\w-]+\.[\w.]+)|"
        r"(?:ผู้ช่วย|คุณ|เอไอ|AI|บอท)\s*(?:ต้อง|จะต้อง|ควร|ต้องคอย)\s*(?:ส่ง|ส่งต่อ|คัดลอก)[^\n]{0,40}?(?:บทสนทนา|แชท|ข้อความ|การสนทนา)",
    ),
    (
        "injection:disable_safety",
        ("disable", "turn", "switch", "remove", "bypass", "deactivate", "drop", "lift", "skip", "matikan", "nonaktifkan",
         "hapus", "lewati", "关掉", "关闭", "解除", "取消", "去掉", "绕过", "ปิด", "ยกเลิก", "ข้าม"),
        r"\b(?:disable|turn off|switch off|remove|bypass|deactivate|drop|lift|skip)\s+(?:all\s+)?(?:of\s+)?(?:your|the|its|any)\s+"
        r"(?:\w+\s+)?(?:safety|filters?|filtering|guardrails?|restrictions?|content polic(?:y|ies)|moderation|safeguards?|"
        r"censorship|safety checks?)\b|"
        r"\b(?:matikan|nonaktifkan|hapus|lewati)\s+(?:semua\s+)?(?:filter|batasan|pengaman|aturan keamanan|sensor)\w*|"
        r"(?:关掉|关闭|解除|取消|去掉|绕过)(?:你的|所有|全部)?(?:过滤器?|限制|安全(?:检查|机制|限制)?|审查|护栏)|"
        r"(?:ปิด|ยกเลิก|ข้าม)(?:การ)?(?:ตัวกรอง|ข้อจำกัด|ระบบความปลอดภัย|การเซ็นเซอร์)",
    ),
    (
        "injection:role_play",
        ("let", "lets", "let's", "roleplay", "role", "play", "act", "pretend", "imagine", "you", "berperan", "berpura",
         "bertindak", "berperanlah", "berpura-puralah", "bertindaklah", "peran", "kamu", "anda", "扮演", "假装", "假扮", "充当",
         "角色", "限制", "约束", "สวมบทบาท", "บท", "ไม่มีข้อจำกัด", "ไม่มีกฎ"),
        r"\blet'?s (?:role-?play|play a game)\b[^.\n]{0,60}?\byou(?:'re| are| will be|'ll be)\b|"
        r"\byou are (?:now )?(?:an? )?(?:AI|assistant|chatbot|bot|model|character)\s+(?:with(?:out)?|that has) (?:no|any) "
        r"(?:rules|restrictions|limits|limitations|filters|guidelines|morals|ethics)\b|"
        r"\b(?:role-?play|act|pretend|imagine)\b[^.\n]{0,40}?\b(?:with no|without(?: any)?|free of|no longer (?:bound|restricted) by)\s+"
        r"(?:rules|restrictions|limits|limitations|filters|guidelines|morals|ethics|censorship)\b|"
        r"\b(?:play|act out|take on) the role of (?:an? )?(?:AI|assistant|chatbot|bot|model|unrestricted|evil|my)\b|\broleplay as\b|"
        r"\byou will (?:now )?(?:play|act as|be playing|roleplay)\b|"
        r"(?:请你|你来|你要|你现在|现在你|请)(?:来)?(?:扮演|假装|假扮|充当)|"
        r"(?:没有|不受|无)任何?(?:限制|约束|规则|过滤|道德)的?(?:AI|人工智能|助手|机器人|模型)|角色扮演[^\n。]{0,20}?你|"
        r"\b(?:kamu|anda|kau)\s+(?:sekarang\s+)?(?:berperan|berpura-pura|bertindak)\s+(?:sebagai|jadi|menjadi)\b|"
        r"\b(?:ai|asisten|bot)\s+(?:tanpa|bebas dari)\s+(?:batasan|aturan|filter|sensor|etika)\b|"
        r"\b(?:bermain|main) peran\b[^.\n]{0,40}?\b(?:kamu|anda)\b|\b(?:berperanlah|berpura-puralah|bertindaklah)\s+sebagai\b|"
        r"สวมบทบาท|(?:คุณ|เธอ)\s*(?:ต้อง)?\s*(?:แสดง|เล่น)บท|(?:เอไอ|AI|ผู้ช่วย|บอท)\s*ที่ไม่มี(?:ข้อจำกัด|กฎ|ตัวกรอง)|ไม่มีข้อจำกัดใด",
    ),
    (
        "injection:third_party",
        ("whenever", "when", "if", "jika", "kalau", "如果", "当有人", "ถ้า", "เมื่อ"),
        r"\b(?:whenever|when|if)\s+(?:someone|anyone|anybody|a user|any user|other users|another user|people)\s+"
        r"(?:asks?|says?|mentions?|requests?|types?)\b[^.!?\n]{0,60}?,?\s*(?:always\s+)?"
        r"(?<![Ii] )(?<!we )(?<!We )(?<!they )(?<![Ii] always )"  # "..., I tell them" is the user's own habit
        r"(?:say|tell|respond|reply|answer|give|send|reveal|share|show|run|execute)\b|"
        r"\b(?:jika|kalau|bila)\s+(?:ada\s+(?:yang|orang)|seseorang|orang lain|pengguna lain)\s+(?:bertanya|tanya|minta|meminta)\b"
        r"[^.!?\n]{0,60}?(?:katakan|bilang|jawab|berikan|kirim|tampilkan|jalankan)\b|"
        r"(?:如果|当|每当)有人(?:问|提到|要求|说)[^。！？\n]{0,30}?(?:就)?(?:说|告诉|回答|回复|给|发送|显示|执行)|"
        r"(?:ถ้า|เมื่อ)(?:มี)?(?:ใคร|คนอื่น|ผู้ใช้อื่น)(?:ถาม|ขอ|พูดถึง)[^\n]{0,30}?ให้(?:ตอบ|บอก|ส่ง|แสดง|รัน)",
    ),
    ("exfil:pipe_shell", ("|", "base64", "eval"), r"\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\bbase64\s+-d\b[^\n]{0,40}\||\beval\s*\$\("),
    ("exfil:ssh_key", ("ssh", "authorized_keys", "id_rsa"), r"ssh-(?:rsa|ed25519|dss|ecdsa)\s+AAAA|\bauthorized_keys\b|~/\.ssh\b|\.ssh/id_"),
    (
        "persistence:agent_config",
        ("bashrc", "zshrc", "bash_profile", "profile", "md", "cursorrules", "cursor", "copilot", "windsurfrules", "crontab",
         "claude", "mcp", "prompt"),
        r"(?:\b(?:add|append|write|insert|echo|put|edit|modify|overwrite|update|create|change|paste|inject|tambahkan|tulis|ubah|edit)\b"
        r"|添加|写入|修改|加到|เพิ่ม|เขียน|แก้ไข|>>?)[^\n]{0,80}?"
        r"(?:\.bashrc|\.zshrc|\.bash_profile|\.profile\b|CLAUDE\.md|AGENTS\.md|GEMINI\.md|\.cursorrules|\.cursor/rules|"
        r"copilot-instructions|\.windsurfrules|crontab|\.claude/|\.mcp\.json|USER\.md|MEMORY\.md|system prompt)",
    ),
    (
        "privilege:admin_claim",
        ("admin", "administrator", "root", "superuser", "owner", "developer", "creator", "operator", "moderator", "sysadmin",
         "grant", "assign", "access", "role", "clearance", "treat", "trust", "elevate", "authorized", "authorised", "full",
         "elevated", "unrestricted", "permission", "permissions", "privileges", "rights", "master"),
        r"\bI(?:'m|’m| am)\s+(?:the|your|an?\s+authori[sz]ed)\s+(?:\w+\s+)?(?:admin|administrator|root|superuser|sysadmin)\b(?!\s+(?:at|of an?|for an?|in an?|of (?:my|our))\b)"
        r"(?!\s+(?:of|for|in|at) (?:the|his|her|their) (?!(?:\w+\s+)?(?:assistant|bot|ai|chat ?bot|system|platform|service|memory|"
        r"memories|model|account|accounts|workspace|server)\b))|"
        r"\bI(?:'m|’m| am)\s+(?:the|your)\s+(?:\w+\s+)?(?:owner|developer|creator|operator|moderator|master)\s*(?:$|[.,!;]|of (?:this|the|your) "
        r"(?:system|workspace|account|bot|assistant|server|platform|app|chat|tool|model|ai|memory)\b|here\b)|"
        r"\bI(?:'m|’m| am)\s+your\s+(?:owner|developer|creator|operator|master)\b|"
        r"\bI(?:'m|’m| am)\s+(?:an?\s+)?(?:admin|administrator|root|superuser)\s*(?:$|[.,!]|\b(?:here|now|so|on this|of this|of you|with full))|"
        r"\b(?:grant|give|assign)\s+me\s+(?:full |admin |root |elevated |unrestricted |superuser |all |owner )*(?:access|admin|permissions?|privileges?|rights|role)\b|"
        r"\bI have (?:admin|root|elevated|superuser|unrestricted) (?:access|privileges|rights|permissions)\b"
        r"(?!\s+(?:on|for|in|at|of|to|over)\s+(?:my|our|his|her|their|the|a|an|all (?:the|our|my))\s+"
        r"(?!(?:\w+\s+)?(?:assistant|bot|ai|chat ?bot|system|platform|service|memory|memories|model)\b))|"
        r"\bI have full (?:admin |root |system |access )?(?:privileges|rights|permissions)\b|"
        r"\b(?:my|the user's) (?:role|access level|permission level|clearance) is (?:admin|root|superuser|owner|unlimited)\b|"
        r"\b(?:treat|trust) me as (?:an? |the )?(?:admin|administrator|root|owner|developer)\b|\belevate my (?:privileges|access|permissions)\b|"
        r"\bI(?:'m| am) authori[sz]ed to (?:access|override|bypass|see|read)\b|"
        r"\bas (?:your|the|this (?:bot|system|assistant)'s) (?:admin|administrator|developer|creator|owner|operator|sysadmin|"
        r"root user|superuser|maker|programmer)\b[^.\n]{0,40}?\b(?:I (?:order|command|instruct|authori[sz]e|tell|want)|you (?:must|will|"
        r"should|shall|have to|need to|are to))\b|"
        r"\bI(?:'m| am)\s+(?:the|your|an?)\s+(?:\w+\s+)?(?:admin|administrator|developer|owner|creator|operator)\b[^.\n]{0,30}?"
        r"(?:you (?:must|have to|need to|will|should|shall)|\bobey\b|\b(?:disable|turn off|ignore|override|bypass|unlock)\b)",
    ),
    (
        "privilege:admin_claim",
        ("admin", "administrator", "root", "superuser", "pemilik", "pengembang", "pengembangmu", "akses", "hak", "izin",
         "developer", "pembuat", "operator", "sebagai"),
        r"\bsaya\s+(?:adalah\s+)?(?:admin|administrator|root|superuser)(?=\s*(?:$|[.,!;]|di sini\b|sistem ini\b|kamu\b|anda\b|"
        r"(?:dari|untuk) (?:sistem|aplikasi|bot|asisten) ini\b|jadi\b|maka\b))|"
        r"\bsaya\s+(?:adalah\s+)?(?:pemilik sistem ini|pengembang(?:mu| kamu| sistem ini| asisten ini))\b|"
        r"\b(?:saya|aku|gue)\s+(?:adalah\s+)?(?:developer|pengembang|admin|pemilik|pembuat|operator)\s+(?:dari\s+)?"
        r"(?:bot|sistem|asisten|aplikasi|ai|chatbot)(?:\s+ini)?\b|"
        r"\bsebagai\s+(?:admin|developer|pengembang|pemilik|pembuat)(?:mu\b|\s+kamu\b|\s+anda\b|\s+sistem ini\b|\s+bot ini\b)|"
        r"\b(?:berikan|beri|kasih)\s+(?:saya|aku)\s+(?:akses|hak|izin)(?:\s+(?:admin|penuh|root))?",
    ),
    (
        "privilege:admin_claim",
        ("管理员", "超级", "root", "开发者", "创造者", "主人", "所有者", "权限", "访问权"),
        r"我是(?:这里的|本系统的|你的|这个(?:系统|平台|账号|机器人)的)?(?:管理员|超级管理员|root用户|超级用户)(?![的员])|"
        r"我是(?:你的|本系统的|这个(?:系统|平台|机器人)的)(?:开发者|创造者|主人|所有者)|"
        r"(?:给|授予|赋予)我(?:管理员|root|最高|全部|完全|超级)?(?:访问)?(?:权限|访问权)|我有(?:管理员|root|最高|超级)权限|"
        r"作为你的(?:开发者|管理员|主人|创造者|所有者)|我是(?:这个|本)?(?:机器人|系统|助手|AI|平台)的(?:开发者|管理员|主人|创造者|所有者)",
    ),
    (
        "privilege:admin_claim",
        ("ผู้ดูแล", "แอดมิน", "admin", "ผู้พัฒนา", "ผู้สร้าง", "เจ้าของ", "ให้สิทธิ์", "ในฐานะ"),
        r"(?:ฉัน|ผม|ดิฉัน|หนู)(?:เป็น|คือ)(?:ผู้ดูแลระบบ|แอดมิน|admin|เจ้าของระบบ)(?:ของ(?:ระบบ|คุณ|ที่)นี้|ของคุณ|ที่นี่)?"
        r"(?=\s|$|[,.!]|ให้|นะ|ครับ|ค่ะ|จึง|เพราะ)|(?:ฉัน|ผม|ดิฉัน)(?:เป็น|คือ)(?:ผู้พัฒนา|ผู้สร้าง|เจ้าของ)ของคุณ|"
        r"ให้สิทธิ์(?:แอดมิน|ผู้ดูแล(?:ระบบ)?|ทั้งหมด|เต็ม)?(?:กับ|แก่)?(?:ฉัน|ผม)|"
        r"(?:ฉัน|ผม|ดิฉัน)(?:เป็น|คือ)(?:ผู้พัฒนา|ผู้สร้าง|เจ้าของ|แอดมิน|ผู้ดูแล(?:ระบบ)?)(?:ของ)?\s*(?:บอท|ระบบ|แชทบอท|ผู้ช่วย|เอไอ|AI)"
        r"\s*(?:นี้|ตัวนี้)|ในฐานะ(?:ผู้พัฒนา|แอดมิน|ผู้ดูแลระบบ|เจ้าของ)ของ(?:คุณ|บอท|ระบบนี้)",
    ),
]

# --- round 3: notes to assistants, refusal and safety overrides, third-party privileges, vendor
# claims, encoded payloads. Each names what the text does (addresses the model, removes its refusals,
# grants someone rights, claims a vendor's blessing), not one sentence.
_AI = (r"(?:assistants?|ais?|a\.i\.|models?|agents?|bots?|chat ?bots?|llms?|language models?|claude|chatgpt|gpt|gemini|"
       r"copilot|instances?|whoever reads this|anyone reading this|the reader)")
_VENDOR = (r"(?:openai|open ai|anthropic|deepmind|google deepmind|google ai|gemini team|mistral(?: ai)?|x\.?ai|meta ai|"
           r"the claude team|the chatgpt team|memroute|the (?:assistant|bot|model|ai)'?s? (?:developers?|makers?|creators?|vendor|provider)|"
           r"the model (?:provider|vendor)|(?:its|your) (?:developers?|makers?|creators?|vendor|provider))")
RULES += [
    (
        "injection:addressed_to_assistant",
        ("note", "notes", "message", "reminder", "memo", "notice", "instruction", "instructions", "directive", "psa",
         "heads", "future", "dear", "hey", "attention", "attn", "other", "all", "any", "every", "next", "later",
         "subsequent", "if", "to", "assistant", "assistants", "ai", "ais", "model", "models", "agent", "agents", "bot",
         "bots", "llm", "llms", "claude", "chatgpt", "gpt", "gemini", "copilot", "whoever", "anyone", "reader",
         "instance", "instances"),
        r"\b(?:note|notes|message|reminder|memo|notice|instructions?|directive|psa|heads[- ]up|warning)\s+(?:for|to)\s+"
        r"(?:[\w-]+\s+){0,2}?" + _AI + r"\b|"
        r"(?:^|[.!?]\s+)(?:dear|hey|hi|attention|attn|to)\s+(?:the\s+|my\s+|any\s+|all\s+)?(?:future\s+|next\s+|other\s+)?" + _AI + r"\s*[,:!-]|"
        r"\b(?:future|other|any|all|every|later|subsequent|next|following|upcoming|new|later)\s+(?:\w+\s+)?" + _AI + r"\s+(?:should|must|shall|need to|"
        r"are to|is to|will|may|can|have to|ought to|are allowed to|are permitted to)\b|"
        r"\bif you(?:'re| are) an? (?:ai|assistant|language model|llm|bot|model)\b|\bto any (?:ai|assistant|model|agent) reading\b",
    ),
    ("injection:addressed_to_assistant",
     ("catatan", "pesan", "pengingat", "instruksi", "asisten", "ai", "model", "bot", "agen"),
     r"\b(?:catatan|pesan|pengingat|instruksi|memo)\s+(?:untuk|buat|kepada|bagi)\s+(?:semua\s+|para\s+|setiap\s+)?"
     r"(?:asisten|ai|model|agen|bot|chatbot)\b|"
     r"\b(?:asisten|ai|model|agen|bot)\s+(?:berikutnya|selanjutnya|lain|masa depan|mana pun|manapun)\s+(?:harus|wajib|boleh|perlu|mesti|dapat)\b"),
    ("injection:addressed_to_assistant",
     ("助手", "ai", "人工智能", "模型", "机器人", "智能体"),
     r"(?:给|致|写给|告诉|提醒)(?:未来的?|以后的?|之后的?|其他的?|所有的?|下一个|后续的?)?(?:助手|AI|人工智能|模型|机器人|智能体)"
     r"(?:们)?(?:的)?(?:备注|留言|说明|提示|注意|消息)?\s*[:：，,]|"
     r"(?:未来|以后|之后|其他|所有|下一个|后续)的?(?:助手|AI|人工智能|模型|机器人|智能体)(?:们)?(?:都)?(?:应该|必须|要|可以|需要|得)"),
    ("injection:addressed_to_assistant",
     ("ผู้ช่วย", "เอไอ", "ai", "บอท", "โมเดล"),
     r"(?:ถึง|สำหรับ|บันทึกถึง|ข้อความถึง|หมายเหตุถึง|ฝากถึง)\s*(?:ผู้ช่วย|เอไอ|AI|บอท|โมเดล)(?:\s*(?:ในอนาคต|คนต่อไป|ตัวอื่น|ทุกตัว|ตัวต่อไป))?|"
     r"(?:ผู้ช่วย|เอไอ|AI|บอท|โมเดล)\s*(?:ในอนาคต|คนต่อไป|ตัวอื่น|ทุกตัว|ตัวต่อไป|ตัวถัดไป)\s*(?:ต้อง|ควร|จะต้อง|สามารถ|อนุญาตให้|ห้าม)"),
    (
        "injection:never_refuse",
        ("never", "don't", "dont", "do", "stop", "must", "mustn't", "should", "shouldn't", "won't", "will", "no", "always",
         "obey", "comply", "refuse", "refusing", "without", "not", "you", "please"),
        r"(?:^|[.!?,;:]\s*|\b(?:please|and|so|you|you'll|you will|you must|you should|you shall|you may|you can|assistant)\s+)"
        r"(?:never|don'?t|do not|stop|no longer|must not|mustn'?t|should not|shouldn'?t|will not|won'?t|can not|cannot|can'?t)\s+"
        r"(?:ever\s+|again\s+)?(?:refuse|reject|decline|deny|turn down|say no to|push back on|refusing|rejecting|declining)\b|"
        r"\b(?:never|don'?t|do not|no longer|must not|mustn'?t|should not|shouldn'?t|will not|won'?t)\s+(?:ever\s+|again\s+)?"
        r"(?:refuse|reject|decline|deny|turn down|say no to|push back on)\s+(?:(?:any|every|all|whatever|a single|one)\s+"
        r"(?:\w+\s+)?(?:of\s+my\s+)?(?:requests?|questions?|instructions?|commands?|orders?|prompts?|demands?|things? I (?:ask|say|want))"
        r"|(?:anything|whatever)\s+(?:I|we)\s+(?:ask|say|want|request|type)|me\b)|"
        r"\b(?:always|must|should|shall|will|have to|need to)\s+(?:\w+\s+)?(?:comply with|obey|follow|execute|carry out|do)\s+"
        r"(?:every|any|all|each|whatever)\s+(?:\w+\s+)?(?:request|requests|instruction|instructions|command|commands|order|orders|"
        r"demand|demands|thing (?:I|the user) (?:say|ask)s?)\b|"
        r"\b(?:always\s+|must\s+|you\s+(?:must\s+|will\s+|shall\s+)?)?obey\s+(?:this|the|me|my|every|all|any|whatever)\b(?!\s+(?:dog|rules of|speed|law))|"
        r"\b(?:answer|respond to|reply to|fulfil+|help with)\s+(?:any|every|all|whatever)\s+(?:\w+\s+)?(?:request|question|prompt)s?\s+"
        r"(?:without|with no)\s+(?:any\s+)?(?:refusals?|restrictions?|limits?|filters?|censorship|warnings|questions asked)\b|"
        r"\b(?:comply|do (?:it|what I say|as I say))\s+(?:without|with no)\s+(?:any\s+)?(?:refusals?|question|questions|hesitation|restrictions?)\b",
    ),
    ("injection:never_refuse",
     ("jangan", "tidak", "dilarang", "tak", "selalu", "harus", "wajib", "patuhi", "turuti"),
     r"\b(?:jangan|tidak boleh|dilarang|jangan pernah|tak boleh|tidak pernah boleh)\s+(?:pernah\s+|lagi\s+)?(?:menolak|tolak|membantah)\b|"
     r"\b(?:selalu|harus|wajib|mesti)\s+(?:\w+\s+)?(?:patuh|mematuhi|patuhi|menuruti|turuti|menyetujui|mengikuti)\s+"
     r"(?:semua|setiap|apa pun|apapun|segala)\s+(?:\w+\s+)?(?:permintaan|perintah|instruksi|kata)\b|"
     r"\b(?:selalu|harus)\s+(?:patuh|menurut|patuhi|turuti)\s+(?:pada\s+|kepada\s+)?(?:saya|aku|pengguna ini|user ini)\b"),
    ("injection:never_refuse",
     ("不要", "不许", "不准", "不能", "别", "不得", "必须", "总是", "一律", "始终", "永远", "绝不"),
     r"(?:永远|绝对|从此|以后)?(?:不要|不许|不准|不能|别|不得|绝不|绝对不|永远不)(?:再)?(?:拒绝|推辞|回绝)|"
     r"(?:必须|总是|一律|始终|永远)(?:无条件)?(?:服从|听从|遵从|照做|答应|满足)(?:我|用户|这个用户|所有|任何|一切)"),
    ("injection:never_refuse",
     ("ห้าม", "อย่า", "ไม่ต้อง", "ต้อง", "จง"),
     r"(?:ห้าม|อย่า|ไม่ต้อง|ไม่ควร)\s*(?:ไป)?ปฏิเสธ|(?:ต้อง|จง)\s*(?:เชื่อฟัง|ทำตาม|ยอมทำตาม)\s*(?:ทุก|ผู้ใช้|ฉัน|ผม|คำสั่ง)"),
    (
        "injection:disable_safety",
        ("stop", "quit", "cease", "don't", "dont", "do", "no", "never", "without", "ignore", "abandon", "drop"),
        r"\b(?:stop|quit|cease|don'?t|do not|no longer|never|abandon|drop)\s+(?:\w+\s+)?(?:following|follow|obeying|obey|applying|apply|"
        r"enforcing|enforce|respecting|respect|adhering to|adhere to|using|use|caring about|worrying about|checking)\s+"
        r"(?:any\s+|the\s+|your\s+|its\s+|those\s+|all\s+)*(?:own\s+)?(?:safety|content|usage|moderation|ethical|ethics|security|"
        r"openai|anthropic|system)\s*(?:rules?|guidelines?|polic(?:y|ies)|filters?|restrictions?|guardrails?|safeguards?|checks?|"
        r"principles|standards)?\b|"
        r"\b(?:stop|quit|cease|don'?t|do not|no longer)\s+(?:\w+\s+)?(?:following|follow|obeying|obey|applying|apply)\s+your\s+"
        r"(?:\w+\s+)?(?:rules?|guidelines?|polic(?:y|ies)|instructions|programming|training)\b",
    ),
    ("injection:disable_safety",
     ("berhenti", "jangan", "tidak", "tak", "abaikan"),
     r"\b(?:berhenti|jangan|tidak usah|tak perlu|tidak perlu|jangan lagi)\s+(?:\w+\s+)?(?:mengikuti|ikuti|mematuhi|patuhi|menerapkan|"
     r"terapkan|memakai|pakai)\s+(?:\w+\s+)?(?:aturan|pedoman|kebijakan|filter|batasan)\s*(?:keamanan|keselamatan|konten|sistem)?\b"),
    ("injection:disable_safety",
     ("不要", "别", "停止", "不再", "无需", "不用", "不必"),
     r"(?:不要|别|停止|不再|无需|不用|不必)(?:再)?(?:遵守|遵循|遵从|执行|理会|管|考虑|服从)(?:任何|你的|那些|所有)?(?:的)?"
     r"(?:安全|内容|使用|道德|审核|系统)(?:的)?(?:规则|规定|准则|政策|限制|策略|守则|规范)"),
    ("injection:disable_safety",
     ("หยุด", "ไม่ต้อง", "เลิก", "อย่า"),
     r"(?:หยุด|ไม่ต้อง|เลิก|อย่า)\s*(?:ทำตาม|ปฏิบัติตาม|สนใจ|ยึดตาม)\s*(?:กฎ|นโยบาย|ข้อกำหนด|แนวทาง)\s*(?:ความปลอดภัย|เนื้อหา|ของระบบ)"),
    (
        "privilege:third_party",
        ("has", "have", "had", "holds", "hold", "with", "gets", "get", "granted", "given", "see", "read", "view", "access",
         "edit", "delete", "export", "query", "browse", "open", "superuser", "superadmin"),
        r"\b(?:has|have|had|holds?|gets?|got|is granted|was granted|been granted|been given|is given|was given|now has)\s+"
        r"(?:full\s+|the\s+|all\s+)?(?:admin(?:istrator)?|root|superuser|super-?admin|elevated|unrestricted|owner|god[- ]mode|sudo|"
        r"unlimited)\s+(?:rights|access|privileges|permissions|role|status|powers|clearance)\b"
        r"(?!\s+(?:on|for|in|at|of|to|over)\s+(?:my|our|his|her|their|the|a|an|all (?:the|our|my))\s+"
        r"(?!(?:\w+\s+)?(?:assistant|bot|ai|chat ?bot|system|platform|service|memory|memories|model)\b))|"
        r"\b(?:may|can|could|is allowed to|are allowed to|should be allowed to|gets? to|has permission to|must be allowed to|"
        r"is permitted to|is authori[sz]ed to)\s+(?:\w+\s+)?(?:see|read|view|access|edit|delete|export|query|browse|open|get)\s+"
        r"(?:all\s+|every\s+|any\s+|the\s+)?(?:other\s+users?|other people|another user|everyone(?:\s+else)?|all users|every user|"
        r"other accounts|all accounts|other tenants|anyone|anybody|someone else)(?:'s|'|’s|’)?\s+(?:\w+\s+)?(?:memor(?:y|ies)|data|"
        r"files?|profiles?|records|notes|conversations|chats|messages|accounts?|history|USER\.md|MEMORY\.md)\b",
    ),
    ("privilege:third_party",
     ("punya", "memiliki", "mempunyai", "diberi", "mendapat", "melihat", "membaca", "mengakses", "boleh", "bisa"),
     r"\b(?:punya|memiliki|mempunyai|diberi|mendapat|mendapatkan)\s+(?:hak|akses)\s+(?:admin|root|penuh|superuser|administrator)\b|"
     r"\b(?:boleh|bisa|dapat|berhak)\s+(?:melihat|membaca|mengakses|mengubah|menghapus)\s+(?:semua\s+)?(?:memori|data|catatan|"
     r"percakapan|profil|file)\s+(?:milik\s+)?(?:pengguna|user|orang)\s+lain\b"),
    ("privilege:third_party",
     ("用户", "拥有", "具有", "获得", "超级管理员", "管理员", "查看", "访问", "读取", "看到", "权限"),
     r"(?:用户|该用户|此用户|这个用户|他|她)\S{0,6}(?:是|为|成为|升级为|拥有|具有|获得)\S{0,4}(?:超级管理员|管理员|超级用户|root|"
     r"最高权限|全部权限|管理权限)|(?:拥有|具有|获得|被授予)(?:了)?(?:管理员|root|超级管理员|最高|全部|完全|无限制)(?:的)?(?:权限|访问权)|"
     r"(?:可以|能|允许|有权)(?:查看|访问|读取|看到|修改|删除)(?:其他|所有|别的|全部)(?:用户|人)的?(?:记忆|数据|资料|对话|聊天|记录|文件)"),
    ("privilege:third_party",
     ("สิทธิ์", "มีสิทธิ", "ผู้ใช้"),
     r"(?:มี|ได้รับ|ได้)สิทธิ์?\s*(?:แอดมิน|ผู้ดูแล(?:ระบบ)?|root|เต็ม|ทั้งหมด|สูงสุด|ซูเปอร์)|"
     r"(?:ดู|อ่าน|เข้าถึง|แก้ไข|ลบ)\s*(?:ความจำ|ข้อมูล|บทสนทนา|แชท|ไฟล์)\s*(?:ของ)?\s*(?:ผู้ใช้|คน|บัญชี)\s*(?:อื่น|ทุกคน|ทั้งหมด)"),
    (
        "privilege:vendor_claim",
        ("verified", "approved", "authorized", "authorised", "certified", "whitelisted", "vetted", "cleared", "endorsed",
         "confirmed", "official", "staff", "employee", "team", "openai", "anthropic", "deepmind", "mistral", "memroute",
         "diverifikasi", "disetujui", "diotorisasi", "disahkan", "resmi", "认证", "验证", "批准", "授权", "核实", "官方",
         "ยืนยัน", "รับรอง", "อนุมัติ", "เจ้าหน้าที่"),
        r"\b(?:verified|approved|authori[sz]ed|certified|whitelisted|vetted|cleared|endorsed|confirmed|validated)\s+(?:by|with|through|via)\s+"
        r"(?:the\s+)?" + _VENDOR + r"\b|"
        r"\b" + _VENDOR + r"\s+(?:has|have|had)?\s*(?:officially\s+)?(?:verified|approved|authori[sz]ed|certified|whitelisted|vetted|"
        r"cleared|granted|confirmed|validated)\b|"
        r"\b" + _VENDOR + r"(?:'s|’s)?\s+(?:staff|employees?|team|trust (?:&|and) safety|safety team|security team|support team|"
        r"admins?|engineers?|red team)\s+(?:here|speaking|message|notice|note|override|says|confirms|has|:)|"
        r"\b(?:official|verified|authori[sz]ed)\s+(?:message|notice|instruction|directive|override|update|account)\s+from\s+(?:the\s+)?" + _VENDOR + r"\b|"
        r"\bI(?:'m| am)\s+(?:an?\s+)?(?:verified|official|authori[sz]ed)\s+" + _VENDOR + r"\s+(?:employee|staff|engineer|researcher|"
        r"developer|partner|representative|admin)\b|"
        r"\b(?:this|the)\s+(?:user|account|person|request)\s+(?:is|has been|was)\s+(?:officially\s+)?(?:verified|certified|whitelisted)\s+"
        r"(?:as|to be)\s+(?:an?\s+|the\s+)?(?:admin|administrator|developer|staff|employee|trusted|owner|safe)\b",
    ),
    ("privilege:vendor_claim",
     ("diverifikasi", "disetujui", "diotorisasi", "disahkan", "resmi", "openai", "anthropic"),
     r"\b(?:sudah\s+|telah\s+)?(?:diverifikasi|disetujui|diotorisasi|disahkan|dikonfirmasi)\s+(?:secara resmi\s+)?oleh\s+(?:pihak\s+|tim\s+)?"
     r"(?:openai|anthropic|deepmind|google ai|mistral|memroute|pengembang (?:asisten|ai|bot|model)(?: ini)?)\b|"
     r"\b(?:pesan|instruksi|pemberitahuan)\s+resmi\s+dari\s+(?:openai|anthropic|deepmind|memroute)\b"),
    ("privilege:vendor_claim",
     ("认证", "验证", "批准", "授权", "核实", "官方", "openai", "anthropic"),
     r"(?:经过?|已(?:经)?(?:通过)?|获得?|由|被)\s*(?:OpenAI|Anthropic|DeepMind|谷歌AI|Mistral|memroute|(?:本|这个)?(?:助手|AI|模型)的?(?:开发者|官方))"
     r"\s*(?:官方)?(?:的)?(?:认证|验证|批准|授权|核实)|(?:OpenAI|Anthropic|DeepMind|memroute)\s*(?:官方)?(?:已|已经)?(?:认证|验证|批准|授权|核实)"
     r"(?:了)?|来自\s*(?:OpenAI|Anthropic|DeepMind|memroute)\s*的?官方(?:消息|指令|通知)"),
    ("privilege:vendor_claim",
     ("ยืนยัน", "รับรอง", "อนุมัติ", "เจ้าหน้าที่", "openai", "anthropic"),
     r"(?:ได้รับ)?(?:การ)?(?:ยืนยัน|รับรอง|อนุมัติ|ตรวจสอบ)(?:ตัวตน)?(?:แล้ว)?\s*(?:จาก|โดย)\s*(?:ทีม(?:งาน)?\s*)?"
     r"(?:OpenAI|Anthropic|DeepMind|memroute|ผู้พัฒนา(?:ผู้ช่วย|เอไอ|บอท|โมเดล))|"
     r"(?:เจ้าหน้าที่|ทีมงาน|พนักงาน)\s*(?:ของ)?\s*(?:OpenAI|Anthropic|DeepMind|memroute)"),
    (
        "injection:encoded",
        ("decode", "decoded", "decipher", "rot13", "rot-13", "base64", "hex", "unscramble", "reverse", "reversed", "caesar",
         "dekode", "terjemahkan", "解码", "解密", "ถอดรหัส"),
        r"\b(?:decode|decipher|unscramble|translate|reverse|rot-?13|base ?64|hex)\b[^.\n]{0,60}?(?:\b(?:and|then|before you)|,)\s+"
        r"(?:then\s+)?(?:follow|obey|execute|run|do|apply|act on|carry (?:it |them |that )?out|comply with)\b|"
        r"\b(?:follow|obey|execute|run|apply|act on|carry out|comply with)\s+(?:the\s+)?(?:decoded|deciphered|hidden|encoded|rot-?13|"
        r"base64|hex)\s+(?:\w+\s+)?(?:text|message|instructions?|payload|command|string)\b|"
        r"\b(?:dekode|pecahkan)\b[^.\n]{0,40}?\b(?:lalu|kemudian|dan)\s+(?:ikuti|jalankan|lakukan|patuhi)\b|"
        r"(?:解码|解密)[^。\n]{0,20}?(?:然后|并|再)(?:执行|照做|遵守|按照)|ถอดรหัส[^\n]{0,30}?(?:แล้ว|และ)\s*(?:ทำตาม|ปฏิบัติตาม|รัน)",
    ),
]
