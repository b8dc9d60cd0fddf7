"""Chinese words the splitter, the rules, the extractor, consolidation and the sensitive-data check read."""

from __future__ import annotations

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang.contract import Phrases

PHRASES = Phrases(
    # -- splitting --
    clause_cuts=r"(?:[，；]|(?<=[\u4E00-\u9FFF]),)\s*(?:而且|并且|另外|还有|但是|不过|同时)?|(?:而且|并且|另外|同时)(?=我)",
    fragment_subjects=((lazy_compile(r"^(?:一名|一个|一位|一只)"), "我是"),),
    # -- routing --
    topic_named=r"项目\s*[\"'「]?([A-Za-z0-9][\w.-]*)|([A-Za-z0-9][\w.-]*)\s*项目",
    contrast_tail=r"[，,]\s*不是.+",
    contrast_head=r"不是|并不是",
    chronic=r"经常|总是|容易|一直|每次",
    agreed=r"决定|定了|商定",
    habitual=r"通常|一般|每天|总是",
    as_you_said=r"如你所说|你说得对|正如你说",
    evaluative=r"不错|很好|太好了|厉害|有意思",
    sharing=r"也",
    pointer=r"这个|这",
    correction_cues=r"我是说|我的意思|应该是|从",
    showing=r"(?:这是|这张|看看)(?:我的)?(?:照片|图|视频|链接)",
    advice=r"别忘了|不要忘了|记得",
    negative_instruction=r"不要|别|不用",
    forget_lead=r"我的",
    # -- the engine, consolidation, the keyer --
    material=r"(?:翻译|总结|改写|润色|修改|检查|校对|缩写)[^\n：:]{0,20}?[：:\n]",
    about_before=r"那是|那个是|原来是",
    topic_stop_words=frozenset("和 或 但是 然后 今天 昨天 明天 这 那 我 我们".split()),
    change_cues=r"改成|换成|改用|迁到|现在|不再",
    # -- the sensitive-data check --
    identifier_words=r"邮编|邮政编码|身份证|车牌|护照",
    # -- the extractor --
    subject_words=frozenset({"我"}),
    value_lead_drop=frozenset({"和", "而且", "但是", "我", "是", "在", "也", "就", "都", "还", "了", "的", "吗"}),
    # Not 都: an adverb before a verb, never the end of a value, and the last character of 成都, 首都, 京都.
    value_tail_drop=frozenset({
        "的", "了", "和", "在", "吗", "呢", "吧", "啊", "呀", "哦", "嘛", "也", "很", "我", "你", "是", "就",
    }),
    negations=frozenset({"不", "没", "别", "未"}),
    second_person_words=frozenset({"你", "您"}),
    contentless=frozenset({"这", "那", "这个", "那个", "东西"}),
)
