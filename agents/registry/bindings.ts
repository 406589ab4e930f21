// The DF's JID → DID bindings (docs/architecture.md "Identities and trust"). A JID is bound to
// the DID of its first REGISTER and stays bound across deregistration, lease expiry and restarts:
// a later REGISTER with another key is refused (DID_MISMATCH) unless the operator rotated the
// key (`npm run keys -- rotate NAME`), which pins the new DID in the installation's pinned file.
import type { Db } from '../../shared/store/sqlite.js';
import { openDb } from '../../shared/store/sqlite.js';
import { bare } from '../../shared/transport/stanza.js';

export type BindOutcome =
  | { ok: true; jid: string; did: string; rotated: boolean; previous?: string }
  | { ok: false; jid: string; bound: string };

/** Decides a REGISTER's DID against the stored binding and the operator's pin (pure). */
export function decideBinding(jid: string, did: string, bound: string | undefined, pinned: string | undefined): BindOutcome {
  if (bound === undefined || bound === did) return { ok: true, jid, did, rotated: false };
  if (pinned === did) return { ok: true, jid, did, rotated: true, previous: bound };
  return { ok: false, jid, bound };
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS did_bindings (jid TEXT PRIMARY KEY, did TEXT NOT NULL, bound_at INTEGER NOT NULL);`;

export class DidBindings {
  private readonly db: Db;
  private readonly stmts;

  /** `file`: the Registry's SQLite ($PARLEY_HOME/data/registry.sqlite) or ':memory:'. */
  constructor(file: string) {
    this.db = openDb(file);
    this.db.exec(SCHEMA);
    this.stmts = {
      get: this.db.prepare('SELECT did FROM did_bindings WHERE jid = ?'),
      put: this.db.prepare('INSERT OR REPLACE INTO did_bindings (jid, did, bound_at) VALUES (?, ?, ?)'),
      all: this.db.prepare('SELECT jid, did FROM did_bindings ORDER BY jid'),
    };
  }

  get(jid: string): string | undefined {
    return (this.stmts.get.get(bare(jid)) as { did: string } | undefined)?.did;
  }

  /** Binds `did` to `jid` if decideBinding allows it; `pinned` is the operator's pin for the JID. */
  bind(jid: string, did: string, pinned: string | undefined, now: number): BindOutcome {
    const key = bare(jid);
    const outcome = decideBinding(key, did, this.get(key), pinned);
    if (outcome.ok) this.stmts.put.run(key, did, now);
    return outcome;
  }

  /** The bindings of `jids` that exist (the `dids` of INFORM candidates). */
  didsOf(jids: readonly string[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const jid of jids) {
      const did = this.get(jid);
      if (did !== undefined) out[jid] = did;
    }
    return out;
  }

  all(): Array<{ jid: string; did: string }> {
    return this.stmts.all.all() as Array<{ jid: string; did: string }>;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
