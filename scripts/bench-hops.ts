// node dist/scripts/bench-hops.js PARLEY_HOME [--skip N] [--take N]
// Where the full flow's time goes (issue #3): reads every agent's telemetry database of a bench
// run kept with `npm run bench -- --keep-home`, takes the sequential conversations (in order of
// their first record: --skip the warm-up, --take the measured ones), merges their records by time
// and prints, for each step between two consecutive records (agent, direction, performative,
// content type), the median and p95 gap. Wire steps are "out → in" between two agents; the rest
// is time inside one agent (validation, signature, machine, skill worker).
import fs from 'node:fs';
import path from 'node:path';
import { openDb } from '../shared/store/index.js';

interface Row { agent: string; direction: string; at: number; conversation_id: string; performative: string | null; content_type: string | null; decision: string }

const args = process.argv.slice(2);
const home = args[0];
const opt = (name: string, d: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : d;
};
if (!home) {
  console.error('usage: bench-hops PARLEY_HOME [--skip 30] [--take 200]');
  process.exit(2);
}
const dir = path.join(home, 'telemetry');
const rows: Row[] = [];
for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.sqlite'))) {
  const db = openDb(path.join(dir, f), { readonly: true });
  try {
    rows.push(...(db.prepare(`SELECT agent, direction, at, conversation_id, performative, content_type, decision FROM envelopes
      WHERE conversation_id LIKE 'chat-%' OR conversation_id LIKE 'sess-%' OR conversation_id LIKE 'conv-%'`).all() as Row[]));
  } finally {
    db.close();
  }
}
const byConv = new Map<string, Row[]>();
for (const r of rows) (byConv.get(r.conversation_id) ?? byConv.set(r.conversation_id, []).get(r.conversation_id) as Row[]).push(r);
const convs = [...byConv.values()].map((rs) => rs.sort((a, b) => a.at - b.at)).sort((a, b) => (a[0] as Row).at - (b[0] as Row).at);
const chosen = convs.slice(opt('--skip', 30), opt('--skip', 30) + opt('--take', 200));
const label = (r: Row) => `${r.agent} ${r.direction === 'note' ? `note ${r.decision}` : `${r.direction} ${r.performative ?? ''} ${r.content_type ?? ''}`.trim()}`;
const steps = new Map<string, { order: number; gaps: number[] }>();
const totals: number[] = [];
for (const rs of chosen) {
  totals.push((rs[rs.length - 1] as Row).at - (rs[0] as Row).at);
  rs.forEach((r, i) => {
    if (i === 0) return;
    const prev = rs[i - 1] as Row;
    const key = `${label(prev)}  →  ${label(r)}`;
    const s = steps.get(key) ?? steps.set(key, { order: i, gaps: [] }).get(key) as { order: number; gaps: number[] };
    s.gaps.push(r.at - prev.at);
  });
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;
console.log(`${chosen.length} conversations; first to last record: median ${q(totals, 0.5).toFixed(2)} ms, p95 ${q(totals, 0.95).toFixed(2)} ms`);
console.log('   n   median ms   p95 ms  step');
for (const [k, s] of [...steps].filter(([, s]) => s.gaps.length >= chosen.length / 4).sort((a, b) => a[1].order - b[1].order)) {
  console.log(`${String(s.gaps.length).padStart(4)}  ${q(s.gaps, 0.5).toFixed(3).padStart(9)}  ${q(s.gaps, 0.95).toFixed(3).padStart(7)}  ${k}`);
}
