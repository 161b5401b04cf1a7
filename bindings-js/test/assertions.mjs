// Assertions the Node tests share.
import assert from 'node:assert/strict';
import { RetryplanError } from 'retryplan';

/** The RetryplanError `call` throws, checked to be a real Error with `code` (any code when omitted). */
export function throwsCode(call, code) {
  let caught;
  try {
    call();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof RetryplanError, `expected a RetryplanError, got ${caught}`);
  assert.ok(caught instanceof Error);
  assert.equal(caught.name, 'RetryplanError');
  if (code !== undefined) assert.equal(caught.code, code, caught.message);
  assert.equal(typeof caught.message, 'string');
  assert.ok(caught.stack.includes('RetryplanError'));
  return caught;
}

/** What `promise` rejects with; fails the test when it resolves. */
export async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}
