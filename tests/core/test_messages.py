"""One Message type and role set: each protocol's roles translate in."""

from __future__ import annotations

import pytest

from datapilot.core.context import ChatMessage
from datapilot.core.messages import ROLES, LmcChunk, Message, from_openai, from_openbb


@pytest.mark.parametrize(
    ("incoming", "roles"),
    [
        (from_openbb, {"human": "human", "ai": "assistant", "tool": "tool"}),
        (
            from_openai,
            {
                "system": "system",
                "developer": "system",
                "user": "human",
                "assistant": "assistant",
                "tool": "tool",
            },
        ),
    ],
)
def test_each_protocol_role_becomes_a_platform_role(incoming, roles) -> None:
    for role, ours in roles.items():
        assert incoming(role) == ours and ours in ROLES


def test_an_unknown_role_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"'robot' is not an OpenAI role \(one of system, "):
        from_openai("robot")
    with pytest.raises(ValueError, match="not an OpenBB role"):
        from_openbb("user")


def test_a_workspace_turn_becomes_a_platform_message() -> None:
    assert ChatMessage(role="ai", content="2").to_message() == Message(
        role="assistant", content="2"
    )
    assert ChatMessage(role="human", content="hi").to_message().role == "human"
    assert not Message(role="system_hidden").shown and Message(role="assistant").shown


def test_an_lmc_chunk_leaves_unset_fields_off_the_wire() -> None:
    chunk = LmcChunk(role="assistant", type="message", start=True)
    assert chunk.wire() == '{"role":"assistant","type":"message","start":true}'
