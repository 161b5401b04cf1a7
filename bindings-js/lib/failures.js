// The binding's one table from what the platform throws to the core's failure
// vocabulary (retryplan::Failure, whose `outcome` says what each means): Node
// errors and the `cause` chain of Node's fetch (undici) by `code`, and
// DOMExceptions by `name`. A name that is not here is not a failure of the
// platform: the helper's `outcomeOfError` hook decides it.
import { MAX_CAUSE_DEPTH } from './generated/wire.js';

const BY_CODE = new Map([
  // Nothing was sent: always safe to repeat.
  ['ENOTFOUND', 'dns_lookup_failed'],
  ['EAI_AGAIN', 'dns_lookup_failed'],
  ['EAI_FAIL', 'dns_lookup_failed'],
  ['ECONNREFUSED', 'connection_refused'],
  ['ENETUNREACH', 'unreachable'],
  ['EHOSTUNREACH', 'unreachable'],
  ['ENETDOWN', 'unreachable'],
  ['EHOSTDOWN', 'unreachable'],
  ['UND_ERR_CONNECT_TIMEOUT', 'connect_timeout'],
  // Certificate and handshake failures happen before any request byte is written.
  ...[
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'ERR_TLS_HANDSHAKE_TIMEOUT',
    'CERT_HAS_EXPIRED',
    'CERT_NOT_YET_VALID',
    'CERT_REVOKED',
    'CERT_UNTRUSTED',
    'CERT_REJECTED',
    'CERT_SIGNATURE_FAILURE',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'HOSTNAME_MISMATCH',
    'ERR_SSL_WRONG_VERSION_NUMBER',
    'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
    'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
    'ERR_SSL_UNSUPPORTED_PROTOCOL',
  ].map((code) => [code, 'tls_handshake_failed']),
  // Sent, or partly sent: it may have been processed.
  ['EPIPE', 'write_failed'],
  ['ECONNRESET', 'connection_lost'],
  ['ECONNABORTED', 'connection_lost'],
  ['UND_ERR_SOCKET', 'connection_lost'],
  ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'body_broken'],
  ['UND_ERR_HEADERS_OVERFLOW', 'malformed_response'],
  ['UND_ERR_HEADERS_TIMEOUT', 'read_timeout'],
  ['UND_ERR_BODY_TIMEOUT', 'read_timeout'],
  // Node's own AbortError (timers, streams), as a DOMException AbortError.
  ['ABORT_ERR', 'cancelled'],
]);

const BY_NAME = new Map([
  ['AbortError', 'cancelled'],
  ['TimeoutError', 'attempt_timed_out'],
  ['NetworkError', 'connection_lost'],
]);

/** The failure named by one error's `code`, if any. */
function byCode(error) {
  const code = error.code ?? error.errors?.[0]?.code; // an AggregateError: every address of a host refused alike
  if (typeof code !== 'string') return undefined;
  // The OS gives up on a TCP connect, or on an established connection's reads.
  if (code === 'ETIMEDOUT') return error.syscall === 'connect' ? 'connect_timeout' : 'read_timeout';
  // llhttp could not parse the response (HPE_INVALID_STATUS, HPE_INVALID_CONSTANT, ...).
  if (code.startsWith('HPE_')) return 'malformed_response';
  return BY_CODE.get(code);
}

/**
 * The failure `thrown` stands for (a name of the vocabulary), or undefined when the table does not know it:
 * `thrown` and the errors below it (`cause`), at most MAX_CAUSE_DEPTH of them (the core's, as in every language).
 */
export function failureOf(thrown) {
  let error = thrown;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && error !== null && typeof error === 'object'; depth += 1) {
    const failure = byCode(error) ?? (error instanceof DOMException ? BY_NAME.get(error.name) : undefined);
    if (failure !== undefined) return failure;
    error = error.cause;
  }
  return undefined;
}
