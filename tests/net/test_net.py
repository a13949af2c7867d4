"""The outbound client against a real server on 127.0.0.1: refusals, redirects, caps, pinning."""

from __future__ import annotations

import ipaddress
import ssl
from collections.abc import Iterator

import pytest
import trustme
from support.loopback_server import BIG_BYTES, LOOPBACK, LoopbackServer, loopback_server

from datapilot.net import (
    OutboundLimits,
    OutboundPolicy,
    OutboundRefused,
    OutboundTimeout,
    OutboundTooLarge,
    OutboundUnreachable,
    address_problem,
    afetch,
    fetch,
)
from datapilot.settings import Settings

pytestmark = LOOPBACK


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with loopback_server() as running:
        running.files["hello.txt"] = ("text/plain", b"hello from loopback")
        yield running


def _allowing(server: LoopbackServer) -> OutboundPolicy:
    return OutboundPolicy.from_entries([server.allow])


def test_loopback_is_refused_by_default(server: LoopbackServer) -> None:
    with pytest.raises(OutboundRefused, match="loopback") as refused:
        fetch(f"{server.base}/files/hello.txt", policy=OutboundPolicy())
    # The message says what to do, naming the exact entry to add.
    assert f"add {server.allow} to DATAPILOT_OUTBOUND_ALLOW" in str(refused.value)
    assert server.hosts == []  # nothing reached the server


async def test_loopback_is_refused_by_default_async(server: LoopbackServer) -> None:
    with pytest.raises(OutboundRefused, match="loopback"):
        await afetch(f"{server.base}/files/hello.txt", policy=OutboundPolicy())
    assert server.hosts == []


def test_the_allow_setting_opens_exactly_that_host_and_port(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATAPILOT_OUTBOUND_ALLOW", f"{server.allow}, [::1]:1")
    policy = OutboundPolicy.from_settings(Settings())
    response = fetch(f"{server.base}/files/hello.txt", policy=policy)
    assert response.status == 200 and response.content == b"hello from loopback"
    other_port = 1 if server.port != 1 else 2
    with pytest.raises(OutboundRefused):
        fetch(f"http://127.0.0.1:{other_port}/", policy=policy)


async def test_allowed_fetch_async(server: LoopbackServer) -> None:
    response = await afetch(f"{server.base}/files/hello.txt", policy=_allowing(server))
    assert response.text == "hello from loopback"
    assert response.content_type == "text/plain"


def test_a_bad_allow_entry_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="not host:port"):
        OutboundPolicy.from_entries(["localhost"])
    for bad in ("localhost", "::1:80", "http://example.com:80", "example.com:99999"):
        monkeypatch.setenv("DATAPILOT_OUTBOUND_ALLOW", f"127.0.0.1:80,{bad}")
        with pytest.raises(ValueError, match="not host:port"):
            Settings()
    monkeypatch.setenv("DATAPILOT_OUTBOUND_ALLOW", "[::1]:8080, intranet.example:443")
    assert Settings().outbound_allow == ["[::1]:8080", "intranet.example:443"]


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.9", "private"),
        ("192.168.1.1", "private"),
        ("fd12:3456::1", "private"),
        ("169.254.10.10", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("100.64.12.1", "CGNAT"),
        ("169.254.169.254", "metadata"),
        ("fd00:ec2::254", "metadata"),
        ("100.100.100.200", "metadata"),
        ("::ffff:127.0.0.1", "loopback"),
    ],
)
def test_non_public_addresses_are_named(address: str, reason: str) -> None:
    problem = address_problem(ipaddress.ip_address(address))
    assert problem is not None and reason in problem


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert address_problem(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://100.100.100.200/latest/meta-data/",
        "http://[::ffff:127.0.0.1]/",
        "http://10.0.0.1:8080/admin",
    ],
)
def test_literal_addresses_are_refused_before_connecting(url: str) -> None:
    with pytest.raises(OutboundRefused, match="may not reach"):
        fetch(url, policy=OutboundPolicy())


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "gopher://example.com:70/_x", "ftp://example.com/file.pdf"]
)
def test_non_http_schemes_are_refused(url: str) -> None:
    scheme = url.split(":")[0]
    with pytest.raises(OutboundRefused, match=f"only http and https.*{scheme}"):
        fetch(url, policy=OutboundPolicy())


def test_a_redirect_to_a_refused_host_is_refused(server: LoopbackServer) -> None:
    target = "http://169.254.169.254/latest/meta-data/iam"
    with pytest.raises(OutboundRefused, match="metadata"):
        fetch(f"{server.base}/redirect?to={target}", policy=_allowing(server))
    # Another port on the same loopback host is not on the allow list either.
    with loopback_server() as other:
        with pytest.raises(OutboundRefused, match="loopback"):
            fetch(f"{server.base}/redirect?to={other.base}/host", policy=_allowing(server))
        assert other.hosts == []


async def test_a_redirect_to_a_refused_host_is_refused_async(server: LoopbackServer) -> None:
    with pytest.raises(OutboundRefused, match="private"):
        await afetch(f"{server.base}/redirect?to=http://192.168.0.1/", policy=_allowing(server))


def test_redirects_within_allowed_hosts_are_followed(server: LoopbackServer) -> None:
    response = fetch(f"{server.base}/redirect?to=/files/hello.txt", policy=_allowing(server))
    assert response.content == b"hello from loopback"
    assert response.url.endswith("/files/hello.txt")


def test_too_many_redirects_are_refused(server: LoopbackServer) -> None:
    url = f"{server.base}/files/hello.txt"
    for _ in range(6):
        url = f"{server.base}/redirect?to={url.replace('?', '%3F').replace('=', '%3D')}"
    limits = OutboundLimits(max_redirects=2)
    with pytest.raises(OutboundRefused, match="redirected more than 2 times"):
        fetch(url, policy=_allowing(server), limits=limits)


def test_an_oversize_body_is_stopped(server: LoopbackServer) -> None:
    limits = OutboundLimits(max_bytes=BIG_BYTES // 3)
    with pytest.raises(OutboundTooLarge, match="size cap"):
        fetch(f"{server.base}/big", policy=_allowing(server), limits=limits)
    # Under a larger cap the same body arrives whole.
    body = fetch(f"{server.base}/big", policy=_allowing(server)).content
    assert len(body) == BIG_BYTES


async def test_an_oversize_body_is_stopped_async(server: LoopbackServer) -> None:
    with pytest.raises(OutboundTooLarge):
        await afetch(
            f"{server.base}/big", policy=_allowing(server), limits=OutboundLimits(max_bytes=1000)
        )


def test_a_slow_body_times_out(server: LoopbackServer) -> None:
    limits = OutboundLimits(read_s=0.5)
    with pytest.raises(OutboundTimeout, match=r"sent nothing for 0\.5 s"):
        fetch(f"{server.base}/slow", policy=_allowing(server), limits=limits)


async def test_the_total_time_cap_stops_a_request_async(server: LoopbackServer) -> None:
    limits = OutboundLimits(read_s=10, total_s=0.5)
    with pytest.raises(OutboundTimeout, match=r"longer than 0\.5 s in all"):
        await afetch(f"{server.base}/slow", policy=_allowing(server), limits=limits)


def test_a_public_name_resolving_to_a_private_address_is_refused(server: LoopbackServer) -> None:
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["10.20.30.40"]

    with pytest.raises(OutboundRefused, match=r"docs\.example\.com resolves to 10\.20\.30\.40"):
        fetch("https://docs.example.com/report.pdf", policy=OutboundPolicy(), resolver=rebinding)
    assert calls == ["docs.example.com"]


def test_a_name_with_one_private_answer_among_public_ones_is_refused() -> None:
    def mixed(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "127.0.0.1"]

    with pytest.raises(OutboundRefused, match=r"127\.0\.0\.1"):
        fetch("http://mixed.example.com/", policy=OutboundPolicy(), resolver=mixed)


async def test_the_connection_goes_to_the_resolved_address(server: LoopbackServer) -> None:
    # The name resolves (once) to the loopback server's address, which the policy allows: the
    # request reaches that server, which sees the original name in its Host header.
    calls: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["127.0.0.1"]

    url = f"http://reports.example.com:{server.port}/host"
    response = await afetch(url, policy=_allowing(server), resolver=resolver)
    assert response.text == f"reports.example.com:{server.port}"
    assert calls == ["reports.example.com"]
    assert response.url == url


def test_offline_refuses_before_any_dns_query(server: LoopbackServer) -> None:
    calls: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["93.184.216.34"]

    offline = OutboundPolicy(offline=True)
    with pytest.raises(OutboundRefused, match="offline mode"):
        fetch("https://example.com/report.pdf", policy=offline, resolver=resolver)
    assert calls == []
    # A host the operator allowed is still reachable offline (e.g. a service on this machine).
    allowed = OutboundPolicy.from_entries([server.allow], offline=True)
    assert fetch(f"{server.base}/files/hello.txt", policy=allowed).status == 200


def test_https_keeps_the_name_for_sni_and_certificate_checks() -> None:
    # A TLS server on 127.0.0.1 with a certificate for docs.example.com only: the client
    # connects to the pinned IP, yet sends the name in SNI and verifies the certificate
    # against it, so the handshake succeeds; a name the certificate lacks fails.
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("docs.example.com").configure_cert(server_context)
    client_context = ssl.create_default_context()
    authority.configure_trust(client_context)

    with loopback_server(tls=server_context) as server:
        policy = OutboundPolicy.from_entries([server.allow])
        response = fetch(
            f"https://docs.example.com:{server.port}/host",
            policy=policy,
            resolver=lambda host, port: ["127.0.0.1"],
            verify=client_context,
        )
        assert response.text == f"docs.example.com:{server.port}"
        assert server.server_names == ["docs.example.com"]
        with pytest.raises(OutboundUnreachable, match="certificate"):
            fetch(
                f"https://other.example.com:{server.port}/host",
                policy=policy,
                resolver=lambda host, port: ["127.0.0.1"],
                verify=client_context,
            )
