// A key JS does not read is refused, naming it, in an outcome object and in a driver call's options: a misspelt or
// snake_case `retryAfterMs`, `errorCode` or `redirected` was read as absent, so a POST whose answer came through a
// redirect was sent again, and an outcome Python wrote (`retry_after_ms`) lost the server's wait. The typed fields
// of an error (`rule`, `header`) are those Python and Kotlin give.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Driver, Policy, parseRetryAfter, RetrySlots } from 'retryplan';
import * as tools from 'retryplan/tools';
import { throwsCode } from './assertions.mjs';

const POST = { maxAttempts: 3, totalTimeoutMs: 2000, attemptTimeout: { fixedMs: 200 }, idempotency: 'unsafe' };

function started(entry, config = POST) {
  const driver = new entry.Driver(entry.Policy.fromConfig(config), 0, { seed: 1, method: 'POST' });
  return [driver, driver.pollAction(0).attempt];
}

for (const [name, entry] of [
  ['retryplan', { Driver, Policy }],
  ['retryplan/tools', tools],
]) {
  test(`${name}: an outcome's field spelt otherwise is refused, naming it and the field (the snake_case Python writes)`, () => {
    const cases = [
      [{ type: 'http_status', status: 429, retry_after_ms: 500 }, 'retry_after_ms', 'retryAfterMs'],
      [{ type: 'http_status', status: 400, error_code: 'ThrottlingException' }, 'error_code', 'errorCode'],
      [{ type: 'transport', failure: 'connection_lost', RetryAfterMs: 5 }, 'RetryAfterMs', 'retryAfterMs'],
      [{ type: 'success', Status: 200 }, 'Status', 'status'],
    ];
    for (const [outcome, key, field] of cases) {
      const [driver, attempt] = started(entry, { ...POST, idempotency: 'idempotent' });
      const error = throwsCode(() => driver.handleResult(5, attempt, outcome), 'invalid_argument');
      assert.equal(error.field, key);
      assert.equal(error.message, `invalid argument \`${key}\`: is not read: an outcome's field is \`${field}\``);
      // Nothing was handed in: the attempt still runs, and the right spelling is read.
      assert.equal(
        driver.handleResult(5, attempt, { type: 'http_status', status: 429, retryAfterMs: 500 }),
        'accepted',
      );
    }
    const [driver, attempt] = started(entry);
    const pushback = { type: 'grpc_status', code: 'unavailable', pushback: { retry_after_ms: 5 } };
    assert.equal(throwsCode(() => driver.handleResult(5, attempt, pushback)).field, 'retry_after_ms');
  });

  test(`${name}: any other key of an outcome is not read: one built by spreading a response object is handed in`, () => {
    const response = { status: 503, ok: false, statusText: 'busy', body: 'try later', headers: {} };
    const [driver, attempt] = started(entry, { ...POST, idempotency: 'idempotent' });
    assert.equal(driver.handleResult(5, attempt, { type: 'http_status', ...response }), 'accepted');
    assert.equal(driver.pollAction(5).type, 'sleep'); // the 503 is retried
  });

  test(`${name}: a misspelt option of handleResponse or handleResult is refused, and the POST is not sent again`, () => {
    const [driver, attempt] = started(entry);
    const misspelt = throwsCode(
      () => driver.handleResponse(5, attempt, 503, new Headers(), { nowUnixMs: 0, redirect: true }),
      'invalid_argument',
    );
    assert.equal(misspelt.field, 'redirect');
    assert.equal(
      throwsCode(() => driver.handleResponse(5, attempt, 503, new Headers(), { nowUnixMS: 1 })).field,
      'nowUnixMS',
    );
    assert.equal(throwsCode(() => driver.handleResult(5, attempt, { type: 'success' }, { tokn: 7 })).field, 'tokn');
    // Spelt right: the redirected POST's 503 may have been processed by an earlier hop, so it is not repeated.
    assert.equal(driver.handleResponse(5, attempt, 503, new Headers(), { nowUnixMs: 0, redirected: true }), 'accepted');
    assert.notEqual(driver.pollAction(5).type, 'sleep');
  });
}

test("an invalid_argument carries its rule, and a header's error its header, as in Python and Kotlin", () => {
  const argument = throwsCode(() => new RetrySlots(-1), 'invalid_argument');
  assert.equal(argument.field, 'capacity');
  assert.equal(argument.message, `invalid argument \`capacity\`: ${argument.rule}`);
  assert.match(argument.rule, /^must be a whole number in 0\.\.=4294967295/);
  const header = throwsCode(() => parseRetryAfter('x', 0), 'invalid_header');
  assert.equal(header.header, 'retry-after');
  assert.equal(header.field, 'retry-after');
});
