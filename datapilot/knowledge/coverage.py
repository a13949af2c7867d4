"""What a question asks, word by word, for deciding whether a passage says it: the words that
name a thing weigh more than the words that frame the question, and a word narrowing a noun
("performance" in "performance fee", "late" in "late margin calls") must be held with it.

A question's English words are read in order as runs of adjacent content words (stopwords,
punctuation, numbers and verbs end a run): "What performance fee does the fund charge?" gives
[performance, fee] and [fund]. English noun phrases end in their noun, so a run's last word is
what it names and the words before it narrow it. Verbs are told from nouns and adjectives by the
general dictionary (`dictionary.verbs`: "keep", "expect" are given mostly as "to keep", "to
expect"; "late", "house" as themselves). A phrase after a noun through a preposition narrows it
too ("exposure to central clearing houses"), and a one-letter label after a noun names one of
several ("share class B" is not the passage's "Share class: A"). Chinese questions are not cut
into runs: jieba's word classes are too rough for it (开支 and 敞口 come out as verbs); only the
word a Chinese question asks the amount of (…的资本开支是多少, …的离职率是多少) must be held.
Everything else is weighed word by word (`LibraryIndex.reading`), except what frames a question
(modal verbs, 是不是, 有没有) and the values it checks against a passage (`checked`: "single-A"
beside "rated AA- or better"; the number of a question asking whether, 是不是超过了百分之十一
beside 11.2%).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache

from datapilot.data.text import is_chinese
from datapilot.knowledge.dictionary import superlative, verbs
from datapilot.knowledge.expansion import WORDS, alternatives, numbers_in_words
from datapilot.retrieval import tokenize
from datapilot.retrieval.tokens import cut

# The word after "how" asks for an amount or a manner ("how much", "how soon", "how big"): it
# says what kind of answer is wanted, not what the answer is about.
_HOW = re.compile(r"\bhow\s+([a-z]+)", re.IGNORECASE)
# Chinese question words that jieba's stopword list lacks (多少, 如何, 什么 are in it).
_ZH_FRAME = (
    *("多久", "多大", "多长", "多高", "哪个", "哪一", "怎样"),
    *("是不是", "有没有", "是否", "会不会", "能不能", "可不可以"),
    # Placing a figure in time by its end ("as of", "to"): the passage's own dates say it.
    *("截至", "截止"),
    # Placing the question in time relative to now ("last", "next" in English, `_DEGREE`):
    # the passage's own dates say which year or quarter.
    *("明年", "今年", "去年", "这一季", "这季", "本季", "当季", "这个季度", "这次"),
    # Pointing at what was said and totting up: 那份研报, 那块生意, 一共 ("in total").
    *("那份", "这份", "那块", "这块", "一共", "总共", "关心"),
)
# The measure word counting what is asked (多少台, 几家): the passage counts it in its own
# (万辆), so it names nothing.
_ZH_COUNTED_BY = re.compile(r"(?:多少|几)([台辆个家只位名项种笔次号])")
# Modal verbs ask whether, they name nothing ("Why might exports slow?"); "may" only in lower
# case (the month).
_MODAL = re.compile(r"\b(?i:might|could|would|should|must|shall)\b|\bmay\b")
# Comparatives and superlatives pick one value among those a passage gives ("the smallest
# amount" is the passage's minimum, `dictionary.superlative`), and words placing a question in
# time point at the passage's own dates ("last year" in a 2022 report): neither names another
# thing.
_DEGREE = frozenset(
    {"more", "most", "less", "least", "fewer", "fewest", "minimum", "maximum", "best", "worst"}
    | {"last", "next", "previous", "current", "latest", "recent", "new"}
)
# Adverbs that hedge or stress a question ("actually cover", "roughly 3.5%"): they name nothing.
_HEDGES = frozenset({"actually", "really", "roughly", "approximately", "nearly", "almost"})
# Adjectives that stress or spread a noun rather than name another thing ("more than 300
# individual bonds", "at various maturities").
_VAGUE = frozenset(
    {"individual", "various", "different", "separate", "specific", "particular", "certain"}
    | {"whole", "entire", "exact"}
    # Quantifiers spread a noun over its instances ("every year" is the passage's "a year").
    | {"every", "each"}
    # Placeholders for the thing named ("that Aurora bond thing").
    | {"thing", "things", "stuff"}
)
# Who the asker asks for ("my grandson wants to put money in …"): the question is theirs, the
# person names nothing a document says.
_ASKING_FOR_WHOM = frozenset(
    {"grandson", "granddaughter", "grandchildren", "grandkids", "son", "daughter", "kids"}
    | {"wife", "husband", "partner's", "mum", "mom", "dad", "mother", "father", "parents"}
    | {"uncle", "aunt", "friend", "friends", "boss", "client", "clients", "grandma", "grandpa"}
)
# Phrases that say how, not what ("a CSA in place", "derivatives at all").
_IDIOM = re.compile(
    r"(?i)\b(?:in place|in force|in effect|at all|in full|in practice|in fact|in general"
    r"|on track|in line|these days|nowadays|right now|at the moment)\b"
)
# Words putting a guess into a question ("maybe around 6.8 yrs?", "I think it was 5%",
# 我记得…好像…大概是10亿): the value guessed is checked against the passage's, like the number
# of a question asking whether, and the words themselves name nothing.
_GUESSES = frozenset(
    {"maybe", "perhaps", "possibly", "probably", "around", "guess", "think", "believe"}
    | {"recall", "remember", "reckon", "suppose"}
)
_ZH_GUESSES = ("我记得", "记得", "印象中", "好像", "大概", "似乎", "大约", "差不多", "应该是")
# Words that relate others rather than name anything, which the stopword list lacks: they end
# a run ("the price war among Chinese EV makers" is two).
_RELATING = frozenset(
    {"per", "via", "versus", "vs", "among", "amongst", "across", "within", "without"}
    | {"throughout", "beyond", "toward", "towards", "upon", "onto", "since", "beside"}
    | {"besides", "despite", "except", "inside", "outside", "near"}
)
# "Is it true that …", "is it the case that …": asking whether, naming nothing.
_TRUE = re.compile(
    r"(?i)\b(?:is it|it is|it's|was it)\s+(?:(?:really|actually)\s+)?(true|correct|right)\b"
)
_PREPOSITIONS = frozenset({"of", "on", "to", "for", "about", "in"})
_CHINA = frozenset(tokenize("China Chinese"))
_ARTICLES = frozenset({"the", "a", "an", "its", "their", "his", "her", "our", "your"})
# The word before 是多少 (…的资本开支是多少); not before 是什么 asking of a noun after it
# (管理层说是什么原因: the reason is asked).
ZH_ASKED = re.compile(
    r"([\u3400-\u9fff]+?)(?:是多少|是什么|是谁|为多少)(?=[呢吗啊呀？?。！!，,；;\s]|$)"
)
_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*[a-z0-9]|[a-z0-9]|[\u3400-\u9fff]+|\S", re.IGNORECASE)
_ACRONYM = re.compile(r"\b[A-Z]{2,4}\b")
# (not a letter naming the class after it: "the Aurora A class" is the A class of Aurora's)
_LABEL = re.compile(
    r"\b([A-Za-z][a-z'\-]+)\s+([A-HJ-Z])\b(?![&.'\-])"
    r"(?!\s+(?:share\s+|unit\s+)?(?:class|classes|shares|units)\b)"
)
# A numbered edition of a document or a part of one ("version 3.1", "the previous version (3.1)",
# "section 4.2"): another number there names another edition.
_NUMBERED = re.compile(
    r"(?i)\b(version|revision|release|edition|section|clause|article|paragraph|chapter)"
    r"\s+\(?(\d+(?:\.\d+)+)\)?(?![\d%])"
)

Unit = tuple[str, ...]  # a word of the question as retrieval tokens (a hyphenated word: its parts)


@lru_cache(maxsize=1024)
def frame_words(question: str) -> frozenset[str]:
    """The question's tokens that frame it rather than name what it asks: the word after "how",
    Chinese question words (是不是, 有没有), modal verbs, comparatives and superlatives, hedges
    and guesses, vague adjectives ("individual") and idioms ("in place")."""
    framing = [m.group(1) for m in _HOW.finditer(question)] + [
        w for w in _ZH_FRAME if w in question
    ]
    framing += [m.group(0).lower() for m in _MODAL.finditer(question)]
    framing += [m.group(1).lower() for m in _TRUE.finditer(question)]
    framing += [w for w in _ZH_GUESSES if w in question]
    framing += _ZH_COUNTED_BY.findall(question)
    framing += [m.group(0) for m in _IDIOM.finditer(question)]
    degree = [
        w
        for w in re.findall(r"[a-z]+", question.lower())
        if w in _DEGREE
        or w in _HEDGES
        or w in _GUESSES
        or w in _VAGUE
        or w in _ASKING_FOR_WHOM
        or superlative(w)
    ]
    return frozenset(t for w in framing + degree for t in tokenize(w))


MONTHS = "january february march april may june july august september october november december"
_DATE = re.compile(
    rf"\b\d{{1,2}} (?:{'|'.join(m.title() for m in MONTHS.split())}) \d{{4}}\b"
    rf"|\b(?:{'|'.join(m.title() for m in MONTHS.split())}) \d{{1,2}},? \d{{4}}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\d{4}年\d{1,2}月(?:\d{1,2}日)?"
)
# What a date line dates: a question asking when a document was published is answered by it.
DATED = "date published issued released dated 发布 发表 印发"
_ASKS_DATE = re.compile(
    r"(?i)\bdate\b|日期|\bwhen\b.*\b(?:published|issued|released)\b"
    r"|(?:何时|什么时候|哪天|哪一天).*(?:发布|发表|印发)"
)


def asks_date(question: str) -> bool:
    """Whether the question asks for a date ("sign-off date", 日期, "when was it published")."""
    return _ASKS_DATE.search(question) is not None


def chinese_passage(text: str) -> bool:
    """Whether a passage (its document's name on its first line) is written in Chinese: the
    name may be Chinese for an English document or the other way round."""
    return is_chinese(text.partition("\n")[2] or text)


def dated(text: str) -> bool:
    """Whether `text` writes a date ("12 May 2023", "May 12, 2023", 2023-05-12, 2023年5月12日):
    it holds the "date" a question asks for."""
    return _DATE.search(text) is not None


# A question asking whether ("Is it above 11%?", 是不是超过了百分之十一): the number it says is
# what the passage's own figure is checked against, not a word the passage must hold.
_YES_NO = re.compile(
    r"(?i)(?:^|[.?!;:,\u2014]\s*)(?:is|are|was|were|do|does|did|will|can|could|has|have|had)\b"
    r"|是不是|有没有|是否|会不会|能不能|吗\s*[？?]?\s*$"
)
_COMPARING = "above below over under exceed exceeded beyond 超过 高于 低于 超出 不足 达到"
# A credit grade ("single-A", "double-B rated"): a value checked against the passage's own
# grades ("rated AA- or better"), like a number.
_GRADE = re.compile(r"(?i)\b(?:single|double|triple)-[a-c]\b")
# A share said in words ("a third", "two thirds", "three and a half percent"): a value checked
# against the passage's own figure (38%, 3.5%) in a question asking whether. "Quarter" and
# "half" after an ordinal or "first" are periods, not shares, so only an article or a count
# before the fraction makes it one.
_SHARE = re.compile(
    r"(?i)\b(?:a|an|one|two|three|four)\s+(half|third|thirds|quarter|quarters|fifth|fifths)\b"
    r"|(?<=[a-z0-9])\s+(percent|per cent)\b"
)


@lru_cache(maxsize=1024)
def checked(question: str) -> frozenset[str]:
    """The question's tokens that state a value to check against the passage (a credit grade;
    in a question asking whether, its numbers and comparing words): a passage need not hold
    them to answer."""
    found = [t for m in _GRADE.finditer(question) for t in tokenize(m.group(0))]
    if _YES_NO.search(question.strip()) or guesses(question):
        said = [w for w, _ in numbers_in_words(question)] + [_COMPARING]
        found += [t for w in said for t in tokenize(w)]
        found += [t for t in tokenize(question) if re.search(r"\d", t) or t in number_tokens()]
        shares = [w for m in _SHARE.finditer(question) for w in m.groups() if w]
        found += [t for w in shares for t in tokenize(w)]
    return frozenset(found)


def guesses(question: str) -> bool:
    """Whether the question puts a guess into it ("maybe around 6.8 yrs?", 我记得…好像…)."""
    words = set(re.findall(r"[a-z]+", question.lower()))
    return bool(words & _GUESSES) or any(w in question for w in _ZH_GUESSES)


# A sentence ended by a full stop, before the question ("I'm on the financing desk. Does …?"),
# or a clause ended by a colon or a dash ("… for the model portfolio: is the manager …?").
_STATEMENT = re.compile(r"[^.?!。？！:—–]*[.!。！:—–](?=\s|$)")


@lru_cache(maxsize=1024)
def preamble(question: str) -> frozenset[str]:
    """The tokens said only in the sentences setting out who asks and why, before the question
    itself ("I'm on the financing desk …. Does this policy cover securities lending?"): they
    tell the asker's situation, which a passage need not hold to answer. Empty when the
    question is one sentence or its last sentence is not a question."""
    text = question.strip()
    if not re.search(r"[?？]$", text):
        return frozenset()
    said = [m.group(0) for m in _STATEMENT.finditer(text)]
    asked = _STATEMENT.sub(" ", text)
    if not said or not asked.strip():
        return frozenset()
    return frozenset(t for s in said for t in tokenize(s)) - set(tokenize(asked))


# What a question sets aside to ask about something more ("besides the interim dividend, …",
# 在中期分红之外是否还…): a passage on that alone does not answer.
_ASIDE = re.compile(
    r"(?i)\b(?:besides|apart from|aside from|other than|in addition to)\b[^,;?]*"
    r"|(?:除了|除|在)[^，,；;？?]{1,20}?(?:之外|以外)|除了[^，,；;？?]{1,20}?(?=[，,])"
)


@lru_cache(maxsize=1024)
def aside(question: str) -> frozenset[str]:
    """The tokens said only in what the question sets aside ("besides X", 在X之外): the thing
    it asks about is something else."""
    said = [m.group(0) for m in _ASIDE.finditer(question)]
    if not said:
        return frozenset()
    rest = _ASIDE.sub(" ", question)
    return frozenset(t for s in said for t in tokenize(s)) - set(tokenize(rest))


@lru_cache(maxsize=1024)
def verb_tokens(question: str) -> frozenset[str]:
    """The tokens of the question's English words the dictionary gives mostly as verbs."""
    found = verbs(tuple(re.findall(r"[a-z]{2,}", question.lower())))
    return frozenset(t for w in found for t in tokenize(w))


@cache
def number_tokens() -> dict[str, str]:
    """The token of each number word in digits ("four" → "4"): a passage writing 4 holds the
    question's "four"."""
    return {t: str(n) for w, n in WORDS.items() for t in tokenize(w)}


@dataclass(frozen=True)
class Run:
    """Adjacent English content words of a question, each as its tokens; `after` says the run
    follows the one before it through a preposition ("exposure to central clearing houses")."""

    units: tuple[Unit, ...]
    after: bool = False


# A verb with its particle ("top up", "hand over", "pay out"): the verb names no thing.
_PHRASAL = re.compile(
    r"\b(top|hand|pay|set|sign|give|pick|carve|roll|wind|run)\s+(?:up|over|out|off|down)\b"
)


@lru_cache(maxsize=1024)
def runs(question: str) -> tuple[Run, ...]:
    """The question's runs of adjacent English content words."""
    lowered = question.lower()
    verbal = verbs(tuple(w for w in re.findall(r"[a-z]{2,}", lowered)))
    verbal = verbal | {m.group(1) for m in _PHRASAL.finditer(lowered)}
    frame = frame_words(question)
    found: list[Run] = []
    current: list[Unit] = []
    linked = False  # a preposition follows the last run, with only articles since
    after = False  # the run being read follows one through a preposition
    for word in _WORD.findall(lowered):
        # A word with digits (Q4, 2023) places or counts, it does not narrow.
        unit = tuple(tokenize(word)) if re.fullmatch(r"[a-z'\-]+", word) else ()
        content = (
            unit
            and word not in verbal
            and word not in _RELATING
            and not set(unit) & frame
            and not set(unit) & number_tokens().keys()
            and not set(unit) & checked(question)
            and not set(unit) <= preamble(question)
        )
        if content:
            if not current:
                after, linked = linked, False
            current.append(unit)
            if not word.endswith("'s"):
                continue  # a possessive ends its noun phrase: "the policy's limit"
        if current:
            found.append(Run(tuple(current), after))
            current = []
            linked = word in _PREPOSITIONS
        elif not (linked and word in _ARTICLES):
            linked = False
    if current:
        found.append(Run(tuple(current), after))
    return tuple(found)


def narrowed_away(
    question: str,
    holds: Callable[[Unit], bool],
    informative: Callable[[str], float],
    text: str = "",
    elsewhere: Callable[[Unit], bool] = lambda unit: False,
) -> tuple[str, ...]:
    """The words of `question` that narrow a noun a passage holds, which the passage lacks and
    which are at least as informative here as that noun: a word before it ("performance" beside
    a passage's "fees", "late" beside its "margin calls"), or the whole phrase after it through
    a preposition ("exposure to central clearing houses" beside a passage's exposure limits);
    in Chinese, the glossary's measure a question asks the amount of (资本开支 in
    …的资本开支是多少; a plain word there, 方案 or 区间, is often only implied by a passage), or
    a rate or volume of a word (离职率, 进口量: the passage must hold 离职, 进口). The
    passage speaks of something else than the thing asked. Empty when nothing is narrowed away.
    A noun given a one-letter label ("share class B", "Series C") must carry that label in
    the passage's `text` too ("Share class: A" speaks of another class).
    A word narrowing a word the passage holds that does not end its run ("core" of
    "inflation" in "core inflation rate") counts unless the passage's document holds it
    elsewhere (`elsewhere(unit)`). The words before what a Chinese question asks the amount
    of, and share classes named by their letter, are read in `asked_zh`.
    `holds(unit)` says whether the passage holds a word (a hyphenated one: its last part; one
    ending in a participle is held by any part, `participles`);
    `informative(token)` weighs a token (its IDF in the library)."""
    missing: list[str] = []
    compounds = participles(question)

    def held(unit: Unit) -> bool:
        return holds(unit) or (unit in compounds and any(holds((t,)) for t in unit))

    for noun, label in labels(question):
        # The document giving the noun a label elsewhere ("Share class: A") is enough: a
        # passage without the label asked for speaks of another.
        if (held(noun) or elsewhere(noun)) and not labelled(noun, label, text):
            missing.append(f"{' '.join(noun)} {label}")

    def weight(unit: Unit) -> float:
        return max(map(informative, unit))

    found = runs(question)
    for number, run in enumerate(found):
        if _names_the_document(run, held, elsewhere):
            continue  # "the NEV investment strategy summary": the report itself, not a narrowing
        # What the run names is its last word the passage holds: "core inflation rate" beside
        # a passage's "inflation" asks for its core measure, whatever the passage calls "rate".
        last = max((n for n, unit in enumerate(run.units) if held(unit)), default=None)
        if last is None:
            continue
        head = run.units[last]
        for unit in run.units[:last]:
            # Before a word that does not end the run, a word the document uses elsewhere is
            # the passage's context ("Chinese EV makers" beside a Chinese market's passage).
            # Across languages the passage's words are found through the dictionary, which
            # misses some ("trade" for 贸易): there only the run's last word is read as named.
            implied = last < len(run.units) - 1 and (elsewhere(unit) or chinese_passage(text))
            # A Chinese document speaks of China unless it says otherwise (国内 is China's).
            implied = implied or (set(unit) <= _CHINA and chinese_passage(text))
            if not held(unit) and not implied and weight(unit) >= weight(head):
                missing.append(" ".join(unit))
        following = found[number + 1] if number + 1 < len(found) else None
        if (
            following is not None
            and following.after
            and not (chinese_passage(text) and {t for u in following.units for t in u} <= _CHINA)
            and not any(map(held, following.units))
            and not any(map(elsewhere, following.units))
            and max(map(weight, following.units)) >= weight(head)
        ):
            missing.append(" ".join(t for u in following.units for t in u))
    for term in terms(question):
        # A finance term of several words (a glossary phrase: "payout ratio") the passage and
        # its document lack, beside a passage on its neighbour ("dividend").
        units = [(t,) for t in term]
        if not any(map(held, units)) and not any(map(elsewhere, units)):
            missing.append(" ".join(term))
    asked = asked_amount(question) or ()
    measures = {t for a in alternatives(question) if not a.words for t in a.asked}
    named = [t for t in asked if len(t) > 1]
    suffixed = len(asked) > len(named)  # 离职率: a rate of 离职
    if named and (set(named) & measures or suffixed) and not any(held((t,)) for t in named):
        missing.append("".join(asked))
    return tuple(missing)


# Nouns a document is called by: a run ending in one, whose every word the document holds,
# names the document ("the NEV investment strategy summary"), narrowing no passage of it.
_DOCUMENT_NOUNS = frozenset(
    tokenize("report summary note statement factsheet policy presentation call transcript minutes")
)


def _names_the_document(
    run: Run, held: Callable[[Unit], bool], elsewhere: Callable[[Unit], bool]
) -> bool:
    return (
        len(run.units) > 1
        and run.units[-1][-1:] != ()
        and run.units[-1][-1] in _DOCUMENT_NOUNS
        and all(held(u) or elsewhere(u) for u in run.units)
    )


@lru_cache(maxsize=1024)
def participles(question: str) -> frozenset[Unit]:
    """The question's hyphenated words ending in a participle, as their tokens: "rate-setting"
    (it sets rates), "top-rated", "dollar-denominated". Either part may be what a passage says
    ("Monetary Policy Committee … Bank Rate", "rated AA-")."""
    found = re.findall(r"\b[a-z]+(?:-[a-z]+)*-[a-z]+(?:ing|ed)\b", question.lower())
    return frozenset(tuple(tokenize(w)) for w in found)


@lru_cache(maxsize=256)
def token_set(text: str) -> frozenset[str]:
    """The retrieval tokens of a passage or a whole document, kept: every question reads the
    same passages' and documents' tokens again."""
    return frozenset(tokenize(text))


@lru_cache(maxsize=1024)
def terms(question: str) -> tuple[tuple[str, ...], ...]:
    """The glossary's terms of several English words the question uses, as their tokens, in
    the question's order ("payout ratio", "core inflation")."""
    english = {t for run in runs(question) for u in run.units for t in u}
    found = []
    for alternative in alternatives(question):
        if alternative.words or len(alternative.asked) < 2 or not alternative.asked <= english:
            continue
        found.append(tuple(t for t in tokenize(question) if t in alternative.asked))
    return tuple(dict.fromkeys(found))


@lru_cache(maxsize=1024)
def labels(question: str) -> tuple[tuple[Unit, str], ...]:
    """The nouns the question gives a one-letter capital label, as (its tokens, the label):
    "class B" in "management fee for share class B" ("I" is the reader); and the editions it
    numbers ("version 3.1")."""
    found = [(tuple(tokenize(m.group(1))), m.group(2)) for m in _NUMBERED.finditer(question)]
    for match in _LABEL.finditer(question):
        noun = tuple(tokenize(match.group(1)))
        # A possessive names whose ("Aurora's A share class"), not what the letter labels.
        possessive = re.search(r"['’]s$", match.group(1)) is not None
        if noun and match.group(1).lower() not in _ARTICLES and not possessive:
            found.append((noun, match.group(2)))
    return tuple(found)


def labelled(noun: Unit, label: str, text: str) -> bool:
    """Whether `text` writes a word of the noun `noun` right before `label` ("class: B")."""
    for match in re.finditer(rf"([A-Za-z][A-Za-z'\-]*)\W{{0,3}}{re.escape(label)}\b", text):
        if tuple(tokenize(match.group(1))) == noun:
            return True
    return False


@lru_cache(maxsize=1024)
def asked_amount(question: str) -> Unit | None:
    """The word a Chinese question asks the amount or name of: the last word before 是多少,
    是什么, 是谁 or 为多少 (开支 in 蓝海科技第三季度的资本开支是多少)."""
    found = ZH_ASKED.search(question)
    if found is None:
        return None
    words = [tokenize(w) for w in cut(found.group(1))]
    words = [w for w in words if w]
    if len(words) > 1 and len(words[-1]) == 1 and len(words[-1][0]) == 1:
        # A one-character measure names an amount of the word before it: 率 of 离职 (a
        # turnover rate), 量 of 进口 (a volume of imports).
        return tuple(words[-2]) + tuple(words[-1])
    return tuple(words[-1]) if words else None


def acronyms(question: str) -> tuple[str, ...]:
    """Capitalised abbreviations the question writes ("US", "EV")."""
    return tuple(dict.fromkeys(_ACRONYM.findall(question)))


def spelt_out(acronym: str, text: str) -> bool:
    """Whether `text` writes `acronym` out: words starting with its letters, in order ("United
    States" for US)."""
    pattern = r"\b" + r"\w*[\s\-]+".join(re.escape(c) for c in acronym) + r"\w*"
    return re.search(pattern, text, re.IGNORECASE) is not None
