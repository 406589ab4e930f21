// An exchange's record as the exchanges table keeps it (exchanges.ts): JSON, with each envelope
// written once. The router's record holds the request beside the snapshot's context, which holds
// it too, and the envelopes sent in the last second (`recent`, resent after a crash), which the
// context mostly holds as well (the Coordinator's ASK_EXPERT and STORE_FACT). A Coordinator's
// record after its RESULT was ~5 kB, one page and an overflow page rewritten at every commit
// (docs/bench.md "stop 35"). An envelope that *is* (the same object) a top-level value of the
// context is written as the name of that value; anything else is written as it is, and a record
// without such names (an older row) reads as it always did.
import type { Envelope } from '../acl/index.js';
import type { PersistedExchange } from '../runtime/index.js';

/** What the table holds: `requestRef` instead of `request`, `{at, ref}` instead of `{at, envelope}`. */
interface Packed extends Omit<PersistedExchange, 'request' | 'recent'> {
  request?: Envelope;
  requestRef?: string;
  recent: Array<{ at: number; envelope?: Envelope; ref?: string }>;
}

function contextOf(snapshot: unknown): Record<string, unknown> | undefined {
  const context = (snapshot as { context?: unknown } | null | undefined)?.context;
  return context !== null && typeof context === 'object' && !Array.isArray(context) ? context as Record<string, unknown> : undefined;
}

/** The record's JSON text, each envelope the context holds written once. */
export function packRecord(record: PersistedExchange): string {
  const context = contextOf(record.snapshot);
  if (!context) return JSON.stringify(record);
  let names: Map<unknown, string> | undefined;
  for (const key in context) {
    const value = context[key];
    if (value !== null && typeof value === 'object') (names ??= new Map()).set(value, key);
  }
  if (!names) return JSON.stringify(record);
  const { request, recent, ...rest } = record;
  const packed: Packed = { ...rest, recent: [] };
  const requestRef = request && names.get(request);
  if (requestRef !== undefined) packed.requestRef = requestRef;
  else if (request) packed.request = request;
  for (const r of recent) {
    const ref = names.get(r.envelope);
    packed.recent.push(ref !== undefined ? { at: r.at, ref } : r);
  }
  return JSON.stringify(packed);
}

/** The record from its JSON text (packed or not). A name that the context no longer holds is dropped. */
export function unpackRecord(text: string): PersistedExchange {
  const packed = JSON.parse(text) as Packed;
  const context = contextOf(packed.snapshot);
  const named = (ref: string | undefined): Envelope | undefined => {
    const value = ref !== undefined && context && Object.hasOwn(context, ref) ? context[ref] : undefined;
    return value !== null && typeof value === 'object' ? value as Envelope : undefined;
  };
  const { requestRef, request, recent, ...rest } = packed;
  const record: PersistedExchange = { ...rest, recent: [] };
  const req = request ?? named(requestRef);
  if (req) record.request = req;
  for (const r of recent ?? []) {
    const envelope = r.envelope ?? named(r.ref);
    if (envelope) record.recent.push({ at: r.at, envelope });
  }
  return record;
}
