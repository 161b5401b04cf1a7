// The browser runtime's lib/spelling.js (browser-entry.mjs puts it in
// browser/lib/ in place of lib/spelling.js): the runtime reads no
// configuration object, so no error is respelt in an object's own keys.
import { decided } from './convert.js';

/** The error as it is. */
export const spelledAsWritten = (error) => error;

/** The handle, or the error thrown (lib/spelling.js respells a configuration's error first). */
export const decidedConfig = (value) => decided(value);
