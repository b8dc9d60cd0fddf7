"""English cue words: the words that name a profile key ("my brother ..." is Family), and plan words."""

from __future__ import annotations

import re

from pipeline.engines.offline.lang.contract import Cues
from pipeline.engines.offline.lexicon import cue_words

CUES = Cues(
    key_cues={
        "Relationship": cue_words("single", "divorced", "widowed", "widow(?:er)?", "engaged", "wife", "husband", "boyfriend",
                                  "girlfriend", "fianc[eé]e?", "married", "spouse"),
        "Family": cue_words("sons?", "daughters?", "kids?", "child", "children", "babies", "baby", "mom",
                            "mum", "mother", "dad", "father", "parents", "brothers?", "sisters?", "siblings?", "grandma",
                            "grandmother", "grandpa", "grandfather", "grand(?:kids|children|sons?|daughters?)", "aunt", "uncle",
                            "cousins?", "nephews?", "nieces?", "family", "twins",
                            "triplets", "pregnant", "step(?:son|daughter|mom|dad|kids)", "in-laws"),
        "Pets": cue_words("dogs?", "pupp(?:y|ies)", "cats?", "kittens?", "pets?", "parrots?", "hamsters?", "rabbits?", "bunn(?:y|ies)",
                          "turtles?", "tortoises?", "goldfish", "guinea pigs?", "lizards?", "iguanas?", "ferrets?", "horses?"),
        "Work": cue_words("work", "works", "working", "worked", "job", "career", "retired", "business", "shift", "employed",
                          "boss", "office", "salon", "factory", "freelanc(?:e|er|ing)", "for a living", "clients?", "customers?"),
        "Education": cue_words("school", "college", "university", "uni", "student", "studying", "study", "studied", "class(?:es)?",
                               "grade", "degree", "major(?:ing)?", "exams?", "thesis", "phd", "masters?", "graduated?", "semester"),
        "Origin": cue_words("grew up", "born", "hometown", "originally", "raised"),
        "Location": cue_words("live", "lives", "living", "lived", "town", "city", "apartment", "neighbou?rhood", "moved", "farm",
                              "countryside", "suburbs?", "village"),
        "Diet": cue_words("vegetarian", "vegan", "pescatarian", "meat", "pork", "beef", "gluten", "dairy", "halal", "kosher",
                          "spicy"),
        "Languages": cue_words("speak", "speaks", "fluent", "bilingual", "native language", "mother tongue"),
        "Hobbies": cue_words("hobb(?:y|ies)", "play(?:s|ing)?", "collect(?:s|ing)?", "garden(?:ing)?", "hik(?:e|es|ing)",
                             "fishing", "read(?:s|ing)?", "paint(?:s|ing)?", "sing(?:s|ing)?", "danc(?:e|es|ed|ing)", "cook(?:s|ing)?",
                             "bak(?:e|es|ed|ing)", "knit(?:s|ting)?", "sew(?:s|ing)?", "music", "games?", "gaming", "sports?", "guitar",
                             "piano", "run(?:s|ning)?", "swim(?:s|ming)?", "camping", "travel(?:s|ing|ling)?", "surf(?:s|ing)?",
                             "yoga", "gym", "volunteer(?:s|ing)?", "watch(?:es|ing)?", "movies?", "books?", "novels?"),
        "Likes": cue_words("like", "likes", "love", "loves", "enjoy", "enjoys", "favou?rites?", "fan", "into", "obsessed", "adore"),
        "Owns": cue_words("own", "owns", "drive", "drives", "car", "truck", "motorcycle", "boat"),
    },
    planned=re.compile(r"\b(?:will|won't|gonna|going to|'ll|plan(?:s|ning)? to|about to)\b", re.IGNORECASE),
)
