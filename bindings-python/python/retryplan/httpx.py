"""httpx transports that run every request as one retryplan operation.

``RetryTransport`` wraps an ``httpx.BaseTransport`` (default
``httpx.HTTPTransport()``), ``AsyncRetryTransport`` an
``httpx.AsyncBaseTransport``. For each attempt the engine starts, they

* set httpx's per-request timeouts to what is left of the attempt
  (``abort_at_ms``), never above a timeout the client already set;
* send a fresh ``X-Request-Id`` (the attempt's request id) and, when the
  policy's idempotency is ``keyed`` or ``unsafe``, the operation's stable
  ``Idempotency-Key`` (a key already on the request is used as the key);
* report the status and the raw ``Retry-After`` / ``retry-after-ms`` headers
  (read by the engine, an HTTP-date against ``time.time()``), or the
  transport failure, and sleep as the engine's ``Wait`` says.

The last response is returned when there is one (a 503 after the last
attempt, a 404, a 409 that asks for a restart), with the final decision in
``response.extensions["retryplan_decision"]``. ``ReconcileRequired`` is
always raised (an unsafe write may have happened: never repeat it blindly),
and an operation whose last attempt raised ends in ``GaveUpError`` chained
from that exception.

Per request, ``extensions={"retryplan": {"policy": ..., "idempotency_key":
..., "deadline": ..., "dependency": ...}}`` overrides the transport's policy
or dependency, sets the key, or passes a caller deadline
(``time.monotonic()`` seconds). Pass ``dependency=`` to share a retry budget,
circuit breaker and retry cap across every request to one service.

Attempts run one at a time: a policy's hedging needs the engine API
(``Operation.poll`` while attempts run).

httpx's timeouts are per phase (connect, each read, each write): a server
that trickles bytes can stretch a sync attempt past its window. The async
transport also bounds the whole attempt with ``asyncio.wait_for``.
"""

import asyncio
import logging
import time
from typing import Any, Callable, Dict, Optional, Tuple

import httpx

from ._helpers import _Options, _Run, default_outcome_of_exception, response_outcome
from ._native import Decision, Dependency, Outcome, Policy, Reconcile, StartAttempt, Stats, Succeeded, Wait

__all__ = ["AsyncRetryTransport", "RetryTransport"]

_TIMEOUT_KEYS = ("connect", "read", "write", "pool")


class _Common:
    """Configuration and per-attempt preparation shared by both transports."""

    def __init__(
        self,
        *,
        policy: Policy,
        logger: Optional[logging.Logger],
        stats: Optional[Stats],
        clock: Callable[[], float],
        wall_clock: Callable[[], float],
        seed: Optional[int],
        request_id_header: str,
        idempotency_key_header: str,
        dependency: Optional[Dependency],
    ) -> None:
        _Options(policy, None, None, logger, stats, clock, seed, "", dependency)  # checks the policy's type
        self.policy = policy
        self.logger = logger
        self.stats = stats
        self.clock = clock
        self.wall_clock = wall_clock
        self.seed = seed
        self.request_id_header = request_id_header
        self.idempotency_key_header = idempotency_key_header
        self.dependency = dependency

    def start(self, request: httpx.Request) -> Tuple[_Run, bool, Any]:
        options: Dict[str, Any] = request.extensions.get("retryplan") or {}
        policy = options.get("policy", self.policy)
        key = options.get("idempotency_key") or request.headers.get(self.idempotency_key_header)
        name = f"{request.method} {request.url.host}{request.url.path}"
        dependency = options.get("dependency", self.dependency)
        settings = _Options(policy, None, None, self.logger, self.stats, self.clock, self.seed, name, dependency)
        run = settings.run(key, options.get("deadline"))
        return run, policy.sends_idempotency_key, request.extensions.get("timeout")

    def prepare(self, request: httpx.Request, run: _Run, start: StartAttempt, sends_key: bool, base: Any) -> float:
        request.headers[self.request_id_header] = start.request_id
        if sends_key:
            request.headers[self.idempotency_key_header] = run.op.idempotency_key
        left = max(0.0, start.abort_at_ms / 1000.0 - self.clock())
        timeout = {}
        for key in _TIMEOUT_KEYS:
            given = base.get(key) if isinstance(base, dict) else None
            timeout[key] = left if given is None else min(given, left)
        request.extensions["timeout"] = timeout
        return left

    def outcome_of(self, response: httpx.Response) -> Outcome:
        return response_outcome(response.headers, response.status_code, now_unix=self.wall_clock())

    @staticmethod
    def finish(run: _Run, decision: Decision, response: Optional[httpx.Response]) -> httpx.Response:
        """Returns the last response of an ended operation, or raises its failure."""
        if response is not None and type(decision) is not Reconcile:
            response.extensions["retryplan_decision"] = decision
            return response
        raise run.failure(decision) from run.last_exception


class RetryTransport(httpx.BaseTransport, _Common):
    """A sync httpx transport that retries under a retryplan policy (see the module doc)."""

    def __init__(
        self,
        transport: Optional[httpx.BaseTransport] = None,
        *,
        policy: Policy,
        logger: Optional[logging.Logger] = None,
        stats: Optional[Stats] = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Any] = time.sleep,
        seed: Optional[int] = None,
        request_id_header: str = "X-Request-Id",
        idempotency_key_header: str = "Idempotency-Key",
        dependency: Optional[Dependency] = None,
    ) -> None:
        _Common.__init__(
            self,
            policy=policy,
            logger=logger,
            stats=stats,
            clock=clock,
            wall_clock=wall_clock,
            seed=seed,
            request_id_header=request_id_header,
            idempotency_key_header=idempotency_key_header,
            dependency=dependency,
        )
        self.transport = transport if transport is not None else httpx.HTTPTransport()
        self.sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Sends ``request`` as one operation: attempts, waits and headers as the engine decides."""
        run, sends_key, base = self.start(request)
        request.read()  # a body sent again must be replayable
        response: Optional[httpx.Response] = None
        decision = run.poll()
        while True:
            kind = type(decision)
            if kind is StartAttempt:
                self.prepare(request, run, decision, sends_key, base)
                error: Optional[BaseException] = None
                try:
                    response = self.transport.handle_request(request)
                    outcome = self.outcome_of(response)
                except Exception as exc:
                    response, error = None, exc
                    outcome = default_outcome_of_exception(exc)
                except BaseException as exc:
                    run.cancelled_attempt(decision, exc)
                    raise
                decision = run.report(decision, outcome, error, response)
                if type(decision) is Succeeded:
                    return response  # type: ignore[return-value]
                if response is not None:
                    response.read()
                    response.close()
                if decision.is_final:
                    return self.finish(run, decision, response)
            elif kind is Wait:
                delay = run.seconds_until(decision)
                if delay > 0:
                    try:
                        self.sleep(delay)
                    except BaseException:
                        run.cancel()
                        raise
                decision = run.poll()
            else:
                return self.finish(run, decision, response)

    def close(self) -> None:
        """Closes the wrapped transport."""
        self.transport.close()


class AsyncRetryTransport(httpx.AsyncBaseTransport, _Common):
    """An asyncio httpx transport that retries under a retryplan policy (see the module doc).

    Task cancellation during an attempt or a wait is reported to the engine
    (reason ``cancelled``) and propagates.
    """

    def __init__(
        self,
        transport: Optional[httpx.AsyncBaseTransport] = None,
        *,
        policy: Policy,
        logger: Optional[logging.Logger] = None,
        stats: Optional[Stats] = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Any] = asyncio.sleep,
        seed: Optional[int] = None,
        request_id_header: str = "X-Request-Id",
        idempotency_key_header: str = "Idempotency-Key",
        dependency: Optional[Dependency] = None,
    ) -> None:
        _Common.__init__(
            self,
            policy=policy,
            logger=logger,
            stats=stats,
            clock=clock,
            wall_clock=wall_clock,
            seed=seed,
            request_id_header=request_id_header,
            idempotency_key_header=idempotency_key_header,
            dependency=dependency,
        )
        self.transport = transport if transport is not None else httpx.AsyncHTTPTransport()
        self.sleep = sleep

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Sends ``request`` as one operation: attempts, waits and headers as the engine decides."""
        run, sends_key, base = self.start(request)
        await request.aread()
        response: Optional[httpx.Response] = None
        decision = run.poll()
        while True:
            kind = type(decision)
            if kind is StartAttempt:
                left = self.prepare(request, run, decision, sends_key, base)
                error: Optional[BaseException] = None
                try:
                    response = await asyncio.wait_for(self.transport.handle_async_request(request), left)
                    outcome = self.outcome_of(response)
                except asyncio.TimeoutError as exc:
                    response, error = None, exc
                    outcome = Outcome.transport("timed_out")
                except Exception as exc:
                    response, error = None, exc
                    outcome = default_outcome_of_exception(exc)
                except BaseException as exc:
                    run.cancelled_attempt(decision, exc)
                    raise
                decision = run.report(decision, outcome, error, response)
                if type(decision) is Succeeded:
                    return response  # type: ignore[return-value]
                if response is not None:
                    await response.aread()
                    await response.aclose()
                if decision.is_final:
                    return self.finish(run, decision, response)
            elif kind is Wait:
                delay = run.seconds_until(decision)
                if delay > 0:
                    try:
                        await self.sleep(delay)
                    except BaseException:
                        run.cancel()
                        raise
                decision = run.poll()
            else:
                return self.finish(run, decision, response)

    async def aclose(self) -> None:
        """Closes the wrapped transport."""
        await self.transport.aclose()
