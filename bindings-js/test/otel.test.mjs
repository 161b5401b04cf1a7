// OpenTelemetry: what run and retryFetch report once instrumented (the core's
// signals through @opentelemetry/api), read back with the SDK's in-memory
// span exporter and metric reader; and nothing once uninstrumented.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  Dependency,
  GaveUpError,
  Policy,
  instrumentOpenTelemetry,
  retryFetch,
  run,
  uninstrumentOpenTelemetry,
} from 'retryplan';

const FAST = {
  max_attempts: 3,
  total_timeout_ms: 4000,
  attempt_timeout: { fixed_ms: 1000 },
  response_reserve_ms: 0,
  minimum_useful_attempt_ms: 50,
  backoff: { kind: 'constant', base_ms: 5, multiplier: 1.0, cap_ms: 5 },
  jitter: { kind: 'none' },
};

const answers = new Map(); // path -> statuses still to answer (the last repeats)
const seen = new Map(); // path -> headers of each request
let server;
let base;

before(async () => {
  server = createServer((request, response) => {
    const log = seen.get(request.url) ?? [];
    seen.set(request.url, log);
    log.push(request.headers);
    const statuses = answers.get(request.url) ?? [404];
    const status = statuses.length > 1 ? statuses.shift() : statuses[0];
    if (status === 0) return request.socket.destroy(); // 0: the connection dropped, no answer
    response.writeHead(status, { 'content-type': 'text/plain' }).end(`status ${status}`);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});

after(() => {
  server.closeAllConnections();
  server.close();
  api.propagation.disable();
});

let spans;
let metrics;
let reader;

beforeEach(() => {
  spans = new InMemorySpanExporter();
  metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 });
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const meterProvider = new MeterProvider({ readers: [reader] });
  instrumentOpenTelemetry(api, { tracerProvider, meterProvider });
});

afterEach(() => uninstrumentOpenTelemetry());

/** Every data point: `name {attributes}` to its value. */
async function counts() {
  await reader.forceFlush();
  const out = {};
  for (const { scopeMetrics } of metrics.getMetrics())
    for (const { metrics: list } of scopeMetrics)
      for (const metric of list)
        for (const point of metric.dataPoints)
          out[`${metric.descriptor.name} ${JSON.stringify(point.attributes)}`] = point.value;
  return out;
}

const giveUps = (span) => span.events.filter((event) => event.name === 'retryplan.give_up').map((e) => e.attributes);

test('retryFetch reports each attempt as an HTTP client span, resends counted, its context sent', async () => {
  answers.set('/item', [503, 503, 200]);
  const { response } = await retryFetch(`${base}/item`, {}, { policy: Policy.fromConfig(FAST) });
  assert.equal(response.status, 200);
  const finished = spans.getFinishedSpans();
  assert.equal(finished.length, 3);
  const port = Number(new URL(base).port);
  finished.forEach((span, n) => {
    const a = span.attributes;
    assert.equal(span.name, 'GET');
    assert.equal(span.kind, api.SpanKind.CLIENT);
    assert.deepEqual(
      [a['http.request.method'], a['server.address'], a['server.port'], a['url.full'], a['retryplan.attempt']],
      ['GET', '127.0.0.1', port, `${base}/item`, n + 1],
    );
    assert.equal(a['http.request.resend_count'], n === 0 ? undefined : n);
    assert.equal(a['http.response.status_code'], [503, 503, 200][n]);
    assert.equal(a['error.type'], n < 2 ? '503' : undefined);
    assert.equal(span.status.code, n < 2 ? api.SpanStatusCode.ERROR : api.SpanStatusCode.UNSET);
    const { traceId, spanId } = span.spanContext();
    assert.match(seen.get('/item')[n].traceparent, new RegExp(`^00-${traceId}-${spanId}-`));
  });
  const got = await counts();
  assert.equal(got['retryplan.attempts {"retryplan.attempt.kind":"first"}'], 1);
  assert.equal(got['retryplan.attempts {"retryplan.attempt.kind":"retry"}'], 2);
  assert.equal(got['retryplan.retries {}'], 2);
  assert.equal(got['retryplan.operations {"retryplan.operation.ending":"succeeded"}'], 1);
});

// A presigned URL (the reviewer's): its span's url.full and its ending name the request as the core does (requestName),
// the OpenTelemetry conventions' sensitive query values REDACTED, their keys kept.
const PRESIGNED = '/z?seq=200&X-Amz-Signature=SECRET&sig=qwz'; // no hex digit in the value: a message's key (a UUID) cannot hold it
const PRESIGNED_NAMED = '/z?seq=200&X-Amz-Signature=REDACTED&sig=REDACTED';

test("a presigned URL's url.full has its sensitive query values REDACTED", async () => {
  answers.set(PRESIGNED, [200]);
  const { response } = await retryFetch(`${base}${PRESIGNED}`, {}, { policy: Policy.fromConfig(FAST) });
  assert.equal(response.status, 200);
  const [span] = spans.getFinishedSpans();
  assert.equal(span.attributes['url.full'], `${base}${PRESIGNED_NAMED}`);
  assert.equal(span.attributes['server.address'], '127.0.0.1');
});

test("a presigned URL's ending names it with its sensitive query values REDACTED", async () => {
  answers.set(PRESIGNED, [0]);
  const policy = Policy.fromConfig({ ...FAST, max_attempts: 1 });
  const ended = await retryFetch(`${base}${PRESIGNED}`, {}, { policy }).catch((error) => error);
  assert.ok(ended instanceof GaveUpError, String(ended));
  assert.ok(ended.message.startsWith(`retryplan: GET ${base}${PRESIGNED_NAMED}: gave up`), ended.message);
  assert.doesNotMatch(ended.message, /SECRET|qwz/);
});

test('a give-up is an event on the span of the attempt whose result led to it', async () => {
  answers.set('/down', [503]);
  const events = [];
  const { response } = await retryFetch(
    `${base}/down`,
    {},
    { policy: Policy.fromConfig(FAST), onDecision: (e) => events.push(e) },
  );
  assert.equal(response.status, 503);
  const finished = spans.getFinishedSpans();
  assert.deepEqual(finished.map(giveUps), [
    [],
    [],
    [{ 'retryplan.give_up.reason': 'attempts_exhausted', 'retryplan.operation.attempts': 3 }],
  ]);
  // onDecision still sees every event (3 starts, 2 waits, the ending).
  assert.deepEqual(
    events.map((e) => e.decision.type),
    ['start_attempt', 'wait', 'start_attempt', 'wait', 'start_attempt', 'gave_up'],
  );
  const got = await counts();
  assert.equal(got['retryplan.give_ups {"retryplan.give_up.reason":"attempts_exhausted"}'], 1);
});

class Declined extends Error {}

test('run reports internal spans named after the function, error.type the thrown type', async () => {
  const placeOrder = async () => {
    throw new Declined('no');
  };
  await assert.rejects(run(Policy.fromConfig(FAST), placeOrder), GaveUpError);
  const finished = spans.getFinishedSpans();
  assert.deepEqual(
    finished.map((span) => [span.name, span.kind, span.attributes['retryplan.attempt'], span.attributes['error.type']]),
    [1, 2, 3].map((n) => ['placeOrder', api.SpanKind.INTERNAL, n, 'Declined']),
  );
  assert.equal(giveUps(finished[2]).length, 1);
});

test('a breaker refusal is counted', async () => {
  const dependency = Dependency.fromConfig({
    breaker: { trip: { kind: 'consecutive', failures: 1 }, open_ms: 60000, half_open_probes: 1 },
  });
  const policy = Policy.fromConfig({ ...FAST, max_attempts: 1 });
  const fail = async () => {
    throw new Declined('no');
  };
  await assert.rejects(run(policy, fail, { dependency }), GaveUpError);
  await assert.rejects(run(policy, fail, { dependency }), (error) => error.reason === 'circuit_open');
  const got = await counts();
  assert.equal(got['retryplan.breaker.refusals {}'], 1);
  assert.equal(got['retryplan.give_ups {"retryplan.give_up.reason":"circuit_open"}'], 1);
});

test('uninstrumented, nothing is reported and no context is sent', async () => {
  uninstrumentOpenTelemetry();
  answers.set('/quiet', [503, 200]);
  await retryFetch(`${base}/quiet`, {}, { policy: Policy.fromConfig(FAST) });
  assert.equal(spans.getFinishedSpans().length, 0);
  assert.deepEqual(await counts(), {});
  assert.equal(seen.get('/quiet')[0].traceparent, undefined);
});
