// The core's words read as JS values: attempt sets and request ids, as the
// decision record (lib/generated/decisions.js) and Operation carry them.

/** The attempt numbers of a set given as four 32-bit words (bit 0 of the first = attempt 1), ascending. */
export function attemptList(w0, w1, w2, w3) {
  const list = [];
  if ((w0 | w1 | w2 | w3) === 0) return list;
  [w0, w1, w2, w3].forEach((word, index) => {
    for (let bits = word | 0; bits !== 0; bits &= bits - 1) list.push(index * 32 + 32 - Math.clz32(bits & -bits));
  });
  return list;
}

// A request id arrives as its two 32-bit halves and is spelled as the core's
// Display does: 16 lowercase hex digits. The digits go through
// String.fromCharCode: `half.toString(16)` takes V8's slow path for a half
// >= 2^31 (not a small integer), about 0.4 us per id.
const DIGITS = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
/** A request id from its two 32-bit halves: 16 lowercase hex digits, as the core's Display spells it. */
export const requestIdText = (h, l) =>
  String.fromCharCode(
    DIGITS[h >>> 28],
    DIGITS[(h >>> 24) & 15],
    DIGITS[(h >>> 20) & 15],
    DIGITS[(h >>> 16) & 15],
    DIGITS[(h >>> 12) & 15],
    DIGITS[(h >>> 8) & 15],
    DIGITS[(h >>> 4) & 15],
    DIGITS[h & 15],
    DIGITS[l >>> 28],
    DIGITS[(l >>> 24) & 15],
    DIGITS[(l >>> 20) & 15],
    DIGITS[(l >>> 16) & 15],
    DIGITS[(l >>> 12) & 15],
    DIGITS[(l >>> 8) & 15],
    DIGITS[(l >>> 4) & 15],
    DIGITS[l & 15],
  );
