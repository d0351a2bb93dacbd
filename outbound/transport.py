"""HTTP transports that connect only where the outbound policy allows (outbound/policy.py).

The HTTP clients keep doing what they do (pooling, TLS with the URL's host
name for SNI and certificates, retries, redirects); only the step that opens
a TCP connection is replaced: it resolves the host once, checks every
address, and connects to a checked address given as a literal, so nothing
resolves the name a second time. Each redirect opens its connection through
the same step, so a redirect to a refused address is refused too.

Two HTTP stacks are in use: `httpx`/`httpcore` (Prolific) and the
`httpx2`/`httpcore2` fork the `openai` client is built on; both get the same
transport. Proxies from the environment are not used (trust_env=False): a
proxy would connect on the platform's behalf to addresses never checked here.
"""

import httpcore
import httpcore2
import httpx
import httpx2

from .policy import OutboundRefused, checked_addresses


def _backend_class(core):
    class CheckedBackend(core.SyncBackend):
        """The stack's own socket backend, given a checked literal address instead of the host name."""

        def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
            try:
                resolved = checked_addresses(host, port)
            except OutboundRefused as refused:
                raise core.ConnectError(str(refused)) from refused
            except (OSError, UnicodeError) as error:
                raise core.ConnectError(f"{host} could not be resolved: {error}") from error
            last = None
            for each in resolved:
                try:
                    return super().connect_tcp(
                        each.sockaddr[0],  # the literal address (with an IPv6 scope, if any)
                        port,
                        timeout=timeout,
                        local_address=local_address,
                        socket_options=socket_options,
                    )
                except (core.ConnectError, core.ConnectTimeout) as error:
                    last = error
            raise last

    CheckedBackend.__qualname__ = CheckedBackend.__name__ = f"Checked{core.__name__.title()}Backend"
    return CheckedBackend


def _transport_class(client_library, core):
    backend = _backend_class(core)

    class CheckedTransport(client_library.HTTPTransport):
        """client_library.HTTPTransport whose connection pool connects through the policy."""

        def __init__(self, *, limits=None, verify=True):
            limits = limits or client_library.Limits(max_connections=16, max_keepalive_connections=16)
            super().__init__(limits=limits, verify=verify, trust_env=False)
            # The pool HTTPTransport made, made again with the checked backend: the only way in,
            # as HTTPTransport takes no network backend of its own.
            self._pool = core.ConnectionPool(
                ssl_context=client_library.create_ssl_context(verify=verify, trust_env=False),
                max_connections=limits.max_connections,
                max_keepalive_connections=limits.max_keepalive_connections,
                keepalive_expiry=limits.keepalive_expiry,
                network_backend=backend(),
            )

    CheckedTransport.__qualname__ = CheckedTransport.__name__ = f"Checked{client_library.__name__}Transport"
    return CheckedTransport


# httpx's client (crowd platforms) and httpx2's (the openai client's).
CheckedHttpxTransport = _transport_class(httpx, httpcore)
CheckedHttpx2Transport = _transport_class(httpx2, httpcore2)


def checked_client(**options):
    """An httpx.Client that connects only where the policy allows; options as httpx.Client's."""
    limits = options.pop("limits", None)
    return httpx.Client(transport=CheckedHttpxTransport(limits=limits), trust_env=False, **options)
