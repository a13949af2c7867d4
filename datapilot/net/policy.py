"""Which addresses an outbound request may reach.

Public unicast addresses are allowed. Loopback, private (RFC 1918, ULA), link-local, multicast,
unspecified, shared (CGNAT), reserved and cloud metadata addresses are refused unless the operator
names the `host:port` in `DATAPILOT_OUTBOUND_ALLOW`, so a URL a user (or a model) supplies can never
reach the machine's own services or its cloud's credentials endpoint. An IPv6 address that carries
an IPv4 one (6to4, NAT64, Teredo, IPv4-mapped, -compatible, -translated) is judged by the IPv4
address too: a gateway or tunnel would deliver it there.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from datapilot.settings import Settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Named apart so the refusal can say what the address is; most are also non-global ranges.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: the IPv4 address is the last 32 bits
# RFC 8215, local use: the IPv4 address sits where the site's prefix length puts it, which is not
# known here, so nothing under it can be shown to be public.
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # RFC 2765 (SIIT)
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated; :: and ::1 are IPv6's own
# Forms that reach exactly the IPv4 address they carry: a public one is as good as that address.
_SAME_AS_IPV4 = frozenset({"IPv4-mapped", "NAT64", "6to4"})


def embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, str] | None:
    """The IPv4 address `address` carries and the name of the form carrying it, or None."""
    value = int(address)
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped, "IPv4-mapped"
    if address.sixtofour is not None:
        return address.sixtofour, "6to4"
    if address.teredo is not None:
        return address.teredo[1], "Teredo"  # the client, already un-inverted by `ipaddress`
    low = ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if address in _NAT64:
        return low, "NAT64"
    if address in _IPV4_TRANSLATED:
        return low, "IPv4-translated"
    if address in _IPV4_COMPATIBLE and value > 1:
        return low, "IPv4-compatible"
    return None


def address_problem(address: IPAddress) -> str | None:
    """Why `address` must not be reached, or None for a public unicast address."""
    if isinstance(address, ipaddress.IPv6Address):
        carried = embedded_ipv4(address)
        if carried is not None:
            ipv4, form = carried
            problem = address_problem(ipv4)
            if problem:
                return f"{problem} ({ipv4} in {form} form)"
            if form in _SAME_AS_IPV4:
                return None
        if address in _NAT64_LOCAL:
            return "a local-use NAT64 address"
    if address in METADATA_ADDRESSES:
        return "a cloud metadata address"
    checks = (
        (address.is_unspecified, "an unspecified address"),
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (address.is_multicast, "a multicast address"),
        (
            isinstance(address, ipaddress.IPv4Address) and address in _CGNAT,
            "a shared (CGNAT) address",
        ),
        (address.is_private, "a private address"),
        (address.is_reserved, "a reserved address"),
        (not address.is_global, "not a public address"),
    )
    for matched, reason in checks:
        if matched:
            return reason
    return None


def _normalise_host(host: str) -> str:
    return host.strip().strip("[]").lower().rstrip(".")


def parse_allow_entry(entry: str) -> tuple[str, int]:
    """`host:port` (IPv6 as `[::1]:8080`) → (host, port); raise ValueError when malformed."""
    text = entry.strip()
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(
            f"DATAPILOT_OUTBOUND_ALLOW entry {entry!r} is not host:port; "
            "write e.g. 127.0.0.1:8080,[::1]:8080,intranet.example:443"
        )
    if host.count(":") and not host.startswith("["):
        raise ValueError(
            f"DATAPILOT_OUTBOUND_ALLOW entry {entry!r}: write IPv6 hosts as [::1]:port"
        )
    return _normalise_host(host), int(port)


class OutboundPolicy(BaseModel):
    """The allow list and the offline switch an outbound request is checked against."""

    model_config = ConfigDict(frozen=True)

    allow: frozenset[tuple[str, int]] = Field(default_factory=frozenset)
    offline: bool = Field(
        default=False, description="Refuse every host that is not on the allow list."
    )

    @classmethod
    def from_entries(cls, entries: Iterable[str], *, offline: bool = False) -> OutboundPolicy:
        return cls(allow=frozenset(parse_allow_entry(e) for e in entries), offline=offline)

    @classmethod
    def from_settings(cls, settings: Settings) -> OutboundPolicy:
        return cls.from_entries(settings.outbound_allow, offline=settings.offline)

    def allowed(self, host: str, port: int) -> bool:
        return (_normalise_host(host), port) in self.allow

    def offline_problem(self, host: str, port: int) -> str | None:
        """In offline mode, why `host:port` may not be reached (None: it may, or not offline)."""
        if not self.offline or self.allowed(host, port):
            return None
        return (
            f"{host}:{port} is not on DATAPILOT_OUTBOUND_ALLOW and network access is off "
            "(offline mode); turn offline mode off or add it to DATAPILOT_OUTBOUND_ALLOW"
        )

    def problem(self, host: str, port: int, addresses: list[IPAddress]) -> str | None:
        """Why a connection to `host:port`, resolved to `addresses`, is refused (None: it is not).

        Every resolved address must pass, not just the one connected to: a name that mixes public
        and private answers is refused rather than trusted.
        """
        if self.allowed(host, port):
            return None
        offline = self.offline_problem(host, port)
        if offline:
            return offline
        blocked = []
        for address in addresses:
            if self.allowed(str(address), port):
                continue
            reason = address_problem(address)
            if reason:
                blocked.append(f"{address} ({reason})")
        if not blocked:
            return None
        if _normalise_host(host) == str(addresses[0]) and len(addresses) == 1:
            what = f"{host} is {address_problem(addresses[0])}"
        else:
            what = f"{host} resolves to {', '.join(blocked)}"
        return (
            f"{what}, which outbound requests may not reach; if this host is yours and "
            f"trusted, add {_entry(host, port)} to DATAPILOT_OUTBOUND_ALLOW"
        )


def _entry(host: str, port: int) -> str:
    host = _normalise_host(host)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
