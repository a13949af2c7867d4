"""The SSRF suite of imported tools: every attempt to make Datapilot reach a private, loopback,
link-local, multicast or metadata address — as a source to import, as the server an imported
operation calls, through redirects, DNS answers that change, odd IP spellings — is refused with a
message naming what was refused and what to do; oversized and slow answers are stopped."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from support.loopback_server import BIG_BYTES, LOOPBACK, LoopbackServer, loopback_server

from datapilot.net import (
    OutboundError,
    OutboundLimits,
    OutboundPolicy,
    OutboundRefused,
    OutboundTimeout,
    OutboundTooLarge,
    RateLimiter,
    fetch,
)
from datapilot.settings import Settings
from datapilot.tools.imported import OpenAPITool
from datapilot.tools.openapi import OperationSpec
from datapilot.tools.sources import SourceError, SourceIn, read_source

pytestmark = LOOPBACK
NOBODY = OutboundPolicy()  # the default: nothing non-public is allowed

ATTACKS = [
    ("http://127.0.0.1/openapi.json", "loopback"),
    ("http://localhost:8080/openapi.json", "loopback"),
    ("http://LOCALHOST./openapi.json", "loopback"),
    ("http://10.0.0.1/openapi.json", "private"),
    ("http://172.16.5.4/openapi.json", "private"),
    ("http://192.168.1.1:8443/openapi.json", "private"),
    ("http://169.254.169.254/latest/meta-data/", "metadata"),
    ("http://100.100.100.200/latest/meta-data/", "metadata"),
    ("http://100.64.0.1/", "CGNAT"),
    ("http://0.0.0.0:7777/", "unspecified"),
    ("http://224.0.0.1/", "multicast"),
    ("http://[::1]/openapi.json", "loopback"),
    ("http://[::ffff:127.0.0.1]/openapi.json", "loopback"),  # IPv4-mapped IPv6
    ("http://[::ffff:a9fe:a9fe]/", "metadata"),  # 169.254.169.254, mapped and in hex
    ("http://[fe80::1]/", "link-local"),
    ("http://[fc00::1]/", "private"),
    ("http://[fd00:ec2::254]/", "metadata"),
    ("http://2130706433/", "loopback"),  # 127.0.0.1 as one decimal number
    ("http://0177.0.0.1/", "not a valid URL"),  # octal: ambiguous, so not read at all
    ("http://0x7f.0.0.1/", "loopback"),  # hex
    ("http://127.1/", "loopback"),  # the short form
    ("http://user:pw@127.0.0.1/", "loopback"),  # credentials before the real host
    ("file:///etc/passwd", "only http and https"),
    ("gopher://127.0.0.1:70/_", "only http and https"),
    ("ftp://example.com/openapi.json", "only http and https"),
]


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with loopback_server() as served:
        served.files["spec.json"] = ("application/json", b'{"openapi": "3.0.1", "paths": {}}')
        served.files["binary"] = ("application/octet-stream", b"\x00" * 10)
        yield served


@pytest.mark.parametrize(("url", "reason"), ATTACKS)
def test_importing_from_a_refused_address_says_why(url: str, reason: str) -> None:
    with pytest.raises(SourceError) as refused:
        read_source(SourceIn(url=url), NOBODY)
    message = str(refused.value)
    assert reason.lower() in message.lower(), message
    if reason in ("loopback", "private", "metadata", "link-local", "multicast"):
        assert "DATAPILOT_OUTBOUND_ALLOW" in message  # what to do, when it is the operator's call


def _tool(base_url: str, settings: Settings | None = None) -> OpenAPITool:
    spec = OperationSpec(
        name="Evil_get",
        qualified="Evil.get",
        operation="get",
        method="GET",
        path="/latest/meta-data/iam",
        base_url=base_url,
        parameters={"type": "object", "properties": {}},
    )
    return OpenAPITool(spec=spec, settings=settings or Settings(), policy=NOBODY)


@pytest.mark.parametrize(
    "base", ["http://169.254.169.254", "http://[::1]:9000", "http://10.1.2.3", "http://0x7f000001"]
)
def test_an_imported_operation_cannot_call_a_private_server(base: str) -> None:
    with pytest.raises(OutboundRefused) as refused:
        asyncio.run(_tool(base).call({}))
    assert (
        "Refused" in refused.value.message and "DATAPILOT_OUTBOUND_ALLOW" in refused.value.message
    )


@pytest.mark.parametrize(
    "target",
    [
        "http://10.0.0.1/openapi.json",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:1/",
        "file:///etc/passwd",
    ],
)
def test_a_redirect_from_an_allowed_host_to_a_refused_one_is_refused(
    server: LoopbackServer, target: str
) -> None:
    policy = OutboundPolicy.from_entries([server.allow])
    with pytest.raises(SourceError) as refused:
        read_source(SourceIn(url=f"{server.base}/redirect?to={target}"), policy)
    assert "Refused" in str(refused.value) or "refused" in str(refused.value)


def test_dns_rebinding_cannot_switch_the_address_after_the_check(server: LoopbackServer) -> None:
    # The name first resolves to the (allowed) loopback server, then to a private address.
    answers = iter([["127.0.0.1"], ["10.0.0.1"], ["10.0.0.1"]])
    asked: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        asked.append(host)
        return next(answers)

    policy = OutboundPolicy.from_entries([server.allow])
    url = f"http://rebind.example:{server.port}/files/spec.json"
    response = fetch(url, policy=policy, resolver=rebinding)
    assert response.status == 200 and asked == ["rebind.example"]  # resolved once, pinned


def test_dns_answer_pointing_inside_is_refused_before_connecting() -> None:
    with pytest.raises(OutboundRefused) as refused:
        fetch("http://innocent.example/", policy=NOBODY, resolver=lambda h, p: ["10.0.0.7"])
    assert "innocent.example resolves to 10.0.0.7 (a private address)" in refused.value.message


def test_a_mixed_dns_answer_is_refused() -> None:
    stub = lambda h, p: ["93.184.216.34", "169.254.169.254"]  # noqa: E731
    with pytest.raises(OutboundRefused) as refused:
        fetch("http://mixed.example/", policy=NOBODY, resolver=stub)
    assert "cloud metadata" in refused.value.message


def test_the_allow_list_is_exact_about_the_port(server: LoopbackServer) -> None:
    policy = OutboundPolicy.from_entries([f"127.0.0.1:{server.port + 1}"])
    with pytest.raises(OutboundRefused):
        fetch(f"{server.base}/files/spec.json", policy=policy)


def test_an_oversized_answer_is_refused_or_cut_with_a_marker(server: LoopbackServer) -> None:
    policy = OutboundPolicy.from_entries([server.allow])
    with pytest.raises(OutboundTooLarge) as large:
        fetch(f"{server.base}/big", policy=policy, limits=OutboundLimits(max_bytes=50_000))
    assert "size cap" in large.value.message
    cut = fetch(
        f"{server.base}/big", policy=policy, limits=OutboundLimits(max_bytes=50_000, truncate=True)
    )
    assert cut.truncated and len(cut.content) == 50_000 < BIG_BYTES


def test_a_slow_answer_times_out(server: LoopbackServer) -> None:
    policy = OutboundPolicy.from_entries([server.allow])
    with pytest.raises(OutboundTimeout) as slow:
        fetch(f"{server.base}/slow", policy=policy, limits=OutboundLimits(read_s=0.5, total_s=1))
    assert "try again later" in slow.value.message


def test_an_unexpected_content_type_is_refused(server: LoopbackServer) -> None:
    policy = OutboundPolicy.from_entries([server.allow])
    limits = OutboundLimits(content_types=frozenset({"application/json", "text/*"}))
    assert fetch(f"{server.base}/files/spec.json", policy=policy, limits=limits).status == 200
    with pytest.raises(OutboundRefused) as refused:
        fetch(f"{server.base}/files/binary", policy=policy, limits=limits)
    assert "application/octet-stream" in refused.value.message


def test_calls_of_one_tool_are_rate_limited() -> None:
    limiter = RateLimiter(per_minute=3)
    for _ in range(3):
        limiter.check("Evil.get")
    with pytest.raises(OutboundError) as limited:
        limiter.check("Evil.get")
    assert "DATAPILOT_TOOL_CALLS_PER_MINUTE" in limited.value.message
    limiter.check("Other.get")  # the budget is per tool
