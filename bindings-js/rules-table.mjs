// Makes lib/rules.js, the core's message table and blames (called by build.sh), from
// tests/messages/rules.json, which core/tests/messages.rs keeps current with
// retryplan::message::Rule::ALL. lib/messages.js composes every message of
// the core from it, outside the wasm.
import { readFileSync, writeFileSync } from 'node:fs';

const { rules, blames } = JSON.parse(readFileSync(new URL('../tests/messages/rules.json', import.meta.url), 'utf8'));
const table = rules.map(({ id, template }) => `  [${JSON.stringify(id)}, ${JSON.stringify(template)}],`).join('\n');
writeFileSync(
  new URL('./lib/rules.js', import.meta.url),
  `// Made by rules-table.mjs from tests/messages/rules.json (retryplan::message::Rule::ALL): do not edit.
/** Every rule of the core's messages, in the order the wasm numbers them: [id, template]. */
export const RULES = [
${table}
];

/** Who must act on each error code (retryplan::Error::blame). */
export const BLAMES = ${JSON.stringify(blames, null, 2)};
`,
);
