// Group commit (issue 15 "durability: group commits"): one SQLite transaction around a burst of
// inbound stanzas instead of one per envelope. A commit in WAL mode writes every page the
// envelope touched (the snapshot, the inbound ledger and its index: ≈ 70 µs of CPU and 100–160 µs
// of wall time each, measured with better-sqlite3 here), and a busy Coordinator commits about
// nine times per conversation, plus once more per envelope in its replay ledger's own file.
//
// What keeps the crash guarantees (docs/runtime.md "Group commit"): the transport holds the
// XEP-0198 acknowledgements and the envelopes sent during the burst until the commit
// (shared/transport/inbox.ts, xmpp-transport.ts). A kill -9 before it leaves nothing sent and
// nothing acknowledged: ejabberd delivers the burst again and it is handled as if for the first
// time. Transactions opened inside the burst (ExchangeStore.atomically) become savepoints
// (better-sqlite3 nests them so), so a handler that throws still undoes only its own writes.
import type { Db } from './sqlite.js';

/** BEGIN … COMMIT on one connection, opened only when nothing else holds a transaction there. */
export interface Grouped {
  /** Opens the group's transaction; false when one is already open (then this group writes through it). */
  begin(): boolean;
  commit(): void;
  rollback(): void;
}

export function groupOn(db: Db): Grouped {
  let open = false;
  const end = (sql: 'COMMIT' | 'ROLLBACK') => {
    if (!open) return;
    open = false;
    if (db.open && db.inTransaction) db.exec(sql);
  };
  return {
    begin() {
      if (open || !db.open || db.inTransaction) return false;
      db.exec('BEGIN');
      open = true;
      return true;
    },
    commit: () => end('COMMIT'),
    rollback: () => end('ROLLBACK'),
  };
}

/**
 * Several connections committed in order: first the files holding a handling's effects (the
 * sessions, the KB's facts, the Presenter's thread owners: add()), then the exchange store, which
 * records that the envelope was handled and holds its tombstone, then the replay ledger. A kill -9
 * between two commits then leaves an effect without its record, never a record without its effect:
 * ejabberd's redelivered copy is handled again and the effect's own once-table (answered.ts)
 * answers it as before. The other order let a committed tombstone tell a person "added" for a
 * session step whose commit died, and a ledger entry committed without its exchange would refuse
 * the redelivered copy as REPLAYED while nothing of its handling survived.
 */
export class GroupCommit {
  private open = false;
  private readonly parts: Grouped[];
  /** How many effect files add() put at the front. */
  private effects = 0;

  /** `parts` (the exchange store) commit in order, then `last` (the replay ledger: after whatever its entries vouch for). */
  constructor(parts: readonly Grouped[], private readonly last?: Grouped) {
    this.parts = [...parts];
    if (last) this.parts.push(last);
  }

  /** A file of the handling's effects (the sessions, the KB's facts): committed before every part given to the constructor. */
  add(part: Grouped): void {
    this.parts.splice(this.effects++, 0, part);
  }

  /** True when at least one part opened a transaction: the caller then holds acks and sends until commit(). */
  begin(): boolean {
    let any = false;
    for (const p of this.parts) any = p.begin() || any;
    this.open = any;
    return any;
  }

  get active(): boolean {
    return this.open;
  }

  /** Commits every part in order; a failure rolls back the parts not yet committed and throws. */
  commit(): void {
    if (!this.open) return;
    this.open = false;
    let i = 0;
    try {
      for (; i < this.parts.length; i++) (this.parts[i] as Grouped).commit();
    } catch (err) {
      for (let j = i; j < this.parts.length; j++) {
        try {
          (this.parts[j] as Grouped).rollback();
        } catch {
          // the connection is gone: SQLite rolled the transaction back itself
        }
      }
      throw err;
    }
  }
}
