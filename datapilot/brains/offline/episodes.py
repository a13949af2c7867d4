"""What an answer says of a named episode it dated a window by ("since COVID").

The days come from `vocab/episodes.toml`, where each episode's sources are cited; the answer's
note names the days used and why those days, so a user who means another start can say it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from datapilot.brains.offline.vocab import Episode, EpisodesFile
from datapilot.brains.offline.windows import Clause, TimeReading

# The time grammar's note when written dates beat a named episode ("the great recession, from
# 2007 through 2008"): the episode's days were not used.
DATES_DECIDE = "dates given with a named episode: the dates decide"


def named_episodes(
    time: TimeReading, episodes: EpisodesFile
) -> Iterator[tuple[Clause, str, Episode]]:
    """Each time phrase read as a named episode, with the name as said and the episode."""
    for clause in time.clauses:
        found = episodes.named(clause.text)
        if found is not None:
            yield clause, *found


def episode_notes(time: TimeReading, episodes: EpisodesFile, zh: bool) -> list[str]:
    """A note per named episode a time phrase of the question was read as."""
    if DATES_DECIDE in time.notes:
        return []
    notes = []
    for clause, said, episode in named_episodes(time, episodes):
        if episode.start == episode.end:
            days = episode.start.isoformat()
        else:
            days = f"{episode.start}至{episode.end}" if zh else f"{episode.start} to {episode.end}"
        # A length beside the episode ("the month after the COVID crash bottom") says its own
        # window too: the episode's days alone do not tell which of them it was anchored on.
        anchored = clause.rule == "duration" and clause.start and clause.end
        # An edge that is neither end of the episode ("since the COVID low"): its day is said.
        edges = {"low": episode.low, "high": episode.high}
        edge = next((k for k, d in edges.items() if d and clause.start == d != episode.start), None)
        if zh:
            window = f"，“{clause.text}”即{clause.start}至{clause.end}" if anchored else ""
            if edge and not anchored:
                window = f"，其{'低点' if edge == 'low' else '高点'}为{clause.start}"
            notes.append(f"“{said}”按{days}计（{episode.why_zh}）{window}。")
        else:
            window = f'; "{clause.text}" is {clause.start} to {clause.end}' if anchored else ""
            if edge and not anchored:
                window = f"; its {edge} is {clause.start}"
            notes.append(f'"{said}" is dated {days} ({episode.why}){window}.')
    return notes


# A Fed rate cycle as `spelling.name_fed_cycles` writes it: "the 1994 hiking cycle".
_CYCLE = re.compile(
    r"(?i)\bthe (?:19|20)\d{2} (?:hiking|cutting) cycle\b|(?:19|20)\d{2}年(?:加息|降息)周期"
)


def unknown_cycle(time: TimeReading, episodes: EpisodesFile, text: str, zh: bool) -> str | None:
    """The message for a Fed rate cycle the question dates its window by and that no episode
    dates ("the 1994 hiking cycle"), or None: its calendar year is not its days."""
    read = [clause.span for clause, _, _ in named_episodes(time, episodes)]
    for found in _CYCLE.finditer(text):
        if any(s <= found.start() and found.end() <= e for s, e in read):
            continue
        cycles = [(k, e) for k, e in episodes.episodes.items() if k.startswith("fed_")]
        if zh:
            known = "、".join(
                f"{e.start.year}年{'加息' if 'hikes' in k else '降息'}周期（{e.start}至{e.end}）"
                for k, e in cycles
            )
            return (
                f"我没有“{found.group(0)}”的起止日期（美联储第一次和最后一次调息）。"
                f"我知道的有：{known}；也可以直接给出日期。"
            )
        known = "; ".join(
            f"the {e.start.year} {'hiking' if 'hikes' in k else 'cutting'} cycle "
            f"({e.start} to {e.end})"
            for k, e in cycles
        )
        return (
            f"I don't have the days of \"{found.group(0)}\" (the FOMC's first and last move). "
            f"The cycles I know: {known}; or give the dates."
        )
    return None
