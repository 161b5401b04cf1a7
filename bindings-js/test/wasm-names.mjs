// Reads a wasm module's sections and the function names of its name section
// (cargo's output keeps it; the shipped wasm does not): for the check that no
// formatting code is linked into the default entry, and for the size gate's
// shares.

/** `{sections: [{id, name?, size}], functions: [{name, size}]}` (a function's body size in bytes). */
export function readWasm(bytes) {
  let at = 8;
  const u32 = () => {
    let result = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      result |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return result >>> 0;
  };
  const text = () => {
    const length = u32();
    const value = Buffer.from(bytes.subarray(at, at + length)).toString('utf8');
    at += length;
    return value;
  };
  const sections = [];
  const names = new Map();
  const bodies = [];
  let imported = 0;
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = u32();
    const end = at + size;
    const section = { id, size };
    if (id === 0) {
      section.name = text();
      if (section.name === 'name') {
        while (at < end) {
          const sub = bytes[at++];
          const subEnd = u32() + at;
          if (sub === 1) for (let count = u32(); count > 0; count -= 1) names.set(u32(), text());
          at = subEnd;
        }
      }
    } else if (id === 2) {
      for (let count = u32(); count > 0; count -= 1) {
        text();
        text();
        const kind = bytes[at++];
        if (kind === 0) {
          u32();
          imported += 1;
        } else if (kind === 1) {
          at += 1;
          const flags = bytes[at++];
          u32();
          if (flags & 1) u32();
        } else if (kind === 2) {
          const flags = bytes[at++];
          u32();
          if (flags & 1) u32();
        } else if (kind === 3) at += 2;
        else if (kind === 4) (at += 1), u32();
      }
    } else if (id === 10) {
      for (let count = u32(), index = 0; index < count; index += 1) {
        const body = u32();
        bodies.push([imported + index, body]);
        at += body;
      }
    }
    sections.push(section);
    at = end;
  }
  const functions = bodies.map(([index, size]) => ({ name: names.get(index) ?? `function ${index}`, size }));
  return { sections, functions, names: [...names.values()] };
}

/** Names of the formatting machinery (`core::fmt`), mangled (legacy or v0) or demangled. */
export const FORMATTING = /4core3fmt|core(\[[0-9a-f]+\])?::fmt/;
