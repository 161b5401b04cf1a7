// JSON text for the tools entry's readers (`Policy.fromJson`, `Dependency.fromJson`,
// `ServiceConfig.fromJson`): only the tools wasm imports this module, so the
// default entry does not download it.

/** A JSON object as `parseJson` gives it to the wasm: its entries in text order, a repeated key included. */
class JsonObject {
  constructor(entries) {
    this.entries = entries;
  }
}

/** Deeper than any configuration; the wasm reader names the field past its own, lower limit. */
const MAX_JSON_DEPTH = 64;
const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * JSON text as plain data for the core's configuration reader, which refuses
 * a key the text repeats, as every other language does (`JSON.parse` keeps
 * the last one silently). The text is checked by `JSON.parse` first (its
 * syntax errors, its messages), then walked once more to keep every key.
 */
export function parseJson(text) {
  JSON.parse(text);
  let at = 0;
  const skipSpace = () => {
    for (let c = text.charCodeAt(at); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++at));
  };
  const string = () => {
    const start = at;
    for (at += 1; text.charCodeAt(at) !== 34; at += text.charCodeAt(at) === 92 ? 2 : 1);
    at += 1;
    return JSON.parse(text.slice(start, at));
  };
  const value = (depth) => {
    if (depth > MAX_JSON_DEPTH) throw new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`);
    skipSpace();
    const first = text[at];
    if (first === '{' || first === '[') {
      const items = [];
      at += 1;
      skipSpace();
      if (text[at] === (first === '{' ? '}' : ']')) at += 1;
      else {
        do {
          skipSpace();
          if (first === '{') {
            const key = string();
            skipSpace();
            at += 1; // the colon
            items.push([key, value(depth + 1)]);
          } else items.push(value(depth + 1));
          skipSpace();
        } while (text[at++] === ',');
      }
      return first === '{' ? new JsonObject(items) : items;
    }
    if (first === '"') return string();
    const literal = { t: true, f: false, n: null }[first];
    if (literal !== undefined) {
      at += literal === false ? 5 : 4;
      return literal;
    }
    JSON_NUMBER.lastIndex = at;
    JSON_NUMBER.test(text);
    const number = Number(text.slice(at, JSON_NUMBER.lastIndex));
    at = JSON_NUMBER.lastIndex;
    return number;
  };
  return value(0);
}
