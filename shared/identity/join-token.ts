// The token `npm run enrol -- issue` prints for another host (`npm run join -- --server …
// --token …`, issue "Beyond one machine" §2): everything that host needs to log in and enrol,
// in one copyable string. It is a secret (it holds the single-use enrolment secret and the
// account's password): shown once to the operator, never logged.
export interface JoinToken {
  v: 1;
  /** The account the agent logs in as, and that the credential will bind. */
  jid: string;
  role: string;
  /** Redeemed once in ENROL to the Registry, before expires_at (epoch ms). */
  secret: string;
  /** The operator's DID: pinned by the joining host to verify credentials. */
  operator: string;
  domain: string;
  expires_at: number;
  password?: string;
  /**
   * The DIDs of the core agents (Registry, Coordinator, KB, Presenter) as the operator's host has
   * them pinned: the joining host verifies their envelopes from its first message on, without a
   * pinned-DID file copied by hand (issue "Beyond one machine" §2).
   */
  pins?: Record<string, string>;
}

const PREFIX = 'parley-join.v1.';

export function encodeJoinToken(t: JoinToken): string {
  return PREFIX + Buffer.from(JSON.stringify(t), 'utf8').toString('base64url');
}

export function decodeJoinToken(text: string): JoinToken {
  if (!text.startsWith(PREFIX)) throw new Error('not a Parley join token (parley-join.v1.…)');
  const t = JSON.parse(Buffer.from(text.slice(PREFIX.length), 'base64url').toString('utf8')) as Partial<JoinToken>;
  if (t.v !== 1 || typeof t.jid !== 'string' || typeof t.secret !== 'string' || typeof t.operator !== 'string' || typeof t.expires_at !== 'number') {
    throw new Error('malformed Parley join token');
  }
  return t as JoinToken;
}
