// The contract between the router and a role's xstate machines (docs/architecture.md):
// machines are pure; they receive envelopes as `inbound` events and `emit` what goes out.
import type { AnyStateMachine } from 'xstate';
import type { Envelope } from '../acl/index.js';
import type { Identity } from './names.js';

/** Sent into an exchange actor: a reply correlated to it (in_reply_to), or a CANCEL. */
export interface InboundEvent {
  type: 'inbound';
  envelope: Envelope;
}

/**
 * Sent by a child actor to its parent (xstate sendParent): an envelope of a sub-protocol the child
 * runs for the exchange (e.g. the DF lookup, agents/coordinator/registry-lookup.ts). The router
 * listens to an exchange's root actor only, so the parent re-emits it as `send`; the reply comes
 * back to the exchange through in_reply_to like any other, and the parent forwards it to the child.
 */
export interface ChildSendEvent {
  type: 'child.send';
  envelope: Envelope;
}

/** Emitted by exchange actors. `send` goes out through the pipeline's signer and transport. */
export type ExchangeEmitted =
  | { type: 'send'; envelope: Envelope }
  | { type: 'note'; decision: string; detail?: object };

/** Input of an exchange opened by an inbound initiating message. */
export interface ExchangeInput {
  request: Envelope;
  from: Identity;
  self: string;
}

/** Builds the actor for an initiating message of one content kind. */
export type ExchangeFactory = (request: Envelope, from: Identity) => { machine: AnyStateMachine; input: unknown };
