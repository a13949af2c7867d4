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
