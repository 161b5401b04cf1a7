"""Redirects inside the first request's budget, for the HTTP helpers whose client follows them (httpx, requests).

httpx's ``Client`` (``follow_redirects=True``) and requests' ``Session``
(``allow_redirects=True``, the default) follow a redirect themselves: each hop
reaches the helper as a request of its own. So that a chain of redirects never
starts a fresh total timeout, a helper that returns a redirect (a 3xx with a
``Location``) remembers it as a :class:`Hop`; the request that follows it (the
client's next hop: another request object, built from this one) runs within
the first request's deadline, with its idempotency key. Only a redirect the
client follows itself is a hop: one it hands back (``follow_redirects=False``,
``allow_redirects=False``) and its caller follows later, by hand, is a fresh
operation (as JS's ``redirect: 'manual'``), never bound to a finished one's
deadline. The client keeps doing what its users expect of it:
``follow_redirects``/``allow_redirects``, ``max_redirects``,
``response.history``, the method and headers it rewrites.
"""

from __future__ import annotations

import weakref

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, Optional

    from ._native import Run


class Hop:
    """A redirect a helper returned: the request it answered (weakly), the operation's deadline (seconds on the
    helper's clock), its idempotency key and its name (the request the caller made), which the next hop continues."""

    __slots__ = ("origin", "deadline", "idempotency_key", "name")

    def __init__(self, origin: Any, run: Run) -> None:
        self.origin = weakref.ref(origin)
        self.deadline = run.driver.deadline_ms / 1000.0
        self.idempotency_key = run.driver.idempotency_key
        self.name: str = run.name

    def follows(self, request: Any) -> bool:
        """True when ``request`` is the next hop (not the very request the redirect answered, sent again)."""
        return self.origin() is not request

    def continued(self, options: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        """The next hop's operation options: within this deadline (or the caller's, if sooner), with this key
        (unless the hop names its own)."""
        options = dict(options or {})
        given = options.get("deadline")
        if given is None:
            options["deadline"] = self.deadline
        elif isinstance(given, (int, float)) and not isinstance(given, bool):  # anything else: refused, named, later
            options["deadline"] = min(given, self.deadline)
        if options.get("idempotency_key") is None:
            options["idempotency_key"] = self.idempotency_key
        return options
