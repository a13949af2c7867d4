"""What an answer says of a named episode it dated a window by ("since COVID").

The days come from `vocab/episodes.toml`, where each episode's sources are cited; the answer's
note names the days used and why those days, so a user who means another start can say it.
"""

from __future__ import annotations

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
