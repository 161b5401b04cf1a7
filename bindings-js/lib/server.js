// The server side of propagation in Node (issue 27): a middleware for
// `node:http` in the `(req, res, next)` form, so Express's too. It reads the
// incoming request's context through the core (`IncomingContext.read`), makes
// it the ambient context of the request (an AsyncLocalStorage that `run` and
// `retryFetch` read), answers a malformed propagation header with 400, and
// writes the core's answer headers (the endings of the outgoing helpers
// inside the request decide them) when the response's head is written.
import { AsyncLocalStorage } from 'node:async_hooks';
import { _incomingAnswer } from '../wasm/retryplan_js.js';
import { useRequests } from './ambient.js';
import { clockOf, names, only } from './args.js';
import { decided, RetryplanError } from './convert.js';
import { handle } from './objects.js';
import { IncomingContext } from './propagation.js';

/**
 * Every option the middleware reads, a clock (`clock`, or its old name `now`): any other key, or a clock that is not a
 * function, is refused (`only`).
 */
const OPTIONS = names('clock:function now:function');

/** The requests being served (made when a middleware is first made: no side effect at module scope). */
let requests;

/**
 * A middleware `(req, res, next)` that serves each request under `policy`'s
 * `propagation` section: `options.clock` (its old name: `now`) is its monotonic clock (the helpers'
 * by default). Any refusal of the core's reader is the caller's fault:
 * answered 400 with the core's message, and `next` is not called. Any
 * other option is refused (RetryplanError `invalid_argument` naming it).
 */
export function propagation(policy, options) {
  only(options, OPTIONS, 'middleware');
  if (requests === undefined) {
    requests = new AsyncLocalStorage();
    useRequests(requests);
  }
  const now = clockOf(options);
  // Checked now, not at the first request: a wrong policy is the server's mistake.
  IncomingContext.read(policy, {}, now()).free();
  const store = requests;
  return function retryplanPropagation(req, res, next) {
    let incoming;
    try {
      incoming = IncomingContext.read(policy, req.headers, now());
    } catch (refused) {
      if (!(refused instanceof RetryplanError)) throw refused;
      res.statusCode = 400;
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end(`${refused.message}\n`);
      return;
    }
    const context = { incoming };
    // Every head is written through writeHead (an implicit one too): the answer's headers go in just before.
    const writeHead = res.writeHead;
    res.writeHead = function writeHeadWithAnswer(...args) {
      res.writeHead = writeHead;
      const answer = decided(_incomingAnswer(handle(incoming), 0));
      for (let at = 0; at < answer.length; at += 2) res.setHeader(answer[at], answer[at + 1]);
      return writeHead.apply(this, args);
    };
    store.run(context, next);
  };
}

/** The incoming context of the request being served (inside a `propagation` middleware), or undefined. */
export const currentIncoming = () => requests?.getStore()?.incoming;
