/**
 * The sessions list's REST response as bytes: JSON.stringify(sessions.map(toSessionJson)) written
 * into the owner's scratch buffer, without the response's string, its UTF-8 length and its copy as
 * it is sent (docs/benchmarks.md, target 5).
 */
import {
  ascii,
  CLOSE_OBJECT,
  COMMA,
  JsonBytes,
  OPEN_OBJECT,
  type JsonScratch,
} from './json-bytes.ts';
import { toSessionJson, type Session } from './session.ts';

/** toSessionJson's keys in its order (taken from it, so the two cannot part). */
const SESSION_KEYS = Object.keys(
  toSessionJson({ firstCallAt: new Date(0), lastCallAt: new Date(0) } as Session),
);
/** `"session_id":`, `"project_id":`, …: each key as JSON writes it before its value. */
const KEY_BYTES = SESSION_KEYS.map((k) => ascii(`${JSON.stringify(k)}:`));

/** JSON.stringify(sessions.map(toSessionJson)) as UTF-8 bytes. */
export function sessionListJsonBytes(sessions: readonly Session[], scratch?: JsonScratch): Buffer {
  const out = new JsonBytes(scratch);
  out.list(sessions.length, (i) => {
    const json = toSessionJson(sessions[i] as Session) as Record<string, unknown>;
    out.raw(OPEN_OBJECT);
    let first = true;
    for (let k = 0; k < SESSION_KEYS.length; k++) {
      const v = json[SESSION_KEYS[k] as string];
      // JSON.stringify leaves out a key whose value is undefined.
      if (v === undefined) continue;
      if (!first) out.raw(COMMA);
      first = false;
      out.raw(KEY_BYTES[k] as Uint8Array);
      out.value(v);
    }
    out.raw(CLOSE_OBJECT);
  });
  return out.bytes();
}
