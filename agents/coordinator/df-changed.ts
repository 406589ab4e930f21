// INFORM DF_CHANGED from the Registry (issue 15 "the DF answer cached by lease, invalidated by the
// DF"): a registration was added, withdrawn, expired or no longer admitted, so the candidate
// lists the Coordinator reuses (candidate-cache.ts) are stale and go. The role policy lets only the
// Registry open this kind (shared/contracts/message-kinds.ts); nothing answers an INFORM.
import { emit, setup } from 'xstate';
import type { Envelope } from '../../shared/acl/index.js';
import type { ExchangeEmitted, InboundEvent } from '../../shared/runtime/index.js';

/** `forgetCandidates` is provided by main.ts (the cache is the only side effect). */
export const dfChangedMachine = setup({
  types: {} as { input: { request: Envelope }; events: InboundEvent; emitted: ExchangeEmitted },
  actions: { forgetCandidates: () => {} },
}).createMachine({
  id: 'df-changed',
  entry: [
    'forgetCandidates',
    emit(({ event }) => {
      const c = ((event as unknown as { input?: { request: Envelope } }).input?.request.content ?? {}) as { jids?: string[] };
      return { type: 'note' as const, decision: 'df-changed', detail: { jids: c.jids ?? null } };
    }),
  ],
  type: 'final',
});
