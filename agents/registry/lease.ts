// DF leases (seed contract §2.2 HEARTBEAT): a registration lives for `leaseMs` after its last
// REGISTER or HEARTBEAT. Pure: `now` is always passed in, so expiry is tested without real time.
import type { DirectoryRecord } from '../../shared/store/index.js';

/**
 * Live while now < last_seen + leaseMs. A last_seen further in the future than one lease (the
 * clock went back, or a foreign database) counts as expired: a clock jump must not make an
 * entry immortal.
 */
export function isLive(record: Pick<DirectoryRecord, 'last_seen'>, now: number, leaseMs: number): boolean {
  const age = now - record.last_seen;
  return age < leaseMs && age > -leaseMs;
}

export function expiresAt(record: Pick<DirectoryRecord, 'last_seen'>, leaseMs: number): number {
  return record.last_seen + leaseMs;
}

export function partitionByLease<R extends Pick<DirectoryRecord, 'last_seen'>>(
  records: readonly R[], now: number, leaseMs: number,
): { live: R[]; expired: R[] } {
  const live: R[] = [];
  const expired: R[] = [];
  for (const r of records) (isLive(r, now, leaseMs) ? live : expired).push(r);
  return { live, expired };
}
