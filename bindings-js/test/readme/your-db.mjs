// The database client the README's `run` example imports (`./your-db.mjs`):
// busy once, then it answers.
export class DbBusy extends Error {}

let busy = 1;
export const db = {
  /** @param {string} sql @param {{signal: AbortSignal, requestId: string}} options */
  async query(sql, options) {
    if (busy-- > 0) throw new DbBusy('busy');
    return { rows: [{ id: 7, sql, requestId: options.requestId }] };
  },
};
