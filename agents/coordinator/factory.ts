// One USER_MSG → one exchange actor; the intent of its text picks the machine (help, recall, or
// the seed contract §3 expert flow). main.ts registers this with router.on('USER_MSG', …).
import type { Envelope } from '../../shared/acl/envelope.js';
import type { ExchangeFactory } from '../../shared/runtime/exchange.js';
import type { Identity } from '../../shared/runtime/names.js';
import type { CandidateCache } from './candidate-cache.js';
import type { CoordinatorTimeouts } from './envelopes.js';
import { userMsg } from './envelopes.js';
import { helpMachine } from './help.js';
import { classifyIntent } from './intent.js';
import { expertMachine, hintOf } from './machine.js';
import type { AgoraSettings } from './negotiation.js';
import { recallMachine } from './recall.js';

export function userMsgFactory(opts: { self: string; domain: string; timeouts: CoordinatorTimeouts; cache?: CandidateCache; agora?: AgoraSettings }): ExchangeFactory {
  const { cache } = opts;
  // Provided once (provide() builds a new machine): the cache is the only side effect here.
  const expert = cache
    ? expertMachine.provide({
      actions: {
        rememberCandidates: (_, p: { hint: string; jids: unknown }) => cache.put(p.hint, p.jids),
        forgetCandidates: (_, p: { hint: string }) => cache.forget(p.hint),
      },
    })
    : expertMachine;
  return (request: Envelope, from: Identity) => {
    const base = { request, from, self: opts.self, domain: opts.domain, timeouts: opts.timeouts };
    const text = userMsg(request).text;
    const intent = classifyIntent(text);
    switch (intent.kind) {
      case 'help':
        return { machine: helpMachine, input: base };
      case 'recall':
        return { machine: recallMachine, input: { ...base, topic: intent.topic } };
      case 'ask': {
        const cached = cache?.get(hintOf(text));
        const input = opts.agora ? { ...base, agora: opts.agora } : base;
        return { machine: expert, input: cached ? { ...input, cached } : input };
      }
    }
  };
}
