// When a person's chat line is the same line again (handled once; agents/presenter/main.ts).
// A client sends a line again, with the same id, after a stream break (XEP-0198: what the server
// had not acknowledged), possibly from a new resource, so the key is the bare JID. The id alone
// is not enough: a client that reuses ids (a per-connection counter, say) would have its next,
// different line dropped as a copy for the key's whole lifetime (24 h). A copy has the same text.
import { hash } from 'node:crypto';

/** The dedupe key of a chat line: sender, message id, and a digest of the text it stands for. */
export function chatLineKey(fromBare: string, id: string, text: string): string {
  return `chat ${fromBare} ${id} ${hash('sha256', text, 'base64url').slice(0, 22)}`;
}
