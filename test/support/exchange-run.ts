// Runs one exchange machine to its end in a unit test, as the router would (shared/runtime/router.ts):
// its `send` events are the envelopes it sent (each checked against the contracts), its `note`
// events the telemetry decisions it took.
import { expect } from 'chai';
import { type AnyActorRef, toPromise } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import { validateEnvelope } from '../../shared/contracts/index.js';
import type { ExchangeEmitted } from '../../shared/runtime/index.js';

export async function runToEnd(actor: AnyActorRef): Promise<{ sent: Envelope[]; notes: string[] }> {
  const sent: Envelope[] = [];
  const notes: string[] = [];
  actor.on('*', (e: ExchangeEmitted) => {
    if (e.type === 'send') sent.push(e.envelope);
    else notes.push(e.decision);
  });
  actor.start();
  await toPromise(actor);
  for (const env of sent) expect(validateEnvelope(env), JSON.stringify(env)).to.include({ ok: true });
  return { sent, notes };
}
