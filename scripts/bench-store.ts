// node dist/scripts/bench-store.js [--conversations 5000] [--facts 195000]
// What the durable stores write per unit of work (issue 15; docs/bench.md "stop 35"), from this
// process's /proc/self/io and CPU time, no XMPP:
// - the Coordinator's expert exchange with its durable store (bench scenario exchange-steady, three
//   group commits per conversation): bytes written (its WAL) and write calls per conversation;
// - the KB's fact store, one group commit per fact as at low load: the first 5,000 facts and 5,000
//   after --facts more, with random (UUIDv4) and time-ordered (UUIDv7) session ids.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { uuidV7 } from '../shared/acl/index.js';
import { exchangeSteady, selfIo as io } from '../shared/bench/index.js';
import { SqliteFactStore } from '../shared/store/index.js';

const args = process.argv.slice(2);
const opt = (name: string, d: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : d;
};

/** Runs `fn` n times; prints KiB written, write calls and µs of CPU per call. */
async function measure(label: string, n: number, fn: (i: number) => unknown): Promise<void> {
  const a = io();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn(i);
  const c = process.cpuUsage(c0);
  const b = io();
  console.log(`${label.padEnd(44)} ${((b.wchar - a.wchar) / n / 1024).toFixed(1).padStart(6)} KiB written  ${((b.syscw - a.syscw) / n).toFixed(1).padStart(5)} write calls  ${((c.user + c.system) / n).toFixed(1).padStart(7)} µs CPU`);
}

async function exchanges(n: number): Promise<void> {
  const r = await exchangeSteady(2000);
  try {
    await measure(`exchange-steady, per conversation (${n})`, n, () => r.roundTrip());
  } finally {
    await r.close();
  }
}

async function facts(total: number, ids: 'v4' | 'v7'): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-store-'));
  const store = new SqliteFactStore(path.join(dir, 'kb.sqlite'));
  const group = store.group();
  const add = (i: number): void => {
    group.begin();
    store.add({
      session_id: `sess-${ids === 'v7' ? uuidV7() : randomUUID()}`, slot: 'answer', subject: 'math',
      value: { question: `what is ${i} * 7?`, answer: String(i * 7) }, confidence: 1, ts: new Date().toISOString(),
    });
    group.commit();
  };
  try {
    await measure(`facts, ${ids} session ids, the first 5,000`, 5000, add);
    for (let i = 0; i < total; i++) add(i);
    await measure(`facts, ${ids} session ids, 5,000 after ${total.toLocaleString('en')}`, 5000, add);
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await exchanges(opt('--conversations', 5000));
const total = opt('--facts', 195_000);
await facts(total, 'v4');
await facts(total, 'v7');
