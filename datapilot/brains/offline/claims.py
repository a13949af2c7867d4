"""A figure the question checks: "a headline said Exxon gained more than 60% in 2021. Was it
really that much?", "was the Baa yield above 8% in December 2008? yes or no", "a columnist wrote
it lost about 78%", 号称涨了50%以上，是真的吗. The answer's own figure decides it; the reader
keeps the claim so the answer can say whether it holds.
"""

from __future__ import annotations

import re

from datapilot.brains.offline.honour import FIGURE, THRESHOLD, claimed_figure
from datapilot.brains.offline.how_much import MULTIPLE, MULTIPLE_CHECKED
from datapilot.core.intent import Claim

_BELOW = re.compile(
    r"(?i)below|under|less|lower|smaller|at most|south|低于|小于|跌破|不超过|不高于|少于|以下|之下"
)
_ABOUT = re.compile(
    r"(?i)\b(?:about|around|roughly|nearly|almost|some|approximately)\s*$|(?:约|大约|近|将近|差不多)$"
)
# A fall said with the figure: "lost about 78%", "down 30%", 跌了50%.
_FALL = re.compile(
    r"(?i)\b(?:lost|los(?:e|es|ing)|f[ae]ll(?:s|en)?|drop(?:s|ped)?|down|declin(?:e|ed)|"
    r"crash(?:ed)?|plung(?:e|ed)|shed)\b|跌|亏|缩水"
)


def read_claim(text: str) -> Claim | None:
    """The one figure in percent the question checks, or None (none, or several)."""
    found: list[Claim] = []
    taken: list[tuple[int, int]] = []
    for match in THRESHOLD.finditer(text):
        said = match.group(0)
        if "%" not in said and not re.match(r"\s*(?:%|percent)", text[match.end() :]):
            continue
        if not claimed_figure(text, match.start()):
            continue
        side = "below" if _BELOW.search(said) else "above"
        said = said if "%" in said else said.rstrip() + "%"
        found.append(_claim(text, said, side, match.start()))
        taken.append(match.span())
    for match in FIGURE.finditer(text):
        if any(s <= match.start() < e for s, e in taken) or not claimed_figure(text, match.start()):
            continue
        side = "about"
        found.append(_claim(text, match.group(0), side, match.start()))
    if not found and (multiple := MULTIPLE.search(text)) is not None:
        said = multiple.group(0)
        times = next((v for word, v in _TIMES if word.search(said)), None)
        if times is not None and MULTIPLE_CHECKED.search(text) is not None:
            more = _MORE.search(said) is not None
            found.append(
                Claim(
                    said=said.strip(),
                    side="above",
                    value=abs(times - 1) * 100,
                    fall=times < 1,
                    inclusive=not more,
                )
            )
    return found[0] if len(found) == 1 else None


# What a multiple says of the end over the start (腰斩: half of it is left).
_TIMES = (
    (re.compile(r"(?i)doubl|翻了?一?倍|翻番"), 2.0),
    (re.compile(r"(?i)tripl"), 3.0),
    (re.compile(r"(?i)quadrupl"), 4.0),
    (re.compile(r"(?i)halv|腰斩"), 0.5),
)
_MORE = re.compile(r"(?i)more\s+than|over")


def _claim(text: str, said: str, side: str, at: int) -> Claim:
    number = re.search(r"\d[\d,]*(?:\.(\d+))?", said)
    assert number is not None  # both patterns hold a number
    before = text[max(0, at - 40) : at]
    about = _ABOUT.search(before) is not None
    return Claim(
        said=(f"{before.split()[-1]} " if about and before.split() else "") + said.strip(),
        side="about" if about else side,  # type: ignore[arg-type]
        value=float(number.group(0).replace(",", "")),
        fall=_FALL.search(text[max(0, at - 30) : at]) is not None,
        decimals=len(number.group(1) or ""),
    )


# A gap between two names' returns claimed: "Exxon outgained Chevron by over 10 points",
# "trailed the S&P 500 by about 19 points", 跑输大盘将近10个百分点.
_AHEAD = r"outgain\w*|outperform\w*|outpac\w*|outr[ae]n|beat(?:s|en)?|topp(?:ed|ing)|tops?"
_BEHIND = r"trail\w*|lag(?:s|ged|ging)?|underperform\w*"
_GAP_CLAIMED = re.compile(
    rf"(?i)\b(?:(?P<ahead>{_AHEAD})|(?P<behind>{_BEHIND}))\b[^.?!;]{{1,60}}?\bby\s+"
    r"(?P<q>over|more\s+than|at\s+least|about|around|roughly|nearly|almost|close\s+to|"
    r"less\s+than|under|some)?\s*(?P<n>\d+(?:\.\d+)?)\s*"
    r"(?:percentage[-\s]points?|points?|pts|pp|ppts|%)"
    r"|(?:(?P<ahead_zh>跑赢|领先|多涨)|(?P<behind_zh>跑输|落后|少涨))(?:了|于)?[^，。？！,?!]{0,15}?"
    r"(?P<q_zh>将近|接近|近|约|大约|大概|超过|逾|至少|不到|不足)?\s*(?P<n_zh>\d+(?:\.\d+)?)\s*"
    r"(?:个)?(?:百分点|点)"
)
GAP_CLAIMED = "a gap claimed between the two"  # the span's label for the ledger
_ABOVE_SAID = re.compile(r"(?i)over|more|at\s+least|超过|逾|至少")
_BELOW_SAID = re.compile(r"(?i)less|under|不到|不足")


def read_gap_claim(text: str, named: list[tuple[int, str]]) -> tuple[Claim, tuple[int, int]] | None:
    """The gap between two names' returns a question checks, with where it was said; `named`:
    each name's position and id, in order. The name said before the verb is its subject: it
    came out ahead ("beat", 跑赢) or behind ("trailed", 跑输) the other."""
    found = _GAP_CLAIMED.search(text)
    if found is None or len({n for _, n in named}) != 2:
        return None
    english = found.group("n") is not None
    number, qualifier = (
        (found.group("n"), found.group("q") or "")
        if english
        else (found.group("n_zh"), found.group("q_zh") or "")
    )
    said_from = found.start(
        ("q" if english else "q_zh") if qualifier else ("n" if english else "n_zh")
    )
    if not claimed_figure(text, said_from):
        return None
    before = [n for at, n in named if at < found.start()]
    if not before:
        return None
    subject = before[-1]
    other = next(n for _, n in named if n != subject)
    ahead = bool(found.group("ahead") or found.group("ahead_zh"))
    above, below = _ABOVE_SAID.search(qualifier), _BELOW_SAID.search(qualifier)
    claim = Claim(
        said=text[said_from : found.end()].strip(),
        side="above" if above else "below" if below else "about",
        value=float(number),
        decimals=len(number.partition(".")[2]),
        inclusive="least" in qualifier or "至少" in qualifier,
        leader=subject if ahead else other,
    )
    return claim, found.span()
