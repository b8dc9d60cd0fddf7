"""Chinese cue words: the words that name a profile key ("my brother ..." is Family), and plan words."""

from __future__ import annotations

import re

from pipeline.engines.offline.lang.contract import Cues
from pipeline.engines.offline.lexicon import cue_chars

CUES = Cues(
    key_cues={
        "Relationship": cue_chars("单身", "离婚", "离异", "丧偶", "订婚", "妻子", "老婆", "太太", "丈夫", "老公", "男友", "女友", "男朋友",
                                  "女朋友", "结婚"),
        "Family": cue_chars("儿子", "女儿", "孩子", "父母", "爸爸", "妈妈", "父亲", "母亲",
                            "哥哥", "姐姐", "弟弟", "妹妹", "爷爷", "奶奶", "外婆", "外公", "家人", "怀孕", "宝宝", "独生", "养父", "养母", "孙子", "孙女", "三胞胎", "双胞胎"),
        "Pets": cue_chars("狗", "猫", "宠物", "鹦鹉", "兔子", "仓鼠", "乌龟", "柯基", "金鱼", "锦鲤"),
        "Work": cue_chars("工作", "上班", "退休", "职业", "公司", "生意", "老板", "开店", "店里", "客户", "当老师", "当医生",
                          "护士", "司机", "工程师", "设计师", "程序员"),
        "Education": cue_chars("学校", "大学", "学生", "上学", "专业", "本科", "高中", "初中", "考试", "研究生", "毕业", "读书", "年级"),
        "Origin": cue_chars("老家", "来自", "出生", "长大", "家乡"),
        "Location": cue_chars("住", "城市", "公寓", "搬到", "搬来", "农场", "小镇", "村里", "农村"),
        "Diet": cue_chars("吃素", "素食", "吃肉", "清真", "不吃", "吃辣", "不能吃"),
        "Languages": cue_chars("会说", "会讲", "母语", "说英语", "说法语", "说中文", "讲英语"),
        "Hobbies": cue_chars("爱好", "玩", "打球", "篮球", "足球", "乒乓球", "收集", "园艺", "钓鱼", "看书", "读书", "小说", "画画",
                             "唱歌", "跳舞", "做饭", "烘焙", "音乐", "游戏", "运动", "吉他", "钢琴", "跑步", "游泳", "旅行", "旅游",
                             "爬山", "健身", "瑜伽", "电影", "看剧"),
        "Likes": cue_chars("喜欢", "爱", "最爱", "迷", "粉丝", "热衷"),
        "Owns": cue_chars("开车", "汽车", "摩托", "游艇"),
    },
    planned=re.compile("打算|准备|计划|将要|就要|快要"),
)
