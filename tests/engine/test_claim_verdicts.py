"""The verdict on a checked claim: a fall's claim is about the size of a fall, and a rise of the
same size bears out no fall ("lost about 78%" against +78% does not hold)."""

from __future__ import annotations

import pytest

from datapilot.core.intent import Claim
from datapilot.engine.summary.claims import _holds


@pytest.mark.parametrize(
    ("claim", "figure", "holds"),
    [
        (Claim(said="about 78%", side="about", value=78, fall=True), -77.93, True),
        (Claim(said="about 78%", side="about", value=78, fall=True), 78.0, False),
        (Claim(said="腰斩", side="above", value=50, fall=True, inclusive=True), -55.36, True),
        (Claim(said="腰斩", side="above", value=50, fall=True, inclusive=True), -49.9, False),
        (Claim(said="less than 10%", side="below", value=10, fall=True), 4.0, True),
        (Claim(said="doubled", side="above", value=100, inclusive=True), 100.0, True),
        (Claim(said="more than 60%", side="above", value=60), 57.58, False),
        (Claim(said="66.7%", side="about", value=66.7, decimals=1), 66.70, True),
        (Claim(said="66.7%", side="about", value=66.7, decimals=1), 61.7, False),
    ],
)
def test_a_claim_holds_only_where_the_figure_bears_it_out(
    claim: Claim, figure: float, holds: bool
) -> None:
    assert _holds(claim, figure) is holds
