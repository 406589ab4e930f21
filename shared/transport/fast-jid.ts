// @xmpp/jid 0.14's JID#setLocal runs detect() (ten replaceAll and a regular expression: does the
// local part need XEP-0106 escaping?) for every JID xmpp.js parses, the `from` and `to` of every
// stanza in and out. The bundles every agent runs patch detect() in its source (scripts/bundle.ts,
// shared/supervisor/bundle-patches.ts patchJidDetect); code run from dist/ kept the slow one: the
// bench's two in-process agents (2 % of that process's CPU signed, 4.5 % unsigned) and an agent
// started without its bundle. The same rule here, on the class: a local part with none of the
// characters detect() searches for needs no escaping (its replaceAll only remove sequences that
// start with a backslash), so setLocal stores it lower-cased at once; any other input, or an
// explicit escape, goes to the original. Applied only to the source it was written for.
import { JID } from '@xmpp/jid';

const SEARCHED = /[ "&'/:<>@\\]/;
/** The start of the setLocal this was written for (@xmpp/jid 0.14.0). */
const ORIGINAL_HEAD = /^setLocal\(local, escape\) \{\s*escape = escape \|\| escaping\.detect\(local\);\s*if \(escape\) \{\s*local = escaping\.escape\(local\);\s*\}\s*this\._local = local && local\.toLowerCase\(\);\s*return this;\s*\}$/;

interface Settable { _local: string | null; setLocal(local: string | null, escape?: boolean): Settable }

let applied: boolean | undefined;

/** Installs the fast path on @xmpp/jid's JID (once); false when its setLocal is not the one expected. */
export function useFastJidLocal(): boolean {
  if (applied !== undefined) return applied;
  const proto = JID.prototype as unknown as Settable;
  const original = proto.setLocal;
  applied = ORIGINAL_HEAD.test(String(original));
  if (!applied) return false;
  proto.setLocal = function (this: Settable, local: string | null, escape?: boolean): Settable {
    if (escape || typeof local !== 'string' || SEARCHED.test(local)) return original.call(this, local, escape);
    this._local = local && local.toLowerCase();
    return this;
  };
  return true;
}
