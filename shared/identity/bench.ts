// Micro benchmark of the identity layer, for scripts/bench.ts (not a test: numbers depend on the
// machine). Each measurement runs for `durationMs` of wall time on a real signed envelope and
// reports operations per CPU-second (per core).
import { makeEnvelope } from '../acl/index.js';
import { canonical } from './jcs.js';
import { createIdentity, nobleEd25519, nodeEd25519, type Ed25519Impl } from './keys.js';
import { createVerifier, signEnvelope, signingBytes } from './sign.js';

export interface ImplRates {
  signsPerSec: number;
  verifiesPerSec: number;
}

export interface IdentityBench {
  messageBytes: number;
  node: ImplRates;
  noble: ImplRates;
  /** RFC 8785 canonicalisations of the envelope per second. */
  jcsPerSec: number;
  /** signEnvelope (JCS + node:crypto) and verifyEnvelope (JCS + DID + replay + node:crypto). */
  envelopeSignsPerSec: number;
  envelopeVerifiesPerSec: number;
}

/**
 * Operations per second of CPU time consumed by this process (user + system), i.e. per core: on
 * a busy machine wall-clock rates mostly measure the other processes.
 */
function rate(durationMs: number, op: (i: number) => unknown): number {
  for (let i = 0; i < 50; i++) op(i); // warm-up (JIT, KeyObject caches)
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const limit = BigInt(durationMs) * 1_000_000n;
  let n = 0;
  do {
    for (let k = 0; k < 20; k++) op(n++);
  } while (process.hrtime.bigint() - start < limit);
  const cpu = process.cpuUsage(cpu0);
  return Math.round((n * 1e6) / Math.max(1, cpu.user + cpu.system));
}

export function benchIdentity(opts: { durationMs?: number } = {}): IdentityBench {
  const durationMs = opts.durationMs ?? 1_000;
  const id = createIdentity();
  const envelope = makeEnvelope({
    performative: 'REQUEST', sender: 'Coordinator', receiver: 'specialist-math', conversation_id: 'sess-bench',
    content: { type: 'ASK_EXPERT', args: { question: 'What is 2+2?' }, context_ref: { session_id: 'sess-bench' } },
  });
  const signed = signEnvelope(envelope, id);
  const message = signingBytes(signed);
  const impl = (e: Ed25519Impl): ImplRates => {
    const sig = e.sign(message, id.privateKey);
    return {
      signsPerSec: rate(durationMs, () => e.sign(message, id.privateKey)),
      verifiesPerSec: rate(durationMs, () => e.verify(sig, message, id.publicKey)),
    };
  };
  // Each verify needs a distinct reply_with, else the replay window answers REPLAY without crypto.
  const copies = Array.from({ length: 4096 }, (_, i) => signEnvelope({ ...envelope, reply_with: `msg-bench-${i}` }, id));
  let verify = createVerifier();
  const verifyNext = (i: number) => {
    if (i % copies.length === 0) verify = createVerifier();
    if (!verify(copies[i % copies.length]).ok) throw new Error('bench envelope failed to verify');
  };
  return {
    messageBytes: message.length,
    node: impl(nodeEd25519),
    noble: impl(nobleEd25519),
    jcsPerSec: rate(durationMs, () => canonical(signed)),
    envelopeSignsPerSec: rate(durationMs, () => signEnvelope(envelope, id)),
    envelopeVerifiesPerSec: rate(durationMs, verifyNext),
  };
}
