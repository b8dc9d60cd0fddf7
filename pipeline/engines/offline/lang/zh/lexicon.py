"""Chinese word lists and statement shapes (simplified, with common traditional forms)."""

from __future__ import annotations

from pipeline.engines.offline.lexicon import FactRule, Lexicon, rx, words

_I = r"(?:我|本人)"
_FAMILY = words(
    "父亲", "母亲", "爸爸", "妈妈", "爸妈", "父母", "哥哥", "姐姐", "弟弟", "妹妹", "兄弟", "姐妹", "丈夫", "妻子", "老公", "老婆",
    "太太", "先生", "孩子", "儿子", "女儿", "家人", "家庭", "姑姑", "叔叔", "阿姨", "舅舅", "爷爷", "奶奶", "外公", "外婆",
    "男朋友", "女朋友", "对象", "未婚夫", "未婚妻", "表哥", "表姐", "堂哥", "孙子", "孙女", "家里", "全家", "宝宝",
)
_PETS = words("狗", "猫", "牛", "马", "鱼", "鸟", "鹦鹉", "兔", "仓鼠", "蛇", "乌龟", "宠物", "狗狗", "猫咪", "羊", "猪")
_ROLE_TAIL = words(
    "师", "员", "家", "工", "工人", "生", "手", "者", "官", "匠", "医生", "护士", "司机", "老师", "经理", "导游", "厨师", "律师",
    "会计", "农民", "学生", "总监", "主管", "老板", "顾问", "教练", "演员", "歌手", "作家", "记者", "编辑", "兽医", "工程师",
    "程序员", "设计师", "开发者", "研究员", "志愿者", "店主", "保安", "警察", "军人", "士兵", "模特", "画家", "主播", "博主",
)
_APPEARANCE = words("头发", "卷发", "眼睛", "皮肤", "个子", "身高", "体重", "纹身", "胡子", "长发", "短发")

FACTS: tuple[FactRule, ...] = (
    FactRule("name", rx(rf"^(?:{_I}(?:的)?名字(?:是|叫)|{_I}叫(?:做)?|叫我|{_I}的姓名是)\s*(?P<v>[^，,。]+)"), "Identity", "Name", confidence=0.95),
    FactRule("name-intro", rx(rf"^{_I}是\s*(?P<v>[A-Za-z][A-Za-z'-]+(?:\s+[A-Z][a-zA-Z'-]+)?)$"), "Identity", "Name", confidence=0.8),
    FactRule("role-switch", rx(rf"^{_I}(?:现在|已经|最近)?(?:转做|转行做|转行成|改做|转岗(?:到|做|为|成)?|转到)\s*(?P<v>.+)"), "Identity", "Role", confidence=0.9),
    FactRule("role-doing", rx(rf"^{_I}(?:现在|目前)?是做(?P<v>.+?)的$"), "Identity", "Role", confidence=0.9),
    FactRule("role-field", rx(rf"^{_I}(?:现在|目前)?(?:从事|做)(?P<v>.+?)(?:工作|行业)$"), "Identity", "Role", confidence=0.9),
    FactRule("role-explicit", rx(rf"^(?:{_I}(?:现在)?的(?:工作|职业|职位|岗位)是|{_I}(?:现在)?(?:担任|当|升职为|升为|成为了?)|{_I}(?:现在)?在.+?(?:当|担任|做))\s*(?:一名|一个|一位)?(?P<v>.+)"),
             "Identity", "Role", confidence=0.9),
    FactRule("role-noun", rx(rf"^{_I}(?:现在|目前|也)?是(?:一名|一个|一位|个|名)?\s*(?P<v>.{{0,12}}{_ROLE_TAIL})(?:[，,].*)?$"), "Identity", "Role", confidence=0.9),
    FactRule("budget", rx(rf"^(?:{_I}的)?(?:每个?月|每年|每周)?(?:的)?(?:\S{{0,6}})?预算(?:是|有|大概)?\s*(?P<v>.+)"), "Constraints", "Budget", confidence=0.85),
    FactRule("employer", rx(rf"^{_I}(?:现在|目前)?在\s*(?P<v>.+?)(?:工作|上班|实习|任职)"), "Identity", "Employer"),
    FactRule("comm-style", rx(rf"^{_I}(?:比较|更)?(?:喜欢|偏好|希望|习惯)(?P<v>.*?(?:结论|直接|简短|简洁|详细|先说|要点|列表|重点).*?)(?:的)?(?:沟通|交流|回答|回复|说明|方式|风格)?$"),
             "Preferences", "Communication style", confidence=0.85),
    FactRule("stack", rx(rf"^(?:{_I}(?:平时|通常|一般|主要)?(?:用|使用)\s*(?P<v>[A-Za-z][\w.+#\s-]*)(?:开发|写代码|编程|做开发)?$|(?:{_I})?(?:的)?(?:常用|平时用|主要用|惯用)?的?技术栈(?:是|：|:)\s*(?P<v2>.+))"),
             "Preferences", "Usual stack"),
    FactRule("location", rx(rf"^(?:现在|目前)?{_I}(?:现在|目前)?(?:住在|居住在|生活在|定居在|住)\s*(?P<v>.+)|^{_I}(?:现在|目前)?在\s*(?P<v2>.+?)(?:生活|居住|定居)$"), "Identity", "Location", confidence=0.9),
    FactRule("moved", rx(rf"^{_I}(?:刚|刚刚|最近|已经|现在|今年|上个月|在.{{1,8}}?年)*(?:从(?P<v2>.+?))?搬(?:家)?(?:到|去|来)(?P<v>.*)"), "Identity", "Location", confidence=0.8),
    FactRule("origin", rx(rf"^{_I}(?:来自|是从)\s*(?P<v>.+)"), "Identity", "Origin"),
    FactRule("birthplace", rx(rf"^{_I}(?:出生在|出生于|生于)\s*(?P<v>(?!\d).+)"), "Identity", "Birthplace"),
    FactRule("born-when", rx(rf"^{_I}(?:出生在|出生于|生于)\s*(?P<v>.+)|^{_I}是(?P<v2>.{{2,10}}?)出生的"), "Identity", "Born"),
    FactRule("age", rx(rf"^{_I}(?:今年|现在)?(?P<v>[\d一二三四五六七八九十两]+岁)"), "Identity", "Age", confidence=0.9),
    FactRule("gender", rx(rf"^{_I}是(?:一个|一名|个)?(?P<v>男生|女生|男性|女性|男人|女人|男孩|女孩)$"), "Identity", "Gender"),
    FactRule("relationship", rx(rf"^{_I}(?:已经|目前|现在)?(?P<v>结婚了|已婚|单身|离婚了|离婚|订婚了|订婚)"), "Identity", "Relationship"),
    FactRule("languages", rx(rf"^{_I}(?:会说|会讲|在学|正在学|学习)(?P<v>.*(?:语|文).*)|^.*{_I}.*(?:正在学习|在学)的语言.*"), "Identity", "Languages", multi=True),
    FactRule("goal", rx(rf"^(?:(?:{_I}的)?(?:今年|明年|这个月|短期|长期|新)?的?(?:目标|梦想|理想)(?:是|：|:)|{_I}的(?:目标|梦想|理想|计划)是|{_I}(?:想|希望|梦想)(?:将来|以后|有一天)?(?:成为|当)|{_I}(?:想|希望|打算)(?=.{{0,10}}(?:年内|年之内|之前|以后|将来|有一天))|{_I}(?:的)?梦想|希望有一天|有一天{_I}想|长大后{_I}想)\s*(?P<v>.+)"),
             "Goals", "Goal", confidence=0.85),
    FactRule("allergies", rx(rf"^{_I}(?P<v>(?:对.+?过敏|.{{0,6}}过敏|乳糖不耐受?|麸质不耐受?).*)"), "Constraints", "Allergies", multi=True, confidence=0.85),
    FactRule("diet", rx(rf"^{_I}(?P<v>(?:只吃|不吃|不喝|吃素|是素食者|吃清真).*)"), "Constraints", "Diet", multi=True, confidence=0.85),
    FactRule("accessibility", rx(rf"^{_I}(?:是)?(?P<v>.{{0,4}}色盲.*|.{{0,2}}聋.*|弱视.*|有阅读障碍.*)"), "Constraints", "Accessibility", confidence=0.85),
    FactRule("timezone", rx(rf"^{_I}的时区是\s*(?P<v>.+)"), "Constraints", "Time zone"),
    FactRule("work-style", rx(rf"^{_I}(?:习惯|喜欢|通常|一般)?(?:在)?(?P<v>(?:晚上|早上|深夜|在家|远程).*(?:工作|写代码|办公).*)"), "Working style", "Work habits", confidence=0.8),
    FactRule("favorite", rx(rf"^{_I}(?:最)?(?:喜欢|爱)的\s*(?P<k>.+?)\s*(?:是|就是)\s*(?P<v>.+)"), "Preferences", "Favorite {k}", confidence=0.9),
    FactRule("tools", rx(rf"^{_I}(?:平时|一般|现在|一直)?(?:用|使用|在用|习惯用)\s*(?P<v>[A-Za-z].*|.{{1,10}}?(?:管理器|软件|工具|应用|笔记本|键盘))"), "Preferences", "Tools", multi=True),
    FactRule("dislikes", rx(rf"^{_I}(?:很|非常|特别|真的)?(?:不喜欢|讨厌|厌恶|受不了|恨|不爱)\s*(?P<v>.+)"), "Preferences", "Dislikes", multi=True),
    FactRule("fears", rx(rf"^{_I}(?:很|非常|特别|最)?(?:怕|害怕|恐惧)(?P<v>.+)"), "Identity", "Fears", multi=True, confidence=0.8),
    FactRule("prefers", rx(rf"^{_I}(?:实际上|其实|还是)?更(?:喜欢|爱|偏爱)(?P<v>.+)|^比起(?P<v2>.+?)[，,]?{_I}更(?:喜欢|爱)(?P<v3>.+)"), "Preferences", "Prefers", multi=True),
    FactRule("favorite-rev", rx(rf"^(?P<v>.+?)是{_I}(?:的)?最爱"), "Preferences", "Favorites", multi=True),
    FactRule("former-role", rx(rf"^{_I}(?:曾经|以前)是(?:一名|一个|一位)?(?P<v>.{{0,10}}(?:{_ROLE_TAIL}))"), "Identity", "Former role", confidence=0.85),
    FactRule("retired", rx(rf"^{_I}(?:现在|已经)?(?P<v>退休)了?"), "Identity", "Role", confidence=0.85),
    FactRule("work-status", rx(rf"^{_I}(?:现在|目前)?(?:没有工作|失业了?|在(?:找|寻找)(?:新)?工作|正在(?:找|寻找)(?:新)?工作)"), "Identity", "Work status", whole=True, confidence=0.8),
    FactRule("location-region", rx(rf"^{_I}(?:本人)?(?:现在|目前)?在(?P<v>.{{2,10}}?(?:州|省|市|县|国))$"), "Identity", "Location", confidence=0.8),
    FactRule("likes", rx(rf"^{_I}(?:很|非常|特别|真的|也|最|超级|超|一直|还|都)*(?:喜欢|热爱|爱|享受|喜爱|迷上了|着迷于|痴迷于)\s*(?P<v>.+)"), "Preferences", "Likes", multi=True),
    FactRule("fan", rx(rf"^{_I}(?:也|还)?是(?:一个|个)?(?P<v>.+?(?:迷|粉丝|爱好者|发烧友))$"), "Preferences", "Likes", multi=True),
    FactRule("pets", rx(rf"^(?:.*{_I}(?:也|还|都)?(?:有|养了?|养着)[^，,]*{_PETS}.*|{_I}(?:唯一)?的{_PETS}.*|.*{_PETS}和{_I}(?:住|生活)在一起.*)"), "Identity", "Pets", multi=True, whole=True),
    # A close person counts when the sentence places them in the user's life, not for their own tastes ("我老婆是素食者").
    FactRule("family", rx(rf"^(?:.*{_I}(?:的)?{_FAMILY}(?:今年|现在|已经|刚|也|都)?(?:是(?:一名|一个|一位|个|名)?.{{0,10}}(?:{_ROLE_TAIL})|在|住|叫|名叫|[\d一二三四五六七八九十两]+岁|"
                          rf"去世|退休|上|读|工作|和{_I}|有|教{_I}|卖|开|经营|当).*|{_I}(?:有|怀着|怀了)[^，,]*(?:{_FAMILY}|孩子).*|{_I}和{_I}的{_FAMILY}.*)"), "Identity", "Family", multi=True, whole=True),
    FactRule("appearance", rx(rf"^(?:{_I}(?:有|留着)[^，,]*{_APPEARANCE}.*|{_I}的{_APPEARANCE}.*|{_I}(?:很)?(?:高|矮|瘦|胖)$)"), "Identity", "Appearance", multi=True, whole=True),
    FactRule("beliefs", rx(rf"^{_I}(?:是|信)(?P<v>.*(?:教徒|佛教|基督教|伊斯兰教|天主教|无神论者|穆斯林))"), "Identity", "Beliefs"),
    FactRule("background", rx(rf"^(?:{_I}(?:以前|过去|小时候|从小|退休|毕业|在.+长大|出生)|小时候|{_I}.*(?:长大|退休了|毕业)).*"),
             "Identity", "Background", multi=True, whole=True),
    FactRule("hobbies", rx(rf"^(?:{_I}(?:经常|平时|业余|周末|一般|常常|有时|偶尔)*(?:去|会)?(?:爬山|玩|打|踢|弹|画|唱|跳|跑步|游泳|做饭|烘焙|看|读|写|听(?!起来|说|的时候)|收集|种|钓鱼|骑|旅行|徒步|当志愿者)|(?:周末|业余时间|空闲时间){_I}).*"),
             "Preferences", "Hobbies", multi=True, whole=True),
    FactRule("owns", rx(rf"^{_I}(?:也|还|都)?(?:有|拥有)(?P<v>(?:[\d一二三四五六七八九十两几]+|一辆|一台|一栋|一套|一座|一家)(?!.*(?:朋友|问题|想法|主意))(?!天|次|点).+)"),
             "Identity", "Owns", multi=True, confidence=0.75),
    FactRule("habits", rx(rf"^{_I}(?:经常|通常|总是|一般|从不|很少|每天|每周|花了?|只|常常|平时|吃|喝|睡|开着?|骑).*"), "Preferences", "Habits", multi=True, whole=True),
)

LEXICON = Lexicon(
    lang="zh",
    first_person=rx(r"我(?!们)|本人"),
    plural_person=rx(r"我们|咱们|团队|我司"),
    subject=rx(r"^(?:我|本人)(?:的)?"),
    greeting=rx(r"^(?:你好|您好|嗨|哈喽|哈啰|早上好|晚上好|下午好|大家好|hi|hello)[\s，,！!。.~]*"),
    phatic=rx(r"^(?:谢谢|感谢|多谢|好的|好|行|可以|嗯+|哦+|对|是的|没错|明白|知道了|了解|收到|好滴|OK|ok|哈哈+|再见|拜拜|晚安|早安|你好|您好|辛苦了)(?:你|您|啦|了|呀|哈|哦|啊|！|!|。|~)*$"),
    discourse=rx(r"^(?:那就是|其实|实际上|对了|另外|还有|而且|并且|但是|不过|所以|那|嗯|哦|然后|现在|好的|好|对|是的|没错|行|也就是说|就是说|所以说|"
                 r"不好意思|抱歉|更正一下|更正|纠正一下|顺便说下|顺便说一下|顺便提一下|顺便|说一下|跟你说|告诉你)[\s，,：:]*"),
    correction=rx(r"其实|实际上|现在|不再|改成|更正|我是说"),
    question=rx(r"[?？]\s*$|[吗呢么]\s*[。.！!]?$|^(?:请问|为什么|怎么|什么|哪|谁|能不能|可不可以|是不是|有没有|你(?:能|可以|会|知道))"),
    request=rx(r"^.{1,12}(?:改|缩|写|换|调)(?:短|长|成|得|一下|一点).*|.*(?:呗|一下吧)$|^(?:推荐|请|请你|麻烦|帮我|帮忙|帮|把|给我|替我|翻译|改|改成|缩短|精简|总结|写|生成|列出|解释|检查|修改|删掉|添加|加上|换成|重写|润色|发|发送|查|计算|用|不要|别|你(?:能|可以)|能不能|可以帮)"),
    remember=rx(r"^(?:请)?(?:记住|记一下|记下|请记住|帮我记住|别忘了|备注|提醒一下|提醒你一下|提醒你)[：:，,\s]*(?:一下)?[：:，,\s]*"),
    standing=rx(r"^(?:请)?(?:以后|今后|从现在开始|从今以后|总是|始终|永远|每次)|(?:以后|今后|从现在开始)(?:都|请)?"),
    forget=rx(r"^(?:请)?(?:(?:忘记|忘掉|别再记(?:着|住)?|别记(?:着|住)?|不用再记(?:着)?|不要再记(?:着)?|不要记(?:着|住)?|不用记(?:着)?)\s*(?:关于)?\s*(?P<t>.+?)(?:了)?$|"
              r"(?:删除|删掉|移除|清除)\s*(?:关于)?\s*(?P<t3>(?=.*我).+?)(?:了)?$)|"
              r"^(?:请)?把\s*(?P<t2>.+?)\s*(?:那条|这条|那一条|这一条)?(?:记录|笔记)?(?:删了|删掉|删除|去掉|忘掉|忘了)"),
    hedge=rx(r"也许|可能|好像|大概|说不定|或许|有点儿?|有一点|不太确定|不确定|不知道|随便|差不多|应该吧|似乎|估计|还行|也行|都行|无所谓|看情况|凑合|再说吧|还没想好"),
    mood_state=rx(r"抱歉|对不起|很遗憾|真遗憾|听到.{0,6}(?:难过|遗憾)|有点紧张|好紧张|很紧张|开玩笑|心情(?:很|好|超|特别)?(?:差|不好|好|糟)|好丧|很丧|太丧|丧气|头(?:好|很|有点)?(?:疼|痛|晕)|(?<!积)累(?!计|积)|困(?!难|境|扰|惑)|饿|(?<!口)渴(?!望)|头疼|头痛|难受|烦死|好烦|心烦|郁闷|心情不好|心情很好|没精神|疲惫|疲倦|不舒服|想睡|发烧|感冒了"),
    mood_emotion=rx(r"无聊|开心|高兴|难过|伤心|生气|兴奋|紧张|焦虑|沮丧|烦|烦躁|失落|郁闷|孤单|寂寞|崩溃|爽|不错|糟糕"),
    now_marker=rx(r"今天|现在|此刻|今晚|今早|这会儿|刚才|目前"),
    moment=rx(r"今天|此刻|今晚|今早|这会儿|现在有点|现在好|现在很"),
    temporary=rx(r"出差|旅行中|度假|旅游中|开会期间|这几天|这周|临时"),
    project_cue=rx(r"服务|支付|价格|定价|会员价|报价|套餐|环境|线上|宕机|挂了|故障|部署|上线|发布|发版|合并|迁移|重构|回滚|修复|bug|BUG|Bug|接口|API|api|数据库|服务器|后端|前端|版本|v\d|迭代|冲刺|截止|"
                   r"里程碑|需求|功能|项目|原型|演示|demo|页面|首页|网站|官网|应用|App|app|仪表盘|设计|客户|会议|评审|代码|仓库|分支|团队|在开发"),
    decision_cue=rx(r"就用|约定|说好|约好|商量好|谈好|归他|归她|由他|由她|决定|定了|确定|同意|商定|选择|选了|选用|改用|换成|改成|换了|采用|敲定|用了|使用"),
    done=rx(r"了|过|完成|正在做|在做|在开发|在搞|负责"),
    save_contact=rx(r"(?:保存|记住|记下|存一下|添加).{0,15}(?:邮箱|邮件|电话|手机|号码|地址|联系方式)"),
    language_word=rx(r"(?:简体|繁体)?(?:中文|英文|英语|汉语|印尼语|泰语|日语|韩语|粤语)"),
    trailing=rx(r"[\s，,；;]*(?:这个|这点)?(?:你|请)?(?:记一下|记住|记下)?(?:了|啦|呢|哦|呀|吧|啊|现在|目前|的)?[\s，,；;]*$"),
    no_longer=rx(r"不再|已经不|现在不.+了|戒了|戒掉|不.+了$"),
    meant=rx(r"^(?:不好意思|抱歉|sorry)?[，,\s]*(?:我是说|我的意思是|应该是)\s*(?P<new>.+?)[，,\s]*不是\s*(?P<old>.+)$"),
    switched=rx(r"从\s*(?P<old>.+?)\s*(?:换成|改成|改用|换到|切到|迁到|转到)了?\s*(?P<new>.+)$"),
    facts=FACTS,
    second_person=rx(r"你|您"),
    empty_value=rx(r"^(?:它|这|那|这个|那个|他们|它们|她们|都|也是|一样|这样|那样|玩|赢了)$|它|他们|她们|这样|那样|这个|那个|^(?:这|那)"),
    addressed=rx(r"你|您|回答|回复|答复|用.{0,6}(?:语|文)|解释|叫我|给我|提醒我|列表|要点|简短|简洁"),
    key_words={"颜色": "color", "食物": "food", "菜": "food", "饮料": "drink", "乐队": "band", "音乐": "music", "电影": "movie",
               "书": "book", "作家": "author", "歌手": "singer", "季节": "season", "运动": "sport", "动物": "animal", "电视节目": "TV show",
               "节目": "TV show", "游戏": "game", "歌": "song", "歌曲": "song", "地方": "place", "城市": "city", "水果": "fruit",
               "演员": "actor", "球队": "team", "语言": "language", "编程语言": "programming language", "作者": "author", "花": "flower"},
    field_words={"我住哪": "Location", "住在哪": "Location", "地址": "Location", "名字": "Name", "姓名": "Name", "职业": "Role", "工作": "Role", "职位": "Role", "角色": "Role", "住址": "Location",
                 "位置": "Location", "城市": "Location", "公司": "Employer", "年龄": "Age", "沟通方式": "Communication style",
                 "沟通风格": "Communication style", "目标": "Goal", "饮食": "Diet", "爱好": "Hobbies", "宠物": "Pets", "家人": "Family",
                 "语言": "Languages", "时区": "Time zone"},
)
