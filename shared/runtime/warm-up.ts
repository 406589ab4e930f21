// Work every agent would otherwise do lazily on its first message, done before it says "online":
// compiling the contracts (ajv, ~0.3–0.6 s), a first validation, and a sign + verify with its own
// key (KeyObjects, JCS, the crypto bindings). The first question after start then costs what
// the hundredth does (docs/runtime.md "Start-up").
import { makeEnvelope } from '../acl/index.js';
import { contracts, validateEnvelope } from '../contracts/index.js';
import { verifyEnvelope } from '../identity/index.js';
import type { Agent } from './agent.js';

export function warmUp(agent: Agent): void {
  contracts();
  const cid = 'sess-warm-up';
  const env = makeEnvelope({
    performative: 'REQUEST', sender: agent.name, receiver: agent.name, conversation_id: cid,
    content: { type: 'ASK_EXPERT', args: { question: 'warm-up' }, context_ref: { session_id: cid } },
  });
  const signed = agent.signing ? agent.signing.sign(env) : env;
  // Through JSON, as a received body would be; the verifier without a replay window (stateless).
  validateEnvelope(JSON.parse(JSON.stringify(signed)));
  if (agent.signing) verifyEnvelope(signed, { expectedDid: agent.signing.did });
}
