// One USER_MSG → one exchange actor; the intent of its text picks the machine (help, recall, or
// the seed contract §3 expert flow). main.ts registers this with router.on('USER_MSG', …).
import type { Envelope } from '../../shared/acl/envelope.js';
import type { ExchangeFactory } from '../../shared/runtime/exchange.js';
import type { Identity } from '../../shared/runtime/names.js';
import type { CoordinatorTimeouts } from './envelopes.js';
import { userMsg } from './envelopes.js';
import { helpMachine } from './help.js';
import { classifyIntent } from './intent.js';
import { expertMachine } from './machine.js';
import { recallMachine } from './recall.js';

export function userMsgFactory(opts: { self: string; domain: string; timeouts: CoordinatorTimeouts }): ExchangeFactory {
  return (request: Envelope, from: Identity) => {
    const base = { request, from, self: opts.self, domain: opts.domain, timeouts: opts.timeouts };
    const intent = classifyIntent(userMsg(request).text);
    switch (intent.kind) {
      case 'help':
        return { machine: helpMachine, input: base };
      case 'recall':
        return { machine: recallMachine, input: { ...base, topic: intent.topic } };
      case 'ask':
        return { machine: expertMachine, input: base };
    }
  };
}
