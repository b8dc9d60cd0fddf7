"""English words the splitter, the rules, the extractor, consolidation and the sensitive-data check read."""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang.contract import Phrases

_VERBS = r"(?:love|like|enjoy|have|live|work|hate|prefer|own|play|speak|volunteer|teach|study)"

PHRASES = Phrases(
    # -- splitting --
    abbreviations=r"\b(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|prof|st|no|jr|sr|inc|ltd|approx|p\.o|u\.s)\.|\b[A-Z]\.",
    clause_conjunctions=r"and|but|also|plus",
    clause_leads=r"btw|by the way|oh|anyway|also",
    clause_subjects=r"i|i'm|i've|i'd|my|we|we're|our",
    clause_instructions=r"always|never|please|pls",
    clause_questions=r"what|where|how|who|which|do you|are you|have you|did you|and you|what about you|how about you",
    clause_cuts=rf",?\s+and\s+(?=(?:also\s+)?{_VERBS}\b)",
    apposition_heads=r"i'm|i am|im|my name is",
    apposition_article=r"an?",
    apposition_subject="I'm ",
    asked={
        "Name": r"\b(?:your|the)\s+(?:full\s+|first\s+|last\s+)?name\b|\bwho (?:am i|is this|do i have the pleasure)\b|"
                r"\bname (?:for|on|under) the (?:reservation|booking|order|account|party)\b",
        "Origin": r"\bwhere (?:are|r) (?:you|u) (?:originally )?from\b|\bwhere did (?:you|u) grow up\b|\bwhere(?:'s| is) your home ?town\b",
        "Location": r"\bwhere do (?:you|u) live\b|\bwhere (?:are|r) (?:you|u) (?:based|located|living)\b|"
                    r"\bwhat (?:city|town|state|country) do (?:you|u) live in\b",
    },
    self_clause=r"i'm|i am|im|i've|i\s+(?:have|live|work|love|like|am)",
    plural_start=r"we|we're|we've|our",
    fragment_subjects=(
        (lazy_compile(r"^(?:an?)\s+\w", re.I), "I'm "),
        (lazy_compile(rf"^(?:also\s+)?{_VERBS}\b", re.I), "I "),
    ),
    plural_subjects={"I ": "we "},
    # -- routing --
    topic_named=r"\b(?:project|repo|repository)\s+[\"'`]?([A-Za-z0-9][\w.-]*[A-Za-z0-9])",
    not_names=frozenset({
        "and", "or", "but", "to", "for", "with", "from", "of", "on", "in", "at", "by", "into", "is", "was", "are", "were",
        "has", "had", "will", "would", "can", "that", "this", "the", "a", "an", "my", "our", "your", "their", "its", "it",
        "i", "we", "you", "they", "he", "she", "last", "next", "today", "yesterday", "tomorrow", "tonight", "week", "month",
        "year", "so", "as", "again", "too", "also", "now", "then", "today's", "got", "went", "manager", "management",
        "plan", "plans", "work", "team", "meeting", "deadline", "update", "updates", "files", "file", "folder", "page",
    }),
    kebab_not_topics=frozenset({
        "conclusion-first", "e-mail", "follow-up", "front-end", "back-end", "real-time", "long-term", "short-term",
        "part-time", "full-time", "ping-pong", "x-ray", "t-shirt", "well-known", "self-hosted", "open-source",
        "step-by-step", "up-to-date", "one-on-one", "co-founder", "in-laws", "non-binary", "gluten-free", "sugar-free",
        "check-in", "log-in", "sign-up", "end-to-end", "high-level", "low-level", "day-to-day", "state-of-the-art",
        "re-write", "pull-request", "mid-century",
    }),
    agreement=r"(?:let's|lets|let us)\s+(?:use|go with|stick with|switch to|adopt|pick|choose|move to)\b",
    goal_hint=(r"\b(?:someday|one day|eventually|in the future|dream|become|be an?|retire|in the next \d+ years|in \d+ years|"
               r"by 20\d\d|before i die)\b"),
    contrast_tail=r",\s*(?:not)\s+.+",
    contrast_head=r"not",
    chronic=(r"\b(?:always|often|usually|constantly|easily|all the time|every (?:day|morning|night)|whenever|when i|"
             r"chronic)\b"),
    participle_after=(r"(?:always|never|whenever)\s+(?:\w+ed|done|been|seen|gone|had|heard|known|thought|got|gotten|"
                      r"made|met|read|felt|found|taken|given|eaten|drunk|won|lost|understood|worn|sung|flown)\b"),
    agreed=r"\b(?:decided|agreed)\b",
    habitual=(r"\b(?:usually|always|typically|normally|generally|tend to|every (?:day|morning|week|evening)|"
              r"first thing)\b"),
    as_you_said=r"\b(?:as you said|like you said|as you mentioned|like you mentioned|you're right|you are right)\b",
    evaluative_lead=r"that's|thats|that is|so|very|how",
    evaluative=r"cool|great|nice|awesome|amazing|wow|interesting|fun|lovely",
    sharing=r"\b(?:too|also|as well|me too|same here)\b",
    pointer=r"this|that|it|these",
    stop_words=frozenset({
        "the", "a", "an", "is", "are", "was", "to", "of", "in", "on", "for", "and", "or", "my", "about", "that", "this",
        "it", "note", "entry", "bit", "part", "dead", "off",
    }),
    filler_words=frozenset({
        "i", "me", "you", "your", "he", "she", "him", "her", "they", "them", "we", "us", "its", "it's", "their", "there",
        "here", "so", "too", "much", "very", "really", "all", "one", "ones", "some", "any", "thing", "things", "stuff",
        "lot", "lots", "also", "just", "well", "both", "more", "most", "that's", "what", "which", "who", "how", "do",
        "did", "does", "be", "been", "have", "has", "had", "not", "no", "yes", "lol", "haha", "kind", "sort", "way", "as",
        "at", "by", "with", "from",
    }),
    subjects=r"i|i'm|im|we",
    subject_adverbs=r"actually|really|now|currently|still|also|just|totally",
    leading_phrase=(r"(?:in|on|at|since|back in|around|during|these days|nowadays|now|currently|lately)\b[^,]{0,24}?,?\s+"
                    r"(?=(?:i|i'm|i've|my)\b)"),
    keep_it=r"(?:keep|make)\s+(?:it|them|things|answers|replies|responses)\s+(?=\w)",
    first_clause_words=r"because|cause|since|so|but|which|who",
    correction_cues=r"\b(?:meant|from)\b",
    showing=(r"(?:here'?s|here is|here are|this is|these are|check out|look at|see)\s+(?:a |an |the |my |our |some )?"
             r"(?:\w+\s+)?(?:pic|pics|picture|pictures|photo|photos|snap|selfie|video|clip|link|screenshot|shot)s?\b"),
    advice=r"(?:(?:please|pls)\s+)?(?:(?:don't|do not|dont) forget|remember) to\b",
    pleasantry=r"(?:it'?s\s+|it\s+is\s+)?(?:always|never\s+not)\s+(?:so\s+|such\s+)?(?:a\s+)?(?:good|great|nice|fun|"
               r"lovely|awesome|wonderful|pleasure|joy|treat)\b",
    polite=r"please\s+|pls\s+",
    negative_instruction=r"never|don't|do not|stop|no",
    forget_lead=r"my|that|the|about",
    forget_tail=r"anymore|please",
    # "data engineer in Porto", "nurse at St. Mary's": only a capitalised name counts ("a teacher in a small school"
    # stays one role); "in" names the Location, "at"/"for" the Employer.
    role_where=lazy_compile(r"^(?P<role>.+?)\s+(?P<prep>in|at|for)\s+(?:the\s+)?"
                            r"(?P<place>[A-Z][\w.&'-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w.&'-]*){0,3})$"),
    place_keys={"in": "Location", "at": "Employer", "for": "Employer"},
    # -- the engine, consolidation, the keyer --
    material=(r"\b(?:translate|summari[sz]e|rewrite|re-write|proofread|paraphrase|fix|edit|shorten|improve|polish|check|"
              r"format|review|reword|correct)\b[^\n:]{0,30}?\b(?:this|these|the following|below|it|that)\b[^\n:]{0,30}[:\n]"),
    about_before=r"it was|it's|it is|that was|that's|this was|turned out (?:it was|to be)",
    topic_stop_words=frozenset("""
        a an and or but so then also just the this that these those it its to of in on at for with from by as is are was
        were be been i we you he she they me my our your his her their us them not no yes ok okay note notes update
        updates today yesterday tomorrow tonight last next first second third later now soon before after again still
        even only also here there what when where why how which who all some any more most less other another new old
        one two three plus via
    """.split()),
    change_cues=r"\b(?:switched|changed|moved|migrated|replaced|instead|now|no longer|renamed|upgraded|postponed)\b",
    merge_stop_words=frozenset({
        "the", "a", "an", "to", "of", "in", "on", "for", "and", "is", "are", "was", "we", "our", "it", "with", "from",
    }),
    # -- the sensitive-data check --
    identifier_words=r"zip ?code|postal ?code|post ?code|passport|licen[cs]e plate|number plate",
    # -- the extractor --
    subject_words=frozenset({"i", "i'm", "im", "my", "i've", "me"}),
    value_lead_drop=frozenset({
        "and", "but", "or", "so", "then", "because", "cause", "also", "just", "really", "actually", "well", "um", "oh",
        "i", "i'm", "im", "i've", "ive", "i'd", "me", "my", "am", "is", "are", "was", "were", "be", "been", "as", "that",
        "which", "who", "too", "currently", "now", "still",
    }),
    value_tail_drop=frozenset({
        "and", "or", "but", "so", "to", "of", "the", "a", "an", "in", "on", "at", "with", "for", "from", "by", "my",
        "your", "is", "are", "was", "were", "be", "that", "which", "who", "because", "like", "as", "too", "also", "very",
        "really", "now", "lol", "haha", "though", "right", "i", "you", "it", "there", "here", "then", "just", "either",
        "anyway",
    }),
    phrase_openers=frozenset({"with", "in", "at", "on", "for", "from", "of", "to", "by", "about"}),
    negations=frozenset({
        "not", "never", "no", "don't", "dont", "doesn't", "doesnt", "didn't", "didnt", "can't", "cant", "cannot",
        "won't", "isn't", "aren't", "wasn't", "haven't", "hasn't", "hardly",
    }),
    auxiliaries=frozenset({"do", "does", "did", "can", "will", "would", "am", "is", "are", "have", "has"}),
    second_person_words=frozenset({"you", "your", "you're", "yours", "u", "ur"}),
    contentless=frozenset({
        "it", "this", "that", "they", "them", "these", "those", "thing", "things", "stuff", "one", "ones", "some", "lot",
        "lots", "much", "many", "all", "both", "good", "nice", "cool", "fun", "great", "ok", "okay", "yes", "no", "yeah",
        "do", "does", "did", "have", "has", "had", "get", "got", "go", "like", "love", "well", "here", "there", "kind",
        "sort", "way", "time", "times", "day", "days",
    }),
)
