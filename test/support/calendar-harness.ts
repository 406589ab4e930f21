// A calendar's OACoP handlers without XMPP: in-memory store, a temp ledger, bob's settings,
// a deterministic RNG, and envelopes as the Coordinator sends them (docs/oacop.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { CalendarContext, type Outcome } from '../../shared/oacop/index.js';
import { handleOacop, type CalendarKind } from '../../agents/calendar/service.js';
import { type Envelope, makeEnvelope, replyTo } from '../../shared/acl/index.js';
import { defaultCalendarConfig, type CalendarConfig } from '../../shared/calendar/config.js';
import { Ledger, CalendarStore } from '../../shared/calendar/index.js';
import { validateEnvelope, type Performative } from '../../shared/contracts/index.js';
import { identify } from '../../shared/runtime/index.js';

export const WINDOW = { start: '2025-12-10T08:00:00Z', end: '2025-12-12T18:00:00Z' }; // Wed–Fri

export function calendarHarness(overrides: Partial<CalendarConfig> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cal-'));
  const store = new CalendarStore(':memory:');
  const ledger = new Ledger(path.join(dir, 'ledger.sqlite'));
  const config: CalendarConfig = {
    ...defaultCalendarConfig('bob', 'bob@localhost', 'UTC'),
    rateLimit: { max: 3, windowMs: 60_000 },
    ...overrides,
  };
  let r = 0;
  const ctx = new CalendarContext({
    store, ledger, config: () => config, trustedSenders: ['coordinator@localhost'], localDomain: 'localhost',
    rng: () => ((r = (r * 9301 + 49297) % 233280) / 233280), now: () => Date.parse('2025-12-01T00:00:00Z'),
  });
  const from = identify('coordinator@localhost', 'localhost');
  /** Sends one OACoP envelope through the handler; the answer must validate against contracts/. */
  const send = (performative: Performative, content: object): Outcome | null => {
    const request: Envelope = makeEnvelope({ performative, sender: 'Coordinator', receiver: 'calendar-bob', conversation_id: 'sess-1', ontology: 'OACoP', content });
    const v = validateEnvelope(request);
    expect(v.ok, JSON.stringify(v)).to.equal(true);
    const kind = (v.ok ? v.kind.kind : '') as CalendarKind;
    const out = handleOacop(ctx, kind, request, from);
    if (out) {
      const reply = replyTo(request, { performative: out.performative, content: out.content });
      const rv = validateEnvelope(reply);
      expect(rv.ok, JSON.stringify(rv)).to.equal(true);
    }
    return out;
  };
  const close = () => {
    store.close();
    ledger.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { ctx, store, ledger, config, send, close };
}

export const propose = (threadId: string, revision: number, extra: object = {}) => ({
  type: 'ProposeCollaboration', threadId, revision, object: { type: 'Event', duration: 'PT30M', title: 'Strategy' },
  constraints: { timeWindow: WINDOW }, ...extra,
});
export const confirm = (threadId: string, revision: number, start: string, end: string, extra: object = {}) => ({
  type: 'ConfirmCollaboration', threadId, revision, finalSlot: { start, end }, ...extra,
});
export const cancel = (threadId: string, revision: number) => ({ type: 'CancelCollaboration', threadId, revision, reason: 'SICKNESS' });

export const body = (o: Outcome | null) => (o?.content ?? {}) as Record<string, unknown> & { availableSlots?: { start: string; end: string }[] };
