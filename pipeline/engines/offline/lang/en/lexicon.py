"""English word lists and statement shapes."""

from __future__ import annotations

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lexicon import FactRule, Lexicon, rx, words

_I = r"(?:i'm|i am|i m|im|i've|i ve|ive|i have|i'd|i d|i'll|i ll|i)"
ROLE_HEAD = words(
    "engineer", "developer", "designer", "teacher", "nurse", "doctor", "lawyer", "accountant", "manager",
    "student", "writer", "artist", "musician", "chef", "cook", "farmer", "driver", "pilot", "scientist",
    "programmer", "analyst", "consultant", "architect", "founder", "ceo", "cto", "lead", "intern",
    "wrestler", "coach", "translator", "electrician", "plumber", "carpenter", "mechanic", "cashier",
    "waiter", "waitress", "bartender", "librarian", "professor", "researcher", "officer", "soldier",
    "veteran", "firefighter", "police", "cop", "dentist", "vet", "veterinarian", "pharmacist", "baker",
    "photographer", "journalist", "editor", "actor", "actress", "singer", "dancer", "athlete", "player",
    "guide", "custodian", "janitor", "clerk", "secretary", "assistant", "freelancer", "contractor",
    "entrepreneur", "owner", "salesman", "saleswoman", "agent", "broker", "banker", "trader", "tester",
    "administrator", "admin", "sre", "devops", "pm", "tutor", "lecturer", "surgeon", "therapist",
    "psychologist", "major", "worker", "miner", "fisherman", "builder", "beekeeper", "rancher", "dev", "scientist",
    "specialist", "strategist", "marketer", "recruiter", "nanny", "caregiver", "housewife", "homemaker", "retiree",
    "policeman", "policewoman", "lumberjack", "instructor", "associate", "hairdresser", "barber", "stylist", "butcher", "tailor",
    "seamstress", "welder", "gardener", "lifeguard", "paramedic", "housekeeper", "salesperson", "realtor", "stripper", "firefighter",
)
_FAMILY = words(
    "mother", "mom", "mum", "father", "dad", "parents", "sister", "sisters", "brother", "brothers",
    "siblings", "wife", "husband", "spouse", "partner", "boyfriend", "girlfriend", "son", "sons",
    "daughter", "daughters", "kids", "kid", "children", "child", "family", "grandma", "grandmother",
    "grandpa", "grandfather", "grandparents", "aunt", "uncle", "cousin", "cousins", "fiance", "fiancee",
    "twin", "baby", "step", "in-laws",
)
_PETS = words(
    "dog", "dogs", "cat", "cats", "puppy", "kitten", "pet", "pets", "cow", "horse", "horses", "fish",
    "bird", "birds", "parrot", "hamster", "rabbit", "bunny", "snake", "lizard", "turtle", "goat",
    "pig", "chickens", "ferret", "guinea pig",
)
_APPEARANCE = words("hair", "eyes", "skin", "tall", "short", "tattoo", "tattoos", "beard", "freckles", "skinny", "weigh")

FACTS: tuple[FactRule, ...] = (
    FactRule("name", rx(r"^(?:my name is|my name's|i am called|i'm called|im called|call me|people call me)\s+(?P<v>[^,;]+?)(?=\s+(?:i|and i|but i|so i)\b(?!\.)|\s*[,;.!?]|$)"),
             "Name", confidence=0.95),
    FactRule("name-intro", lazy_compile(r"^(?:[Ii]'m|[Ii] am|[Ii]m|[Tt]his is)\s+(?!(?:Fine|Good|Great|Ok|Okay|Sorry|Sure|Here|Back|Done|Ready|Home|Tired|"
                                       r"Well|Alright|Happy|Sad|New|Not|So|Just|Also|Still|Glad|Busy|Free|Late|Hungry|Excited)\b)(?P<v>[A-Z][a-zA-Z'-]+(?:\s+[A-Z][a-zA-Z'-]+)?)"
                                       r"(?:\s*[,.!]*\s*(?:(?:nice|pleased|glad|good) to meet you\b.*|\W*)|\s+here|,?\s+(?:and\s+)?[Ii](?:'[dm]|'ll| am| would| need| want| have| was)\b.*)$"),
             "Name", confidence=0.8),
    FactRule("role-explicit", rx(r"^(?:i work as|i'm working as|i am working as|i'm employed as|i am employed as|i'm now|i am now|"
                                 r"my (?:job|role|position|profession|title|occupation) is|i got promoted to|i was promoted to|"
                                 r"i've been promoted to|i work full ?time as|i work part ?time as|i work\b.{1,30}?\bas)\s+(?:an?\s+|the\s+)?(?P<v>.+)"),
             "Role", confidence=0.95),
    FactRule("role-noun", rx(rf"^(?:i'm|im|i m|i am)\s+(?:now\s+|also\s+|currently\s+)?(?:an?\s+|the\s+)(?P<v>(?:[\w-]+\s+){{0,3}}{ROLE_HEAD}s?\b.*)"),
             "Role", confidence=0.9),
    FactRule("employer", rx(r"^i (?:work|am working|'m working|intern)(?: part[- ]time| full[- ]time)? (?:at|for)\s+(?P<v>.+)"), "Employer"),
    FactRule("comm-style", rx(r"^i (?:really )?(?:prefer|like|want|love|appreciate)\s+(?P<v>.+?(?=\s+communication\b)|.+?\s+(?:answers|responses|replies|explanations|feedback)\b.*)"),
             "Response style", confidence=0.9),
    FactRule("stack", rx(r"^(?:my (?:usual |main |tech |default |go-to |preferred )?stack is|i (?:usually|mostly|always) (?:use|code in|write|build with|work with))\s+(?P<v>.+)"),
             "Usual stack", confidence=0.85),
    FactRule("location", rx(r"^(?:i (?:live|am living|'m living|reside|am based|'m based|stay)|i'm based|im based)\s+(?:in|at|near|on)\s+(?P<v>.+)"),
             "Location", confidence=0.9),
    FactRule("moved", rx(r"^i (?:just |recently )?(?:moved|relocated) (?:here )?(?:to|from)\s+(?P<v>.+)"), "Location", confidence=0.8),
    FactRule("origin", rx(r"^(?:i'm|i am|im) (?:originally )?from\s+(?P<v>.+)|^i (?:come|came) from\s+(?P<v2>.+)"),
             "Origin", confidence=0.85),
    FactRule("birthplace", rx(r"^i was born in\s+(?P<v>(?!(?:the\s+)?(?:early|late|mid)?\s*'?\d)[^\d].*)"), "Origin"),
    FactRule("born-on", rx(r"^i was born on\s+(?P<v>.+)"), "Birthday"),
    FactRule("born-when", rx(r"^i was (?P<v>born in\s+.+)"), "Age"),
    FactRule("age", rx(r"^(?:i'm|i am|im)\s+(?P<v>\d{1,3}(?:\s+years?\s+old)?|(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[\w-]*(?:\s+years?\s+old)?)$|^my age is\s+(?P<v2>.+)"),
             "Age", confidence=0.9),
    FactRule("gender", rx(r"^(?:i'm|i am|im)\s+(?:an?\s+)?(?P<v>male|female|man|woman|guy|girl|boy|lady|gentleman|(?:non-?binary))$"), "Gender"),
    FactRule("beliefs", rx(r"^(?:i'm|i am|im|i m)\s+(?:a |an )?(?:devout |practicing |practising )?(?P<v>christian|muslim|buddhist|hindu|jewish|jew|atheist|agnostic|catholic|protestant|mormon|sikh)\b.*"),
             "Beliefs"),
    FactRule("relationship", rx(r"^(?:i'm|i am|im)\s+(?:happily\s+|recently\s+|newly\s+)?(?P<v>married|single|divorced|engaged|widowed|separated)\b.*"),
             "Relationship"),
    FactRule("languages", rx(r"^(?:i (?:speak|am learning|'m learning|study|can speak)|(?:i'm|i am) (?:fluent|conversational) in|my (?:native|first|second|mother) (?:language|tongue) is|"
                             r"(?:i'm|i am) (?:a )?native)\s+(?P<v>.*\b(?:english|spanish|french|german|chinese|mandarin|japanese|korean|indonesian|thai|italian|portuguese|"
                             r"russian|arabic|hindi|dutch|tagalog|vietnamese|malay|turkish|polish|swedish|greek|hebrew|cantonese|javanese|bengali|urdu|persian)\b.*)"),
             "Languages"),
    FactRule("budget", rx(r"^(?:my |our )?(?:monthly |yearly |annual |tool |tools )?budget(?: for [\w\s]+?)? (?:is|of)\s+(?P<v>.+)|^i (?:can|can only) spend\s+(?P<v2>.+)"),
             "Budget", confidence=0.85),
    FactRule("goal", rx(r"^(?:(?:new |my |main )?goal:|(?:long[- ]term|eventually|someday|one day|in the long run),? i (?:want|hope|plan|would like|'d like) to|"
                        r"i(?:'m| am) (?:trying|working) to(?=\s+(?:get|reach|learn|become|run|lose|save|finish|pass)\b.*\b(?:by|before)\b)|"
                        r"i (?:want|hope|plan|would like|'d like) to(?=\s+(?:run|learn|move into|get into|switch to|reach|lose|save|finish|pass|visit)\b.*"
                        r"\b(?:by|before|in the next|someday|one day|eventually|this year|next year)\b)|"
                        r"my (?:[\w-]+ )?(?:goal|dream|ambition|plan)s?(?: (?:this|for this|for next|next) (?:year|month|quarter))? (?:is|are)(?: to)?|i (?:want|hope|plan|dream|aim|intend) to (?:become|be)|"
                        r"i'm (?:planning|hoping|aiming|saving up|saving) to|i am (?:planning|hoping|aiming|saving up) to|someday i (?:want|hope) to|"
                        r"one day i (?:want|hope|will)|when i grow up i want to)\s+(?P<v>.+)"),
             "Goal", confidence=0.85),
    # Allergies are their own key: "allergic to peanuts" must not replace "vegetarian".
    FactRule("allergies", rx(r"^(?:i(?:'m| am)? (?:severely |very |mildly )?(?P<v>allergic to .+)|i have (?:an? |a severe |a mild )?(?P<v2>(?:[\w-]+ )?allerg(?:y|ies)\b.*|celiac\b.*)|"
                             r"(?:i'm|i am) (?P<v3>lactose intolerant|gluten intolerant|celiac)\b.*)"),
             "Allergies", confidence=0.85),
    FactRule("diet", rx(r"^(?:i(?:'m| am| m)? (?:a )?(?:strict )?(?P<v>vegetarian|vegan|pescatarian|gluten[- ]free|keto|halal|kosher)\b.*|"
                        r"i (?:keep|eat|only eat) (?P<v3>halal|kosher|keto|plant[- ]based|vegan|vegetarian)\b.*|"
                        r"i (?P<v2>(?:only|never|don't|do not|don t|can't|cannot) (?:eat|drink) .+))"),  # the negation is the fact
             "Diet", confidence=0.85),
    FactRule("accessibility", rx(r"^(?:i'm|i am) (?:a bit |partially |totally )?(?P<v>colou?r[- ]?blind\b.*|dyslexic\b.*|hard of hearing\b.*|deaf\b.*|visually impaired\b.*)"),
             "Accessibility", confidence=0.85),
    FactRule("routine", rx(r"^(?:i'm|i am) (?:a |an )?(?:total |real |bit of a |big )?(?P<v>night owl|morning person|early bird|night person|early riser|late riser)\b"),
             "Routine", confidence=0.85),
    FactRule("traits", rx(r"^(?:i (?:get|am|'m) (?P<v>(?:\w+ ){0,2}\w+ (?:easily|quickly))$|(?:i'm|i am) (?:a |an )?(?:bit of an? |total |real )?(?P<v2>introvert|extrovert|introverted|extroverted|"
                          r"shy|outgoing|perfectionist|procrastinator|people person|homebody|neat freak|workaholic|picky eater)\b.*)"),
             "Personality", confidence=0.8),
    FactRule("working-on", rx(r"^(?:i'm|i am) (?:currently |still )?(?:working on|writing|building|restoring|renovating|training for|studying for) (?P<v>(?:my|a|an)\b.+)"),
             "Goal", confidence=0.8),
    FactRule("studying-to-be", rx(r"^(?:i'm|i am) (?:studying|going to school|training|in school|in college) (?:to (?:be|become)|for)\s+(?:an?\s+)?(?P<v>.+)"),
             "Education", confidence=0.85),
    FactRule("education", rx(r"^(?:i'm|i am) (?:still |currently )?(?P<v>(?:in|at) (?:school|college|high school|middle school|university|grad school|uni)\b.*|a (?:\w+ )?(?:student|freshman|sophomore|junior|senior)\b.*)"),
             "Education", confidence=0.8),
    FactRule("retired", rx(r"^(?:i'm|i am) (?:now |happily |semi[- ])?(?P<v>retired)\b.*"), "Role", confidence=0.85),
    FactRule("work-status", rx(r"^i (?:don't|do not) have a job\b.*|^(?:i'm|i am) (?:currently |still )?(?:unemployed|between jobs|out of work|looking for (?:a |some )?(?:new )?(?:job|work))\b.*"),
             "Work", whole=True, confidence=0.8),
    FactRule("work-in", rx(r"^i (?:work|am employed|'m employed)(?: part[- ]time| full[- ]time)? in\s+(?P<v>(?:a |an |the )?[\w\s-]{2,40})$"), "Work", confidence=0.8),
    FactRule("location-in", rx(r"^(?:i'm|i am) (?:currently |now |based )?in\s+(?P<v>(?!(?:a|an|the|my|love|school|college|bed|trouble|shock|pain|charge|class|line|rush|hurry|town|"
                               r"high school|work|middle|between|good|great|bad|need|fact|touch|luck|debt|training|shape|tears|heaven|awe|agreement|favou?r|progress)\b)[a-z][\w .'-]{1,30})$"),
             "Location", confidence=0.75),
    FactRule("fears", rx(r"^(?:i'm|i am) (?:really |so |very |deathly |terribly )?(?:terrified|scared|afraid|frightened) of\s+(?P<v>.+)|^i(?: have|'ve got) a (?:\w+ )?fear of\s+(?P<v2>.+)"),
             "Fears", confidence=0.8),
    FactRule("teaches", rx(r"^i (?:teach|coach|tutor|train)\s+(?P<v>(?!(?:myself|every|daily|at home)\b).+)"), "Work", whole=True, confidence=0.8),
    FactRule("shift", rx(r"^i (?:work|do|am on|'m on) (?:the |a )?(?P<v>(?:night|day|late|early|morning|evening|graveyard|double|weekend) shifts?\b.*)"),
             "Schedule", confidence=0.85),
    FactRule("learning", rx(r"^i learn (?:best|better|most)\s+(?P<v>.+)"), "Learning style", confidence=0.85),
    FactRule("budget-tight", rx(r"^(?:i'm|i am) on a (?:tight |limited |small |strict |fixed )?budget\b.*"), "Budget", whole=True, confidence=0.85),
    FactRule("availability", rx(r"^i (?:can't|cannot|can not|don't|do not|can only|only) (?:work|meet|be available|take calls)\s+(?P<v>.+)|^i only have\s+(?P<v2>.*\b(?:minutes?|hours?|mins?)\b.*)"), "Schedule"),
    FactRule("timezone", rx(r"^(?:my time ?zone is\s+(?P<v>.+)|(?:i'm|i am) (?:in|on) (?P<v2>(?:the )?(?:utc|gmt|[a-z]{1,3}t\b|\w+ time ?zone|(?:pacific|eastern|central|mountain) time).*))$"),
             "Time zone"),
    FactRule("work-style", rx(r"^i (?:usually |mostly |always |prefer to |like to )?(?:work|code|focus)\s+(?P<v>(?:best |better )?(?:late|at night|in the (?:morning|evening)|early|from home|remotely|in short|in sprints|alone|in pairs|in pomodoros|in (?:\d+|short)[- ]min(?:ute)? (?:blocks|sprints)).*)"),
             "Work habits", confidence=0.8),
    FactRule("favorite", rx(r"^my (?:all[- ]time |absolute )?(?:favou?rite|fav|preferred)\s+(?P<k>[\w\s-]+?)\s+(?:is|are|was|would be)\s+(?P<v>.+)"),
             "Favorites", confidence=0.9),
    FactRule("favorite-rev", rx(r"^(?P<v>.+?)\s+(?:is|are)\s+my (?:all[- ]time |absolute )?(?:favou?rite|preferred|fav)\s+(?P<k>[\w\s-]+)$"),
             "Favorites", confidence=0.9),
    # A livelihood said by what the person does all day: driving a working vehicle, running or managing a business.
    # Before "tools" ("I run Postgres") and "habits" ("I drive to work"), which would otherwise take these verbs.
    FactRule("drives-for-work", rx(r"^i (?:drive|operate|pilot|fly)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,2}?(?:taxi|cab|minicab|bus|coach|truck|lorry|van|"
                                   r"forklift|ambulance|tram|train|tractor|crane|ferry|(?:delivery|garbage|bin|tow|fire|dump) \w+)s?\b"
                                   r"(?!\s+(?:to|home|around)\b)(?:\s+(?:for|in|at|around)\b.*)?$|^i (?:drive|deliver)\b.*\bfor a living\b.*"),
             "Work", whole=True, confidence=0.8),
    FactRule("runs-business", rx(r"^i (?:run|own|manage|co-own|co-founded|founded|started)\s+(?:an?|my own|my|our|the family|a small|a little)\s+"
                                 r"(?:[\w'-]+\s+){0,2}?(?:business|company|shop|store|bakery|caf[eé]|restaurant|bar|pub|salon|studio|farm|clinic|practice|"
                                 r"startup|start-up|agency|firm|gym|hotel|b&b|daycare|nursery|charity|consultancy|boutique|garage|workshop|food truck|"
                                 r"team|department|warehouse|franchise|brewery|winery|kitchen)s?\b.*"),
             "Work", whole=True, confidence=0.8),
    FactRule("tools", rx(r"^i (?:use|run|am using|'m using|code with|develop on|work on a|switched to)\s+(?P<v>(?!it\b|this\b|that\b).+)"), "Usual stack"),
    FactRule("prefers", rx(r"^i (?:generally |usually )?prefer\s+(?P<v>.+)|^i(?:'d| would) (?:much )?rather (?:use|have|eat|drink|read|watch|work with)\s+(?P<v2>.+)"), "Likes"),
    FactRule("hobby-rev", rx(r"^(?P<v>.+?)\s+(?:is|are)\s+(?:a|my|one of my|an)\s+(?:favou?rite\s+)?(?:hobby|hobbies|passion|pastime|way to relax)\b.*"),
             "Hobbies"),
    FactRule("dislikes", rx(r"^(?:i'm|i am|im) not (?:a |the )?(?:big |huge |great )?fan of\s+(?P<v2>.+)|^i (?:really |truly |absolutely )?(?:don't like|do not like|don t like|dislike|hate|can't stand|cannot stand|detest|am not a fan of|'m not a fan of|despise)\s+(?P<v>.+)"),
             "Dislikes"),
    FactRule("likes", rx(r"^i (?:really |also |do |absolutely |just |truly )?(?:like|love|enjoy|adore)\s+(?P<v>.+)|^i(?:'ve| have) (?:always )?(?:loved|liked|enjoyed)\s+(?P<v3>.+)|"
                         r"^i(?:'m| am) (?:really |totally |so |also )?(?:into|passionate about|obsessed with|fond of|crazy about)\s+(?P<v2>.+)"),
             "Likes"),
    FactRule("fan", rx(r"^(?:i'm|i am|im)\s+(?:a |an )?(?:huge |big |great |massive |die-hard )?(?P<v>.+?\s(?:lover|fan|enthusiast|buff|addict|junkie|nerd|geek))$|"
                       r"^(?:i'm|i am|im)\s+(?:a |an )?(?:huge |big |great |massive |die-hard )?(?:fan|lover) of\s+(?P<v2>.+)"),
             "Likes"),
    FactRule("pets", rx(rf"^(?:i (?:have|own|got|adopted|keep|raise)\b.*\b{_PETS}\b.*|my {_PETS}\b.*|.*\b{_PETS} (?:live|lives) with me.*)"),
             "Pets", whole=True),
    # A close person counts when the sentence places them in the user's life (who, where, what they do), not when
    # it states their tastes or moods ("my sister loves cats", "my son is so sweet").
    FactRule("family", rx(rf"^(?:my (?:[\w-]+ )?{_FAMILY}(?:'s name is| is named| is called|(?:'s| is| are) (?:a|an|the|in|at|from|\d|both|all|twins?|\w+ years old|"
                          rf"married|pregnant|retired|my)\b| works?\b| lives?\b| studies\b| goes to\b| go to\b| just\b| recently\b| passed\b| died\b| has\b| have\b| got\b| "
                          rf"moved\b| was (?:a|an|born)\b| were\b| and i\b| taught me\b| raised me\b| gave me\b).*|i (?:have|had|am expecting)\b.*\b{_FAMILY}\b.*|(?:i|we) (?:live|lives) with my\b.*|"
                          rf"i(?: am|'m) (?:a |the )?(?:single |proud |stay[- ]at[- ]home |working )?(?:mother|mom|father|dad|parent|grandmother|grandfather|grandma|grandpa|only child|family man|family woman|widow|widower)\b.*|i'm pregnant.*|i am pregnant.*)"),
             "Family", whole=True),
    FactRule("appearance", rx(rf"^(?:i (?:have|got)\b.*\b{_APPEARANCE}\b.*|my {_APPEARANCE}\b.*|i am (?:very |rather |quite )?(?:tall|short|skinny)\b.*)"),
             "Appearance", whole=True),
    # Background is the person's history ("I grew up on a farm"), not an experience remark ("I've never been there").
    FactRule("background", rx(r"^(?:i (?:used to|grew up|was raised|was born|went to (?:school|college|university|high school)|graduated|studied|served|retired|survived|"
                              r"moved)\b|i(?:'ve| have) (?:lived|worked)\b|i(?:'ve| have) been (?:\w+ing|an?)\b.*\b(?:since|for (?:\d+|many|a few|several|over|decades|years))\b|when i was (?:a |little|young)|as a (?:kid|child)\b|i (?:am|'m) (?:a )?(?:recovering|retired|former|ex-)).*"),
             "Background", whole=True),
    FactRule("hobbies", rx(r"^(?:i(?:'ve| have) been (?:playing|collecting|painting|drawing|singing|dancing|hiking|swimming|running|baking|knitting|"
                           r"sewing|gardening|fishing|surfing|volunteering|learning)\b|i (?:play|collect|paint|draw|sing|dance|hike|swim|run|bake|cook|knit|sew|garden|fish|read(?!\s+(?:about|that|this|somewhere|online|an?\s+(?:article|review|blog|post|story)|the\s+(?:article|review|news|reviews?)\b))|"
                           r"write|surf|ski|volunteer|watch|listen|ride|travel|camp|"
                           r"do(?! not\b|n'?t\b| nt\b| need\b| want\b| have\b| think\b| know\b| mind\b| like\b| love\b| agree\b| hope\b| remember\b| understand\b| appreciate\b| believe\b| feel\b| see\b| wish\b| care\b| enjoy\b| prefer\b| miss\b| get\b))\b|"
                           r"(?:on|during) (?:weekends|the weekend|my free time|my spare time)\b|in my (?:free|spare) time\b).*"),
             "Hobbies", whole=True),
    # Things the user owns, last: pets, family and traits claim their own nouns first; abstract objects are not possessions.
    FactRule("owns", rx(r"^i (?:have|own|have got|'ve got|got)\s+(?P<v>(?!.*\b(?:favou?rites?|friends?|questions?)\b)(?:a|an|two|three|four|five|\d+|several|many|lots of|a lot of|over|more than|my own)\s+"
                        r"(?!(?:\w+\s+)?(?:question|problem|issue|idea|feeling|work|job|time|day|week|good|great|bad|hard|meeting|appointment|date|test|exam|"
                        r"headache|cold|fever|chance|clue|doubt|point|right|reason|friend|lot to|few minutes|busy|long|rough|crush|thing|dream|plan|favou?rite|"
                        r"interview|text|email|e-mail|message|call|change|nose|throat|cough|rash|flu|infection|pain|ache|hour|minute|people|person|guests?|"
                        r"ability|conversation|feeling|experience|opportunity|tendency|habit|choice|decision|deadline|appointment|reservation|booking)s?\b).+)"),
             "Owns", confidence=0.75),
    FactRule("favorite-bare", rx(r"^my (?:all[- ]time |absolute )?(?:favou?rite|fav)s? (?:is|are|would be)\s+(?P<v>.+)"), "Favorites"),
    FactRule("habits", rx(r"^i (?:often|usually|always|never(?!\s+(?:\w+ed|thought|met|knew|know|got|saw|went|had|did|been|heard|understood|felt|found|made|took|told|said|forgot|thought))|rarely|sometimes|frequently|mostly|tend to|spend|eat|drink|sleep|wake|go|ride|walk|shop|drive)\b.*"),
             "Routine", whole=True),
)

LEXICON = Lexicon(
    lang="en",
    first_person=rx(r"\b(?:i|i'm|im|i've|i'd|i'll|me|my|mine|myself)\b"),
    plural_person=rx(r"\b(?:we|we're|we've|we'll|our|ours|us|the team|my team|our team)\b"),
    subject=rx(rf"^(?:{_I}|my)\s+"),
    greeting=rx(r"^(?:hi+|hello+|he+y+|hiya|yo|good (?:morning|afternoon|evening)|greetings)(?:\s+(?:there|all|everyone|guys|friend|(?-i:[A-Z][a-z]+)(?=\s*[,!])))?[\s,!.:-]+"),
    phatic=rx(r"^(?:hi|hello|hey|thanks?(?: you)?(?: so much| a lot)?|thank you|thx|ty|ok(?:ay)?|cool|great|nice|awesome|perfect|got it|sure|yes|yeah|yep|no|nope|"
              r"bye|goodbye|see you|good (?:morning|night|afternoon|evening)|lol|haha|hmm+|sounds good|that works|alright|all right|noted|right)(?:\s+\w+)?[\s!.?]*$"),
    discourse=rx(r"^(?:(?:actually|well|oh|so|also|and|but|btw|by the way|anyway|ah|um+|uh+|hmm+|oh and|plus|ok(?:ay)?|yeah|yep|yes|"
                 r"just so you know|fyi|heads up|for the record|ngl|tbh|honestly|lol)(?:\s*[,:;!-]\s*|\s+)|"
                 # laughter and interjections before the speaker's own clause: "haha I have a parrot", "No I'm from Ohio"
                 r"(?:(?:ha)+h?|(?:he)+|lmao|omg|o+h+|o{2,}|a+w+|wow|yay|yea+h*|ya|naw|nah|nope|no|true|same|hm+|mhm|aha)"
                 r"(?:\s*[,:;!.?~-]+\s*|\s+)(?=(?:i|i'm|im|i've|i'd|my)\b)|"
                 r"(?:no|right|true|got it|sorry|update|correction|quick update|note|new info)\s*[,:;!-]\s*)"),
    question=rx(r"\?\s*$|^(?:what|who|whom|whose|where|why|how|which)\b|^when\s+(?:is|are|do|does|did|will|can|should|was|were)\b|"
                r"^(?:is|are|am|do|does|did|can|could|would|will|should|shall|may|have|has|was|were|isn't|aren't|don't|doesn't|won't|wouldn't)"
                r"\s+(?:you|i|we|it|this|that|there|the|my|your|he|she|they|any|a|an)\b"),
    request=rx(r"^(?:please|pls|plz|kindly|can you|could you|would you|will you|can u|could u|i need you to|i want you to|i'd like you to|i would like you to|"
               r"pretend|imagine|suppose|assume|act as|roleplay|role-play|for this (?:draft|email|task|one|answer|post|doc|message)|"
               r"i (?:have|got) (?:a |some |a few |few )?(?:questions?|problems?|issues?)\b|i need (?:help|assistance|some help)|"
               r"i (?:need|want|would like|'d like) (?:a|an|to book|to find|to order|to reserve|to get|to buy)\b|"
               r"i'?m looking for (?:a|an) (?:hotel|restaurant|train|taxi|flight|place to|table|room|recipe|book|gift)\b|"
               r"i'd like to|i would like to|i want to (?:change|make|add|remove|update|cancel|stop|know|ask|see|get|request)|help me|let me know|"
               r"change|make|translate|rewrite|re-write|write|fix|add|remove|delete|shorten|summari[sz]e|give|show|tell|explain|update|replace|rename|"
               r"format|generate|create|draft|list|check|send|convert|edit|turn|put|move|try|do|don't|dont|do not|find|search|book|schedule|set|"
               r"draw|compose|reply|respond|answer|proofread|review|compare|calculate|count|sort|pick|choose|suggest|recommend|simplify|expand|"
               r"use|go|need to change|need to|block|cancel|charge|transfer|stop)\b"),
    remember=rx(r"^(?:(?:please|pls|plz)\s+)?(?:remember|rember|remeber|rmb|note|keep in mind|don't forget|do not forget|for the record|fyi|save|store|"
                r"reminder|a reminder|just a reminder)(?:\s+(?:that|this|:))?[\s:,]+"),
    standing=rx(r"^(?:please\s+)?(?:always|never|from now on|going forward|in (?:the )?future|in general|whenever (?:you|i))\b|\b(?:from now on|going forward)\b|"
                r"^(?:(?:please|pls)\s+)?(?:don't|do not|stop|no)\b.*\b(?:ever|anymore|again)\s*[.!]*$|,\s*always\s*[.!]*$"),
    # Only a request to the assistant: "forget where I live", "delete my address from memory". "Forget it" is "never
    # mind", and "remove the header" is a task.
    forget=rx(r"^(?:(?:please|pls|can you|could you)\s+)?(?:(?:forget|unlearn|don't remember|do not remember|stop remembering|no need to remember|"
              r"you can forget|don't keep|do not keep)\s+(?:about\s+|that\s+|the (?:note|entry|bit|part|fact) (?:about|that)\s+)?(?P<t>(?!(?:it|this|that|about it|all that)\s*[.!]*$).+)|"
              r"(?:delete|remove|erase|drop|clear|wipe)\s+(?:the (?:note|entry|bit|part|fact|memory) (?:about|that)\s+|what you know about\s+|"
              r"(?=my\b|what i\b|where i\b|that i\b|everything about me|all my\b))(?P<t2>.+?)(?:\s+from (?:your |my )?(?:memory|notes|profile))?|"
              r"(?:delete|remove|erase|drop|clear|wipe)\s+(?P<t3>.+?)\s+from (?:your |my )?(?:memory|notes|profile))$"),
    hedge=rx(r"\b(?:i guess|i suppose|kind of|kinda|sort of|sorta|maybe|perhaps|not sure|i'm not sure|i don't know|i dont know|idk|dunno|"
             r"somewhat|more or less|whatever|possibly|might be|i think i might|i think i could|could be|i may|not really sure|hard to say|"
             r"or something|haven't decided|not decided|undecided|it depends|depends|sometimes not|either way|no preference)\b"),
    mood_state=rx(r"\b(?:tired|exhausted|sleepy|drained|starving|famished|freezing|worn out|burnt out today|hungry|thirsty|bored|headache|migraine|hurts|aching|hungover|"
                  r"sick today|feel sick|feeling sick|stressed out|cranky|grumpy|in a (?:bad|good) mood|in the mood for|so done|fed up|killing me|"
                  r"(?:i'm|im|i am|feeling|feel) (?:so+|really|very|super|kinda|a bit|pretty|quite) (?:happy|sad|angry|upset|excited|nervous|anxious|"
                  r"frustrated|annoyed|down|lonely|stressed|overwhelmed|pumped|thrilled|glad|relieved))\b|^(?:ugh+|argh+|meh|sigh|yay+|woo+)\b|"
                  # apologies, sympathy and passing feelings: "I'm sorry to hear that", "I'm afraid not", "I'm not kidding"
                  r"^(?:(?:i'm|im|i am)\s+)?(?:so |really |very |truly |a (?:little|bit) |kinda |pretty |just )?(?:sorry|nervous|scared|worried|anxious|"
                  r"afraid(?= not| so|\s*$)|(?:not )?(?:kidding|joking)|jealous|impressed|curious|confused|surprised|shocked|flattered|honou?red)\b|"
                  r"\bsorry (?:to hear|for your loss|about that|about your)\b"),
    mood_emotion=rx(r"\b(?:hate|love|loving|hating|happy|sad|angry|upset|excited|nervous|anxious|frustrated|annoyed|great|good|bad|awful|terrible|down|moody|"
                    r"miserable|stressed|overwhelmed|lonely|irritated|sick|relieved|fine|meh)\b"),
    now_marker=rx(r"\b(?:today|right now|rn|now|tonight|this morning|this afternoon|this evening|at the moment|atm|currently|feeling)\b"),
    moment=rx(r"\b(?:right now|rn|atm|at the moment|today|tonight|this (?:morning|afternoon|evening))\b"),
    temporary=rx(r"\b(?:for (?:a|the|my) (?:business trip|trip|vacation|holiday|conference|visit|weekend|few days)|on (?:a |my )?(?:business trip|vacation|holiday)|this week only|just for today)\b"),
    project_cue=rx(r"\b(?:deploy(?:ed|ing|ment)?|redesign|rewrite|crash|outage|incident|hotfix|sync|cron|backup|queue|k8s|beta|signups?|payments?|billing|"
                   r"pricing|price|costs?|per (?:year|month|seat)|subscription|service|services|config|env|environment|localhost|"
                   r"ship(?:ped|ping)?|releas(?:e|ed|ing)|launch(?:ed|ing)?|merg(?:e|ed|ing)|migrat(?:e|ed|ing|ion)|refactor(?:ed|ing)?|"
                   r"roll(?:ed)? back|rollback|hotfix|bug|bugs|issue|ticket|pr|pull request|commit(?:ted)?|repo|repository|branch|api|endpoint|database|"
                   r"db|schema|server|backend|frontend|front-end|staging|production|prod|release|version|v\d[\w.]*|sprint|milestone|deadline|"
                   r"roadmap|feature|prototype|mvp|demo|landing page|homepage|website|app|dashboard|"
                   r"client|customer|stakeholder|meeting|standup|retro|review|project|codebase|pipeline|build|test suite|ci|ci/cd|ci pipeline|docker|"
                   r"kubernetes|postgres|mysql|redis|aws|gcp|azure|vercel|budget|contract|invoice|launch date|we're building|"
                   r"we are building|the team)\b"),
    # A decision names what was decided: "Agreed!" or "let's chat" is agreement, not a decision worth a dated note.
    decision_cue=rx(r"\b(?:decided|agreed(?: to| on| that| with|:)|we agreed|chose|chosen|settled on|went with|going with|picked|switched to|switching to|"
                    r"moved to|replaced|approved|signed off|we will use|we'll use|we're using|we are using|"
                    r"let's (?:use|go with|stick with|switch to|adopt|pick|choose|move to)|we (?:only |always |never )?(?:use|deploy|ship|release) (?:on|thru|through|from|via|with)?)\b|"
                    r"\b(?:decided|agreed):"),
    done=rx(r"\b(?:deployed|shipped|released|launched|merged|migrated|refactored|fixed|rolled back|pushed|finished|completed|implemented|"
            r"set up|configured|upgraded|updated|added|removed|changed|switched|moved|renamed|wrote|built|created|opened|closed|resolved|"
            r"submitted|sent|hired|signed|scheduled|postponed|delayed|cancell?ed|bumped|broke|crashed|went down|ran out|"
            r"(?:am|'m|are|'re|was|were) (?:working on|building|migrating|rewriting|fixing|preparing|designing|developing))\b"),
    language_word=rx(r"\b(?:(?:simplified|traditional|british|american|plain|formal|casual) )?(?:english|indonesian|bahasa|chinese|mandarin|thai|japanese|spanish|french|german|korean)\b"),
    trailing=rx(r"[\s,;:]*(?:\b(?:now|these days|nowadays|actually|anymore|right now|at the moment|currently|too|as well|lol|btw|please|pls|though|haha)\b[\s,;:]*)+$"),
    # The user's own fact stops being true; "my album dropped" or "the meeting is off" is narration, not a removal.
    no_longer=rx(r"\b(?:no longer|not any ?more|anymore|any more)\b|^i(?:'ve| have)? (?:quit|stopped|gave up|given up)\s+(?!by\b|at\b|in\b)"),
    meant=rx(r"^(?:sorry,?\s*|oops,?\s*)?i meant\s+(?P<new>.+?),?\s+not\s+(?P<old>.+)$"),
    switched=rx(r"\b(?:switched|moved|changed|migrated|went)\s+from\s+(?P<old>.+?)\s+to\s+(?P<new>.+)$"),
    facts=FACTS,
    second_person=rx(r"\b(?:you|your|yours|yourself|you're|youre|u|ur)\b"),
    # A value that says nothing, or only points back at the conversation ("them", "how diverse they can be").
    empty_value=rx(r"^(?:it|that|this|them|those|these|one|so|too|all|everything|anything|something|nothing|stuff|things?|"
                   r"(?:it|that|this|them) (?:all|too|a lot|so much|very much)|play|won|do|did|go|went|"
                   r"(?:a )?(?:lot|bit|little)|(?:the )?same|(?:it|that) (?:too|as well)|so much|very much)$|"
                   r"^(?:how|the way|what|when|why|being able|people like|having|(?:the )?(?:feeling|sense|idea|thought|rush|freedom|fact|opportunit\w*|adrenaline)\b)\b|\b(?:it|them|they|those|these|his|her|its|their|he|she|him|that one|there)\b"),
    addressed=rx(r"\b(?:you|your|reply|replies|respond|responses?|answers?|answer me|write|explain|use|keep (?:it|answers|replies)|"
                 r"give me|tell me|call me|talk to me|speak to me|format|include|mention|remind me|ask me|suggest|show me|summari[sz]e|"
                 r"bullet(?: points)?|emojis?|code|units|sources|examples)\b"),
    spelling=((rx(r"^(?:i m|im)\b"), "i'm"), (rx(r"^(?:i ve|ive)\b"), "i've"), (rx(r"^i've (?=an?\b|two|three|four|five|\d|several|many|some|no\b)"), "i have "),
              (rx(r"^(?:i d)\b"), "i'd"), (rx(r"^i ll\b"), "i'll"), (rx(r"\b(?:dont)\b"), "don't")),
)
