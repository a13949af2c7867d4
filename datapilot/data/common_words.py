"""English word frequencies for everyday words, without loading wordfreq.

wordfreq's import and its English list take ~0.3 s (more on a busy machine), paid by every
question that asks whether a word is everyday vocabulary. The words at or above `FLOOR_ZIPF`
ship in `common_words.json` (generated from wordfreq by `python -m datapilot.data.common_words`;
a test compares both when wordfreq is installed). `zipf` answers as `wordfreq.zipf_frequency(word,
"en")` does for the words questions contain; anything the shipped list cannot decide (several
digits in a row, apostrophes, dots, non-ASCII letters) is asked of wordfreq itself.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from importlib import resources

# The shipped list holds every plain token whose Zipf frequency is at least this: below it a
# word is never "common", so its exact frequency does not matter to any caller.
FLOOR_ZIPF = 4.0

_DATA = "common_words.json"
# ASCII letters and single digits, joined by "&" or "-": wordfreq splits such a word at the
# joins ("s&p" → s, p) and looks each part up as it is.
_SIMPLE = re.compile(r"[a-z0-9]+(?:[&-][a-z0-9]+)*")
_JOINS = re.compile(r"[&-]")
_DIGITS = re.compile(r"[0-9]{2}")


@cache
def _buckets() -> dict[str, int]:
    """Word → wordfreq's bucket (frequency 10 ** (-bucket / 100))."""
    raw = resources.files(__package__).joinpath(_DATA).read_text(encoding="utf-8")
    buckets: dict[str, int] = json.loads(raw)["buckets"]
    return buckets


def common_words() -> frozenset[str]:
    """The everyday English words (Zipf frequency `FLOOR_ZIPF` and above) the shipped list
    holds."""
    return frozenset(_buckets())


def zipf(word: str) -> float:
    """The Zipf frequency of an English `word`, as wordfreq's `zipf_frequency(word, "en")`,
    except that anything below `FLOOR_ZIPF` may be given as 0."""
    lowered = word.lower()
    if not lowered.isascii() or not _SIMPLE.fullmatch(lowered) or _DIGITS.search(lowered):
        from wordfreq import zipf_frequency  # rare words: its list loads on first use

        return float(zipf_frequency(word, "en"))
    buckets = _buckets()
    one_over = 0.0
    for part in _JOINS.split(lowered):
        bucket = buckets.get(part)
        if bucket is None:
            return 0.0  # rarer than the floor (or unknown): wordfreq gives < FLOOR_ZIPF
        one_over += 1.0 / 10 ** (-bucket / 100)
    # wordfreq's rounding: three significant digits, then Zipf to two decimals.
    freq = 1.0 / one_over
    freq = round(freq, math.floor(-math.log(freq, 10)) + 3)
    return round(math.log(freq, 10) + 9, 2)


def build() -> dict[str, object]:
    """The shipped list, from wordfreq (needs it installed)."""
    from importlib.metadata import version

    import wordfreq

    pack = wordfreq.get_frequency_list("en", "best")
    floor_bucket = round((9 - FLOOR_ZIPF) * 100)  # frequency 10**(FLOOR_ZIPF - 9)
    buckets = {
        word: index
        for index, bucket in enumerate(pack[: floor_bucket + 1])
        for word in bucket
        if word.isascii() and re.fullmatch(r"[a-z0-9]+", word) and not _DIGITS.search(word)
    }
    return {
        "source": f"wordfreq {version('wordfreq')} 'best' English list, "
        f"plain tokens with Zipf frequency >= {FLOOR_ZIPF}",
        "buckets": buckets,
    }


if __name__ == "__main__":  # regenerate: python -m datapilot.data.common_words
    from pathlib import Path

    target = Path(__file__).with_name(_DATA)
    target.write_text(json.dumps(build(), separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {target}")
