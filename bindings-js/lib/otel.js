// OpenTelemetry for `run` and `retryFetch` (the Node and tools entries; the
// browser runtime reports to none): each attempt a span, each give-up a span
// event, and the counters. What is reported is the core's
// (`retryplan::telemetry`): the names, units, descriptions and attribute keys
// come from its tables (lib/generated/telemetry.js), and which signals each
// decision produces from its mapping (`_driverEventSignals`). This module only
// calls the `@opentelemetry/api` the application hands it (an optional peer
// dependency: nothing is imported, so nothing costs anything without it).
import { _driverEventSignals } from '../wasm/retryplan_js.js';
import { names as listed, only } from './args.js';
import { decided } from './convert.js';
import { requestName } from './functions.js';
import { reportWith } from './host.js';
import { storedEvent } from './records.js';
import * as names from './generated/telemetry.js';

const DEFAULT_PORTS = { 'http:': 80, 'https:': 443 };

/** Every option `instrumentOpenTelemetry` reads: any other key is refused (`only`). */
const PROVIDERS = listed('tracerProvider meterProvider');

/**
 * Reports every `run` and `retryFetch` through OpenTelemetry: `api` is the
 * application's `@opentelemetry/api` module; `tracerProvider` and
 * `meterProvider` default to its global ones. Any other option is refused
 * (RetryplanError `invalid_argument` naming it).
 */
export function instrumentOpenTelemetry(api, providers) {
  if (typeof api?.trace?.getTracerProvider !== 'function' || typeof api?.metrics?.getMeterProvider !== 'function')
    throw new TypeError('retryplan: instrumentOpenTelemetry: `api` must be the @opentelemetry/api module');
  only(providers, PROVIDERS, 'function');
  const { tracerProvider, meterProvider } = providers ?? {};
  const tracer = (tracerProvider ?? api.trace.getTracerProvider()).getTracer(names.SCOPE_NAME);
  const meter = (meterProvider ?? api.metrics.getMeterProvider()).getMeter(names.SCOPE_NAME);
  const counters = new Map(
    names.METRICS.map(({ otelName, unit, description, attribute }) => [
      otelName,
      [meter.createCounter(otelName, { unit, description }), attribute],
    ]),
  );
  const recorder = { api, tracer, counters };
  reportWith((name) => new Operation(recorder, name));
}

/** Stops reporting. */
export function uninstrumentOpenTelemetry() {
  reportWith(undefined);
}

/** The type of what an attempt threw (the conventions' `error.type`), else `_OTHER`. */
const thrownType = (error) =>
  error instanceof Error || (typeof error === 'object' && error !== null)
    ? (error.constructor?.name ?? names.OTHER_ERROR_TYPE)
    : names.OTHER_ERROR_TYPE;

/** One operation's attempt spans, from the core's signals of each event its driver recorded. */
class Operation {
  constructor(recorder, name) {
    this.recorder = recorder;
    this.name = name;
    this.parent = recorder.api.context.active();
    this.http = undefined;
    this.spans = new Map();
  }

  /**
   * Makes the attempt spans HTTP client spans of this request: `url.full` is its URL as the core names it
   * (`requestName`: without credentials or fragment, the conventions' sensitive query values `REDACTED`).
   */
  request(method, url) {
    const known = names.KNOWN_HTTP_METHODS.has(method);
    const full = requestName(method, url).slice(method.length + 1);
    const parsed = new URL(full);
    const attributes = { 'http.request.method': known ? method : names.OTHER_METHOD, 'url.full': full };
    if (!known) attributes['http.request.method_original'] = method;
    if (parsed.hostname) attributes['server.address'] = parsed.hostname.replace(/^\[|\]$/g, '');
    const port = parsed.port ? Number(parsed.port) : DEFAULT_PORTS[parsed.protocol];
    if (port !== undefined) attributes['server.port'] = port;
    this.http = { name: known ? method : names.OTHER_METHOD_SPAN_NAME, attributes };
  }

  /** Reads every event `host`'s driver recorded: its signals reported, the event handed to `onDecision`. */
  drain(host) {
    for (;;) {
      const stored = decided(_driverEventSignals(host.driver));
      if (stored === null) return;
      const [errorCode, signals] = stored;
      for (const signal of signals) this.report(signal, host);
      if (host.onDecision !== undefined) host.onDecision(storedEvent(errorCode));
    }
  }

  /** One signal, tagged by its kind's name (the core's `SignalKind`, generated). */
  report([kind, a, b, c], host) {
    if (kind === names.SIGNAL_COUNT) {
      const [counter, attribute] = this.recorder.counters.get(a);
      counter.add(1, attribute !== null && b !== null ? { [attribute]: b } : undefined);
    } else if (kind === names.SIGNAL_ATTEMPT_STARTED) this.start(a, b);
    else if (kind === names.SIGNAL_ATTEMPT_ENDED)
      this.end(a, b, c === true ? thrownType(host.errors[a]) : typeof c === 'number' ? String(c) : c);
    else if (kind === names.SIGNAL_GAVE_UP) this.giveUp(a, b, c);
  }

  start(attempt, resendCount) {
    const { api, tracer } = this.recorder;
    let name = String(this.name);
    let kind = api.SpanKind.INTERNAL;
    let attributes = {};
    if (this.http !== undefined) {
      ({ name } = this.http);
      kind = api.SpanKind.CLIENT;
      attributes = { ...this.http.attributes };
      if (resendCount !== null) attributes[names.ATTRIBUTES.http_request_resend_count] = resendCount;
    }
    attributes[names.ATTRIBUTES.attempt] = attempt;
    this.spans.set(attempt, tracer.startSpan(name, { kind, attributes }, this.parent));
  }

  end(attempt, statusCode, errorType) {
    const span = this.spans.get(attempt);
    if (span === undefined) return;
    this.spans.delete(attempt);
    if (statusCode !== null && this.http !== undefined)
      span.setAttribute(names.ATTRIBUTES.http_response_status_code, statusCode);
    if (errorType !== null) {
      span.setAttribute(names.ATTRIBUTES.error_type, errorType);
      span.setStatus({ code: this.recorder.api.SpanStatusCode.ERROR });
    }
    span.end();
  }

  giveUp(onAttempt, reason, attempts) {
    const { api } = this.recorder;
    const span = (onAttempt !== null && this.spans.get(onAttempt)) || api.trace.getSpan(this.parent);
    span?.addEvent(names.GIVE_UP_EVENT, {
      [names.ATTRIBUTES.give_up_reason]: reason,
      [names.ATTRIBUTES.operation_attempts]: attempts,
    });
  }

  /** Writes the attempt's span context into its request's headers (the global propagator's fields). */
  inject(attempt, headers) {
    const span = this.spans.get(attempt);
    if (span === undefined) return;
    const { api } = this.recorder;
    api.propagation.inject(api.trace.setSpan(this.parent, span), headers, {
      set: (carrier, key, value) => carrier.set(key, value),
    });
  }
}
