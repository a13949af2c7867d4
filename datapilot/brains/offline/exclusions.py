"""Exclusions: "except X", "excluding X", "other than X", "leave X out", "but not X", 除了X,
不算X, X除外 — the names a question leaves out of its list or group.

The parser asks this first, so a group with a member left out ("the factor ETFs except SIZE")
still stands for its other members; the reading then removes the member from its entities.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the parser imports this module
    from datapilot.brains.offline.parsing import Parsed

Span = tuple[int, int]

# --- exclusions --------------------------------------------------------------------------------

_EXCLUDE_BEFORE = re.compile(
    r"(?i)\b(?:except(?:\s+for)?|excluding|exclude|excluded|exclusive\s+of|other\s+than|apart\s+from|"
    r"aside\s+from|but\s+not|not\s+counting|not\s+including|leaving\s+out|leave\s+out|without|"
    r"ignoring|ignore|skipping|skip|barring|save\s+for|sans|setting\s+aside|set\s+aside|"
    r"putting\s+aside|leaving\s+aside|ex(?=[\s.])|(?<=\()not|(?<=,\s)not|(?<=[,，])not)\b"
    r"|\bex-(?=\w)"
    r"|除了|除去|除开|除掉|刨除|刨去|撇开|撇除|抛开|拿掉|剔掉|踢掉|不算|不包括|不包含|不含|剔除|排除"
    r"|去掉|去除|不用算|不要算|不计|不考虑|不看"
)
_COST = (
    r"(?:交易)?(?:费用|手续费|成本|佣金|税费?|融资成本|管理费)|"
    r"(?:trading\s+|transaction\s+)?(?:fees?|costs?|commissions?|taxes|financing|expenses)|"
    # what a core price index leaves out: "core CPI (ex food & energy)", 不含食品和能源
    r"food|energy|食品|能源"
)
# Costs left out ("ignore fees and financing", "before costs", 不计费用): a caveat every figure
# already meets, never a member removed.
COSTS_LEFT_OUT = re.compile(
    r"(?i)(?:\b(?:ignore|ignoring|excluding|exclude|before|without|not\s+counting|net\s+of|ex|"
    r"less|aside\s+from|apart\s+from|(?:setting|set|putting|leaving)\s+aside)[-\s]+"
    r"(?:any\s+|all\s+|the\s+)?|不计|不含|不包括|不算|忽略|扣除前的?)"
    rf"(?:{_COST})(?:\s*(?:and|or|&|和|与|及|、)\s*(?:{_COST}))*"
)

# Dividends left out ("no dividends", "don't add dividends back", 不算分红): what is left out is
# the dividends, never a member; an index's levels meet it, a stock's adjusted closes do not.
# Dividends said to count in a stock's return: what its adjusted closes already hold (each
# dividend reinvested on its day), "total return incl. dividends (adj close)", 含分红再投资.
DIVIDENDS_COUNTED = re.compile(
    r"(?i)\b(?:incl(?:uding|udes|\.)?|with|plus)\s+(?:the\s+|all\s+)?(?:reinvested\s+)?"
    r"dividends?(?:\s+reinvested)?\b"
    r"|\bdividends?\s+(?:reinvested|included|count(?:ed|s)?|back\s+in)\b"
    r"|\bso\s+(?:the\s+)?dividends?\s+(?:count|are\s+included|are\s+reinvested)\b"
    r"|(?:含|包含|包括|计入)(?:分红|股息)(?:再投资)?|(?:分红|股息)再投资"
)
# Dividends naming who asks, not what ("for my dividend-investing readers", "a dividend
# investor"): no measure.
DIVIDENDS_OF_THE_ASKER = re.compile(
    r"(?i)\bdividend[-\s](?:investing|investors?|growth\s+investors?|lovers?|fans?|hunters?|"
    r"seekers?|focused|crowd)\b"
)
DIVIDENDS_LEFT_OUT = re.compile(
    r"(?i)\b(?:no|without|excluding|ex|ignoring|ignore|not\s+including|before)[-\s]+"
    r"(?:reinvested\s+)?dividends?\b|\bdividends?\s+(?:excluded|not\s+included|ignored)\b"
    r"|\b(?:don'?t|do\s+not|without)\s+(?:add(?:ing)?|includ(?:e|ing)|count(?:ing)?|"
    r"reinvest(?:ing)?)\s+(?:the\s+|any\s+)?dividends?(?:\s+back(?:\s+in)?)?\b"
    r"|\bprice[-\s]+(?:return\s+)?only\b|(?:不含|不算|不计|不包括)(?:分红|股息)"
)


_EXCLUDE_AROUND = re.compile(r"(?i)\b(?:leave|leaving|drop|dropping|take|taking|keep|keeping)\b")
_EXCLUDE_OUT = re.compile(r"(?i)^\s*out\b")
_EXCLUDE_AFTER = re.compile(
    r"^\s*(?:除外|不算|不用算|不要算|不计|不包括在内|排除在外|不算在内|(?i:aside|excepted)\b)"
)
_EXCLUDE_AFTER_ANY = re.compile(r"除外|不算在内|排除在外|(?i:\baside\b|\bexcepted\b)")
_JOIN = re.compile(r"(?i)^(?:\s|,|，|、|&|and|or|和|与|及|以及|或|the|'s|’s)*$")
# In Chinese a comma ends the list a cue governs (除了辉瑞，礼来和默沙东…): only 、和与及 join.
_JOIN_ZH = re.compile(r"^(?:\s|、|和|与|及|以及|或)*$")
_INCLUSIVE_ZH = re.compile(r"^(?:以外|之外)?[，,]?\s*(?:还|也|另外)")


def _chain_after(
    text: str, start: int, mentions: list[tuple[Span, str]], join: re.Pattern[str] = _JOIN
) -> list[tuple[Span, str]]:
    """The names listed right after `start`, joined by commas and "and" / 、和."""
    chain: list[tuple[Span, str]] = []
    at = start
    for span, entity in sorted(mentions):
        if span[0] < at:
            continue
        if not join.match(text[at : span[0]]):
            break
        chain.append((span, entity))
        at = span[1]
    return chain


def _chain_before(text: str, end: int, mentions: list[tuple[Span, str]]) -> list[tuple[Span, str]]:
    """The names listed right before `end` (X、Y除外)."""
    chain: list[tuple[Span, str]] = []
    at = end
    for span, entity in sorted(mentions, reverse=True):
        if span[1] > at:
            continue
        if not _JOIN_ZH.match(text[span[1] : at]):
            break
        chain.append((span, entity))
        at = span[0]
    return list(reversed(chain))


def _occurrences(text: str, mentions: list[tuple[Span, str, list[str]]]) -> list[tuple[Span, str]]:
    """Every place an entity named in the question is written: a name said twice ("… and AMD,
    except AMD") is one mention of the catalog but two places in the text."""
    found: dict[Span, str] = {}
    for span, entity, forms in mentions:
        found[span] = entity
        for form in forms:
            if not form:
                continue
            flags = re.IGNORECASE if form.isascii() else 0
            edge = r"(?<![A-Za-z0-9])" if form.isascii() else ""
            tail = r"(?![A-Za-z0-9])" if form.isascii() else ""
            for hit in re.finditer(edge + re.escape(form) + tail, text, flags):
                if not any(s <= hit.start() < e for s, e in found):
                    found[hit.span()] = entity
    return sorted(found.items())


def excluded_spans(
    text: str, mentions: list[tuple[Span, str, list[str]]]
) -> list[tuple[Span, str]]:
    """The places of the names the question leaves out, with their entity ids."""
    places = _occurrences(text, mentions)
    removed: list[tuple[Span, str]] = []
    for cue in _EXCLUDE_BEFORE.finditer(text):
        join = _JOIN if cue.group(0).isascii() else _JOIN_ZH
        chain = _chain_after(text, cue.end(), places, join)
        if not chain:
            continue
        if cue.group(0).startswith("除") and _INCLUSIVE_ZH.match(text[chain[-1][0][1] :]):
            continue  # 除了苹果，还有…: besides, not except
        removed += chain
    for verb in _EXCLUDE_AROUND.finditer(text):  # "leave AMD out", "keep JPM out of it"
        chain = _chain_after(text, verb.end(), places)
        if chain and _EXCLUDE_OUT.match(text[chain[-1][0][1] :]):
            removed += chain
    for span, _ in places:
        if _EXCLUDE_AFTER.match(text[span[1] :]):
            removed += _chain_before(text, span[1], places)
    return removed


def cue_spans(text: str) -> list[Span]:
    """The words saying something is left out (except, 除了, 除外, leave … out)."""
    spans = [m.span() for m in _EXCLUDE_BEFORE.finditer(text)]
    spans += [m.span() for m in _EXCLUDE_AFTER_ANY.finditer(text)]
    for verb in _EXCLUDE_AROUND.finditer(text):
        out = re.compile(r"(?i)\bout\b").search(text, verb.end(), verb.end() + 40)
        if out is not None:
            spans += [verb.span(), out.span()]
    return spans


def read_exclusions(parsed: Parsed) -> tuple[list[str], list[Span]]:
    """The entity ids the question leaves out, and the spans of the words saying so."""
    mentions = [(m.span, m.entity.id, _forms(m)) for m in parsed.mentions]
    removed = excluded_spans(parsed.text, mentions)
    if not removed:
        return [], []
    # The cue words and every place a removed name is written: both read by the exclusion.
    gone = {e for _, e in removed}
    places = [span for span, e in _occurrences(parsed.text, mentions) if e in gone]
    # 除了X以外 / 之外: the closing words of the exclusion, read with it
    closing = [
        (end + found.start(1), end + found.end(1))
        for _, end in places
        if (found := _CLOSING_ZH.match(parsed.text[end:])) is not None
    ]
    return list(dict.fromkeys(e for _, e in removed)), cue_spans(parsed.text) + places + closing


_CLOSING_ZH = re.compile(r"\s*(以外|之外)")


def _forms(mention: object) -> list[str]:
    """How an entity may be written: the words it was found by, its id, name and aliases."""
    entity = mention.entity  # type: ignore[attr-defined]
    forms = [mention.text, entity.id, entity.name, *entity.aliases]  # type: ignore[attr-defined]
    return [f for f in forms if len(f) >= 2]


def exclusion_note(removed: list[str], zh: bool) -> str:
    """The answer's note naming what was left out, as asked."""
    if zh:
        return f"按您的要求，不含{'、'.join(removed)}。"
    return f"Leaving out {', '.join(removed)}, as asked."
