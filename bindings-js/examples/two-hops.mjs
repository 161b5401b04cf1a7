// Two services in one process, each under the propagation middleware: the caller's deadline, the attempt
// count and the idempotency key travel through `service` to `inventory`, and retries happen at one layer.
import { createServer } from 'node:http';
import { Policy, currentIncoming, propagation, retryFetch } from 'retryplan';

const policy = Policy.profile('read'); // its propagation section: every header family read, 20 ms kept for the way back

/** Serves `handler` on 127.0.0.1 under the middleware (with Express: `app.use(propagation(policy))`). */
async function listen(handler) {
  const middleware = propagation(policy);
  const server = createServer((req, res) => middleware(req, res, () => handler(req, res)));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` };
}

// The last hop: what it was sent, and the key the core read from it.
const inventory = await listen((req, res) => {
  const sent = {
    timeoutMs: req.headers['retryplan-timeout-ms'],
    attempt: req.headers['retryplan-attempt'],
    key: currentIncoming()?.idempotencyKey,
  };
  res.end(JSON.stringify(sent));
});
// The middle hop: its retryFetch starts from the request it serves (deadline, key, retrying layer).
const service = await listen(async (_req, res) => {
  const { response } = await retryFetch(`${inventory.url}/stock`, {}, { policy });
  res.end(await response.text());
});

const reply = await fetch(`${service.url}/order`, {
  headers: { 'retryplan-timeout-ms': '800', 'idempotency-key': 'order-5001' },
});
const sent = JSON.parse(await reply.text());
console.log(sent.attempt, sent.key, Number(sent.timeoutMs) <= 800 - 20); // 1 order-5001 true
const malformed = await fetch(service.url, { headers: { 'grpc-timeout': '1.5S' } }); // gRPC's grammar: 1*8DIGIT unit
console.log(malformed.status); // 400
service.server.close();
inventory.server.close();
