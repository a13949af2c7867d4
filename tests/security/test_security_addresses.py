"""IPv6 forms that carry an IPv4 address (6to4, NAT64, Teredo, IPv4-mapped, -compatible and
-translated) are judged by the IPv4 address they carry: loopback, metadata and private ones are
refused whatever their spelling, and a public one is as public as its IPv4 address. Unit tests
of the policy: nothing is sent."""

from __future__ import annotations

import ipaddress

import pytest

from datapilot.net import OutboundPolicy, address_problem

TEREDO_SERVER = 0x4136E378  # 65.54.227.120, a Teredo server; the client follows, inverted


def forms(v4: str) -> dict[str, ipaddress.IPv6Address]:
    """`v4` in every IPv6 form that embeds it."""
    n = int(ipaddress.IPv4Address(v4))
    teredo = (0x2001_0000 << 96) | (TEREDO_SERVER << 64) | (0x8000_63BF << 32) | (n ^ 0xFFFFFFFF)
    return {
        "6to4": ipaddress.IPv6Address((0x2002 << 112) | (n << 80)),
        "6to4 host": ipaddress.IPv6Address((0x2002 << 112) | (n << 80) | 1),
        "NAT64": ipaddress.IPv6Address((0x64_FF9B << 96) | n),
        "Teredo": ipaddress.IPv6Address(teredo),
        "IPv4-mapped": ipaddress.IPv6Address((0xFFFF << 32) | n),
        "IPv4-compatible": ipaddress.IPv6Address(n),
        "IPv4-translated": ipaddress.IPv6Address((0xFFFF << 48) | n),
    }


REFUSED = [("127.0.0.1", "loopback"), ("169.254.169.254", "metadata"), ("10.0.0.1", "private")]
CASES = [
    pytest.param(v4, reason, form, address, id=f"{form}-{v4}")
    for v4, reason in REFUSED
    for form, address in forms(v4).items()
]


def test_the_forms_embed_the_address() -> None:
    carried = forms("10.0.0.1")
    assert carried["6to4"].sixtofour == ipaddress.IPv4Address("10.0.0.1")
    assert carried["Teredo"].teredo[1] == ipaddress.IPv4Address("10.0.0.1")  # type: ignore[index]
    assert carried["IPv4-mapped"].ipv4_mapped == ipaddress.IPv4Address("10.0.0.1")
    assert str(carried["NAT64"]) == "64:ff9b::a00:1"


@pytest.mark.parametrize(("v4", "reason", "form", "address"), CASES)
def test_an_embedded_non_public_address_is_refused_as_what_it_is(
    v4: str, reason: str, form: str, address: ipaddress.IPv6Address
) -> None:
    problem = address_problem(address)
    assert problem is not None and reason in problem and v4 in problem, problem
    refusal = OutboundPolicy().problem(str(address), 80, [address])
    assert refusal is not None and reason in refusal and "DATAPILOT_OUTBOUND_ALLOW" in refusal


@pytest.mark.parametrize("form", ["6to4", "6to4 host", "NAT64", "IPv4-mapped"])
def test_an_embedded_public_address_is_treated_as_that_public_address(form: str) -> None:
    address = forms("8.8.8.8")[form]
    assert address_problem(address) is None, address
    assert OutboundPolicy().problem(str(address), 443, [address]) is None
    assert address_problem(ipaddress.ip_address("2002:0808:0808::")) is None


def test_the_local_use_nat64_prefix_is_refused() -> None:
    # 64:ff9b:1::/48 (RFC 8215) is site-local: where it carries an IPv4 address depends on the
    # site's prefix length, so no carried address can be trusted to be public.
    for text in ("64:ff9b:1::808:808", "64:ff9b:1:7f00:1::", "64:ff9b:1::a00:1"):
        problem = address_problem(ipaddress.ip_address(text))
        assert problem is not None and "NAT64" in problem, (text, problem)


@pytest.mark.parametrize("text", ["::", "::1"])
def test_the_unspecified_and_loopback_ipv6_addresses_keep_their_names(text: str) -> None:
    problem = address_problem(ipaddress.ip_address(text))
    expected = "unspecified" if text == "::" else "loopback"
    assert problem is not None and expected in problem
