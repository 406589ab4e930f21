// The local OAPP ledger for oacop-rfc §6.2 proofOfBurn: an operator credits a DID, the DID burns
// credits and gets a txId, and a calendar verifies a txId once (a burn buys one invitation).
// SQLite at $PARLEY_HOME/data/ledger.sqlite, shared by every calendar agent and the CLI (WAL).
import { randomUUID } from 'node:crypto';
import { openDb, type Db } from '../store/index.js';

export class LedgerError extends Error {
  override readonly name = 'LedgerError';
}

export interface BurnRow {
  txId: string;
  did: string;
  amount: number;
  created: string;
  consumedAt: string | null;
  consumedBy: string | null;
}

export type VerifyResult = { ok: true; did: string; amount: number } | { ok: false; reason: string };

const positiveInt = (n: number, what: string): number => {
  if (!Number.isSafeInteger(n) || n <= 0) throw new LedgerError(`${what} must be a positive whole number of credits, got ${n}`);
  return n;
};

export class Ledger {
  private readonly db: Db;

  constructor(file: string) {
    this.db = openDb(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS accounts (did TEXT PRIMARY KEY, balance INTEGER NOT NULL CHECK (balance >= 0));
      CREATE TABLE IF NOT EXISTS burns (
        tx_id TEXT PRIMARY KEY, did TEXT NOT NULL, amount INTEGER NOT NULL, created TEXT NOT NULL,
        consumed_at TEXT, consumed_by TEXT);
    `);
  }

  balance(did: string): number {
    const row = this.db.prepare('SELECT balance FROM accounts WHERE did = ?').get(did) as { balance: number } | undefined;
    return row?.balance ?? 0;
  }

  /** Adds credits (operator action); returns the new balance. */
  credit(did: string, amount: number): number {
    positiveInt(amount, 'amount');
    if (!did) throw new LedgerError('did is required');
    this.db.prepare('INSERT INTO accounts (did, balance) VALUES (?, ?) ON CONFLICT(did) DO UPDATE SET balance = balance + excluded.balance').run(did, amount);
    return this.balance(did);
  }

  /** Burns credits of `did`; returns the txId to put into proofOfBurn. */
  burn(did: string, amount: number, now = new Date()): string {
    positiveInt(amount, 'amount');
    return this.db.transaction(() => {
      const bal = this.balance(did);
      if (bal < amount) throw new LedgerError(`${did} has ${bal} credits, cannot burn ${amount}`);
      this.db.prepare('UPDATE accounts SET balance = balance - ? WHERE did = ?').run(amount, did);
      const txId = `oap:tx:burn_${randomUUID()}`;
      this.db.prepare('INSERT INTO burns (tx_id, did, amount, created) VALUES (?, ?, ?, ?)').run(txId, did, amount, now.toISOString());
      return txId;
    })();
  }

  /**
   * Confirms and consumes a burn in one statement (two calendars cannot both spend it): it must
   * exist, be unspent, be worth at least minAmount and, when `payer` is given, belong to it.
   */
  verify(txId: string, minAmount: number, opts: { payer?: string; consumer?: string; now?: Date } = {}): VerifyResult {
    const row = this.db.prepare('SELECT * FROM burns WHERE tx_id = ?').get(txId) as Record<string, unknown> | undefined;
    if (!row) return { ok: false, reason: `unknown txId ${txId}` };
    if (opts.payer !== undefined && row.did !== opts.payer) return { ok: false, reason: `txId ${txId} was burnt by another DID` };
    if ((row.amount as number) < minAmount) return { ok: false, reason: `burn of ${String(row.amount)} is below the required ${minAmount}` };
    const spent = this.db.prepare('UPDATE burns SET consumed_at = ?, consumed_by = ? WHERE tx_id = ? AND consumed_at IS NULL')
      .run((opts.now ?? new Date()).toISOString(), opts.consumer ?? null, txId);
    if (spent.changes !== 1) return { ok: false, reason: `txId ${txId} was already used` };
    return { ok: true, did: row.did as string, amount: row.amount as number };
  }

  list(): { accounts: { did: string; balance: number }[]; burns: BurnRow[] } {
    const accounts = this.db.prepare('SELECT did, balance FROM accounts ORDER BY did').all() as { did: string; balance: number }[];
    const burns = (this.db.prepare('SELECT * FROM burns ORDER BY created, tx_id').all() as Record<string, unknown>[]).map((r) => ({
      txId: r.tx_id as string, did: r.did as string, amount: r.amount as number, created: r.created as string,
      consumedAt: (r.consumed_at as string | null) ?? null, consumedBy: (r.consumed_by as string | null) ?? null,
    }));
    return { accounts, burns };
  }

  close(): void {
    this.db.close();
  }
}
