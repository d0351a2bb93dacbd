"""Where the platform may connect on a researcher's behalf: the one outbound-call policy.

Every call made for a study (an evaluator's LLM endpoint, Prolific, Mechanical
Turk, anything later) connects through `checked_addresses`: the host is
resolved once, every address it resolves to is checked, and the connection
goes to one of those checked addresses (outbound/transport.py), never to the
answer of a second lookup, so a name that resolves elsewhere later (DNS
rebinding) is refused at the call.

Refused: loopback, private, link-local (which holds the cloud metadata
services), shared, reserved, multicast and unspecified addresses, also when
wrapped in an IPv6 form (IPv4-mapped, 6to4, Teredo, NAT64), unless the
operator allows them in OUTBOUND_ALLOWED_HOSTS: by name (every address the
name resolves to) or by address or network, each optionally with a port.
A cloud metadata address is allowed only by its own address, never by a name
that happens to resolve to it.
"""

import ipaddress
import re
import socket
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from django.conf import settings

from studies.config import is_http_url

# Cloud instance metadata services (AWS, GCP and Azure share the first; AWS's IPv6 one; ECS task
# metadata; Alibaba). They hand out the machine's own cloud credentials.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(address)
    for address in ("169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200")
)
NAT64 = ipaddress.ip_network("64:ff9b::/96")
DEFAULT_PORTS = {"http": 80, "https": 443}
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")


class OutboundRefused(Exception):
    """A connection the policy does not allow; the message says why (it never holds a key)."""


@dataclass(frozen=True)
class AllowedHost:
    """One entry of OUTBOUND_ALLOWED_HOSTS: a host name, or an address or network; a port or any."""

    name: str | None = None
    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None = None
    port: int | None = None

    def allows_name(self, host, port):
        return self.name is not None and self.name == host and self.port in (None, port)

    def allows_address(self, address, port):
        return self.network is not None and address in self.network and self.port in (None, port)


def parse_allowed_host(entry):
    """An AllowedHost from 'name', 'name:port', '10.0.0.5', '10.0.0.0/8', '[::1]:8000' ...; ValueError."""
    text = entry.strip()
    host, port = text, None
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket:
            raise ValueError(f"{entry!r}: write an IPv6 address as [address] or [address]:port")
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"{entry!r}: write an IPv6 address as [address] or [address]:port")
            port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    if port is not None:
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{entry!r}: the port must be a number from 1 to 65535")
        port = int(port)
    try:
        return AllowedHost(network=ipaddress.ip_network(host, strict=False), port=port)
    except ValueError:
        pass
    name = _normal_name(host)
    if not all(_LABEL.match(label) for label in name.split(".")):
        raise ValueError(f"{entry!r}: not a host name, an address or a network")
    return AllowedHost(name=name, port=port)


@lru_cache(maxsize=8)
def _allowed(entries):
    return tuple(parse_allowed_host(entry) for entry in entries if entry.strip())


def allowed_hosts():
    """The operator's OUTBOUND_ALLOWED_HOSTS, parsed (settings checks report a bad entry at start)."""
    return _allowed(tuple(settings.OUTBOUND_ALLOWED_HOSTS))


def _normal_name(host):
    return host.strip().strip("[]").lower().rstrip(".")


def _unwrapped(address):
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo, NAT64), else the address."""
    if address.version == 6:
        if address.ipv4_mapped:
            return address.ipv4_mapped
        if address.sixtofour:
            return address.sixtofour
        if address.teredo:
            return address.teredo[1]
        if address in NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def address_problem(address):
    """What kind of address the policy refuses `address` as ("a loopback address" ...), or None."""
    inner = _unwrapped(address)
    if address in METADATA_ADDRESSES or inner in METADATA_ADDRESSES:
        return "a cloud metadata address"
    for candidate in {address, inner}:
        if candidate.is_unspecified:
            return "an unspecified address"
        if candidate.is_loopback:
            return "a loopback address"
        if candidate.is_link_local:
            return "a link-local address"
        if candidate.is_multicast:
            return "a multicast address"
        if candidate.is_private:
            return "a private address"
        if not candidate.is_global:
            return "an address that is not public"
    return None


@dataclass(frozen=True)
class Resolved:
    """One address a host resolved to, as the socket layer takes it."""

    address: ipaddress.IPv4Address | ipaddress.IPv6Address
    family: int
    sockaddr: tuple


def resolve(host, port):
    """Every address `host` resolves to (a literal address resolves to itself); OSError if none."""
    found = []
    for family, _, _, _, sockaddr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        address = ipaddress.ip_address(sockaddr[0].split("%")[0])
        if all(known.address != address for known in found):
            found.append(Resolved(address, family, sockaddr))
    if not found:
        raise OSError(f"{host} resolves to no IP address")
    return found


def checked_addresses(host, port):
    """The addresses to connect to for (host, port): all that `host` resolves to, each allowed.

    OutboundRefused when any of them is refused: a name that also resolves to a
    loopback or private address is not used at all. OSError when it does not resolve.
    """
    name = _normal_name(host)
    entries = allowed_hosts()
    by_name = any(entry.allows_name(name, port) for entry in entries)
    resolved = resolve(name, port)
    for each in resolved:
        problem = address_problem(each.address)
        if problem is None:
            continue
        by_address = any(entry.allows_address(each.address, port) for entry in entries)
        if by_address or (by_name and problem != "a cloud metadata address"):
            continue
        raise OutboundRefused(_refusal(name, each.address, port, problem))
    return resolved


def _refusal(name, address, port, problem):
    try:
        literal = ipaddress.ip_address(name) == address
    except ValueError:
        literal = False
    # A name's address is not repeated: it would tell a researcher what the platform's network holds.
    where = f"[{name}]" if literal and address.version == 6 else name
    what = "is" if literal else "resolves to"
    return (
        f"{where}:{port} {what} {problem}: the platform does not call it unless the operator allows it "
        "(OUTBOUND_ALLOWED_HOSTS)"
    )


def url_host_port(url):
    """(host, port) a URL connects to; ValueError for a URL that is not an absolute http(s) one."""
    if not is_http_url(url):
        raise ValueError("give an absolute http:// or https:// URL")
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        raise ValueError("a URL may not carry a user name or password (store keys as keys)")
    port = parts.port  # ValueError for a port out of range
    return parts.hostname, port or DEFAULT_PORTS[parts.scheme]


def url_problem(url):
    """Why the platform would refuse to call `url`, or None.

    A name that does not resolve now is accepted: every call resolves and checks it again.
    """
    try:
        host, port = url_host_port(url)
    except ValueError as error:
        return str(error)
    try:
        checked_addresses(host, port)
    except OutboundRefused as refused:
        return str(refused)
    except (OSError, UnicodeError):
        return None
    return None


def check_url(url):
    """Raise OutboundRefused unless the policy allows calling `url` (its host resolving now)."""
    problem = url_problem(url)
    if problem:
        raise OutboundRefused(problem)
