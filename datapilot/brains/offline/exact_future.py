"""An exact figure asked for a day after the data: "What exact price will Microsoft close at on
June 30, 2023?", 微软2023年6月30日的收盘价确切是多少.

No data holds a price before its day, and a forecast is an estimate with a range, not the exact
figure asked for; so such a question is declined (`no_data`) with the forecast that can be asked
instead, never answered `ok` with a modelled number standing in for the exact one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datapilot.brains.offline.reading import Reading

from datapilot.brains.offline.periods import Duration
from datapilot.data.phrases_zh import chinese_name

# "exact", "precisely", "for certain", 确切, 准确, 精确 — a certainty only the day itself gives.
EXACT = re.compile(
    r"(?i)\b(?:exact|exactly|precise|precisely|for\s+(?:certain|sure)|guaranteed|definitely)\b"
    r"|确切|准确|精确|精准|一定会|肯定会"
)
# "will", "going to", 会是, 将会: a figure after today even where no date after today is said.
FUTURE_TENSE = re.compile(r"(?i)\b(?:will|going\s+to|gonna)\b|会是|将会|将是|会涨到|会跌到|未来")


def exact_future(reading: Reading) -> bool:
    """Decline an exact figure asked after the data ends; True when declined."""
    future = reading.future
    found = EXACT.search(reading.text)
    if found is None:
        return False
    ahead = future is not None or reading.horizon is not None or "forecast" in reading.metrics
    if not ahead and not FUTURE_TENSE.search(reading.text):
        return False
    name = reading.entities[0] if reading.entities else None
    reading.status = "no_data"
    said = found.group(0)
    steps = reading.horizon
    horizon = Duration(steps.count, steps.unit).label(reading.zh) if steps else ""
    if reading.zh:
        who = chinese_name(name) if name else "它"
        when = f"在{future[1]}" if future else f"未来{horizon}" if horizon else "将来"
        reading.message = (
            f"没有数据能给出{who}{when}的确切数值：那天到来之前没人知道。"
            f"预测只能给出一个估计值和区间，例如可以问：“预测{who}{when}的走势”。"
        )
        reading.trace.append(f"“{said}”：要的是未来的确切数值，数据里没有")
    else:
        who = name.name if name else "it"
        when = f"on {future[1]}" if future else f"in {horizon}" if horizon else "in the future"
        until = f"to {future[1]}" if future else f"for the next {horizon or '6 months'}"
        reading.message = (
            f"No data holds the exact value of {who} {when}: it is not known before that day. "
            f'A forecast gives an estimate with a range instead — ask "Forecast {who} {until}".'
        )
        reading.trace.append(f'"{said}": an exact figure after the data, which no data holds')
    return True
