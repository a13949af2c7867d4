"""One Message type and role set: each protocol's roles translate in and back out."""

from __future__ import annotations

import pytest

from datapilot.core.context import ChatMessage
from datapilot.core.messages import (
    ROLES,
    LmcChunk,
    Message,
    from_lmc,
    from_openai,
    from_openbb,
    to_lmc,
    to_openai,
    to_openbb,
)


@pytest.mark.parametrize(
    ("protocol", "incoming", "outgoing", "roles"),
    [
        ("openbb", from_openbb, to_openbb, ["human", "ai", "tool"]),
        ("openai", from_openai, to_openai, ["system", "user", "assistant", "tool"]),
        ("lmc", from_lmc, to_lmc, ["user", "assistant", "computer"]),
    ],
)
def test_every_protocol_role_survives_the_round_trip(protocol, incoming, outgoing, roles) -> None:
    for role in roles:
        assert outgoing(incoming(role)) == role, (protocol, role)


def test_every_platform_role_has_a_place_in_each_protocol() -> None:
    for role in ROLES:
        assert to_openai(role) in ("system", "user", "assistant", "tool")
        assert to_openbb(role) in ("human", "ai", "tool")
        assert to_lmc(role) in ("user", "assistant", "computer")
    # What the user wrote is the user's everywhere; hidden system prompts are system prompts.
    assert (to_openai("human_hidden"), to_openai("system_hidden")) == ("user", "system")
    assert to_openai("knowledge") == "system" and to_openai("tool_call") == "assistant"


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
