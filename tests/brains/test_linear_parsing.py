"""Reading a question costs time in proportion to its length: a long question (pasted text, an
attack) must not cost the square of it. Measured as a ratio of timings, never absolute times."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import date

import pytest

from datapilot.core.context import QuestionContext
from datapilot.settings import Settings

WORDS = "Apple Microsoft 苹果 revenue chart compare returns 2021 since 2019 "
# Names close together: thousands of candidates, where a pairwise selection shows at once.
DENSE = "AAPL MSFT 苹果 "

pytestmark = pytest.mark.perf


def _text(chars: int, words: str = WORDS) -> str:
    return (words * (chars // len(words) + 1))[:chars]


def _ratio(long: Callable[[], object], short: Callable[[], object], repeat: int = 3) -> float:
    """Best time of `long` over best time of `short`, measured in turns (other tests run
    beside this one: interleaving keeps both under the same load). The time is this thread's
    CPU time: waiting for a core on a loaded machine is not the parser's work, and wall-clock
    ratios swung from 10x to 50x with the load."""
    best = {"long": float("inf"), "short": float("inf")}
    for _ in range(repeat):
        for name, action in (("short", short), ("long", long)):
            started = time.thread_time()
            action()
            best[name] = min(best[name], time.thread_time() - started)
    return best["long"] / best["short"]


def test_the_entity_matcher_is_linear_in_the_question(data) -> None:
    matcher = data.catalog._index()  # the catalog's matcher, built once
    short, long = _text(4_000, DENSE), _text(40_000, DENSE)
    assert len(matcher.find(long)) > 5_000  # thousands of names found and selected
    ratio = _ratio(lambda: matcher.find(long), lambda: matcher.find(short))
    # Ten times the text: about ten times the time (the pairwise selection took 50×).
    assert ratio < 25, f"40k/4k characters took {ratio:.1f}× as long"


@pytest.mark.slow
def test_the_offline_brain_is_linear_in_the_question(data) -> None:
    from datapilot.engine.context import RequestContext
    from datapilot.plugins import brains

    context = QuestionContext(today=date(2022, 12, 28), brain="offline", offline=True)
    brain = brains()["offline"](RequestContext.for_request(context, Settings()))
    asyncio.run(brain.understand("Apple in 2021", context))  # build the grammars first
    short, long = _text(4_000), _text(40_000)

    def understand(text: str) -> Callable[[], object]:
        return lambda: asyncio.run(brain.understand(text, context))

    ratio = _ratio(understand(long), understand(short), 2)
    # Ten times the text: about ten times the time; anything quadratic would be far above 30.
    assert ratio < 30, f"40k/4k characters took {ratio:.1f}× as long"
