// Human output of a trace: a fixed-width table (offset, from → to, performative, content type,
// latency, decision) and a Mermaid sequence diagram (docs/traces/).
import type { Analysis } from './analyze.js';
import type { TraceMessage, TraceRecord } from './types.js';

interface Row {
  at: number;
  edge: string;
  performative: string;
  content: string;
  latency: string;
  decision: string;
}

const ms = (x: number) => x.toFixed(1);
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function messageRow(m: TraceMessage): Row {
  const latency = m.out && m.in ? ms(m.in.at - m.out.at) : '';
  return {
    at: m.at,
    edge: `${m.sender} → ${m.receiver}`,
    performative: m.performative,
    content: m.content_type ?? '',
    latency,
    decision: m.in ? m.in.decision : m.out ? 'NOT RECEIVED' : 'NOT SENT (in only)',
  };
}

/** A decision with its detail, e.g. "dispatch candidate=specialist-time attempt=1". */
export function noteText(n: TraceRecord, max = 90): string {
  let detail = '';
  try {
    const d = n.body ? (JSON.parse(n.body) as Record<string, unknown>) : {};
    detail = Object.entries(d).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
  } catch {
    detail = n.body ?? '';
  }
  return clip(oneLine(detail ? `${n.decision} ${detail}` : n.decision), max);
}

const noteRow = (n: TraceRecord): Row => ({ at: n.at, edge: `${n.agent} (note)`, performative: '', content: '', latency: '', decision: noteText(n) });

export function table(a: Analysis): string {
  const rows: Row[] = [...a.messages.map(messageRow), ...a.notes.map(noteRow)];
  if (a.chat) {
    rows.push({ at: a.chat.askedAt, edge: `${a.chat.person} → Presenter`, performative: 'chat', content: '', latency: '', decision: clip(oneLine(a.chat.question), 48) });
    if (a.chat.answeredAt !== undefined) {
      rows.push({ at: a.chat.answeredAt, edge: `Presenter → ${a.chat.person}`, performative: 'chat', content: '', latency: '', decision: clip(oneLine(a.chat.answer ?? ''), 48) });
    }
  }
  rows.sort((x, y) => x.at - y.at);
  const head = ['+ms', 'from → to', 'performative', 'content', 'lat ms', 'decision'];
  const cells = rows.map((r) => [ms(r.at - a.t0), r.edge, r.performative, r.content, r.latency, r.decision]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 || i === 4 ? x.padStart(widths[i] as number) : x.padEnd(widths[i] as number))).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

/** Mermaid message text: one line, no statement separators or comment markers. */
const label = (s: string) => clip(oneLine(s), 60).replace(/;/g, '#59;').replace(/#(?!59;)/g, '#35;').replace(/%%/g, '% %');

export function mermaid(a: Analysis): string {
  const order = ['Presenter', 'Coordinator', 'Registry'];
  const seen = new Set<string>();
  const names: string[] = [];
  const add = (n: string) => {
    if (!seen.has(n)) {
      seen.add(n);
      names.push(n);
    }
  };
  if (a.chat) add(a.chat.person);
  for (const n of order) if (a.messages.some((m) => m.sender === n || m.receiver === n)) add(n);
  for (const m of a.messages) [m.sender, m.receiver].filter((n) => n !== 'KB').forEach(add);
  if (a.messages.some((m) => m.sender === 'KB' || m.receiver === 'KB')) add('KB');
  const id = new Map(names.map((n, i) => [n, `P${i}`]));
  const out = ['sequenceDiagram'];
  for (const n of names) out.push(`  participant ${id.get(n)} as ${n}`);
  type Ev = { at: number; line: string };
  const evs: Ev[] = a.messages.map((m) => {
    const arrow = !m.in ? '-x' : m.in_reply_to ? '-->>' : '->>';
    return { at: m.at, line: `  ${id.get(m.sender)}${arrow}${id.get(m.receiver)}: ${label(`${m.performative} ${m.content_type ?? ''}`)}` };
  });
  for (const n of a.notes) if (id.has(n.agent)) evs.push({ at: n.at, line: `  Note over ${id.get(n.agent)}: ${label(noteText(n, 60))}` });
  if (a.chat) {
    const p = id.get(a.chat.person) as string;
    const pres = id.get('Presenter') ?? 'Presenter';
    evs.push({ at: a.chat.askedAt, line: `  ${p}->>${pres}: ${label(`chat: ${a.chat.question}`)}` });
    if (a.chat.answeredAt !== undefined) evs.push({ at: a.chat.answeredAt, line: `  ${pres}-->>${p}: ${label(`chat: ${a.chat.answer ?? ''}`)}` });
  }
  evs.sort((x, y) => x.at - y.at);
  return [...out, ...evs.map((e) => e.line)].join('\n') + '\n';
}

export function summary(a: Analysis): string {
  const lines = [`conversation ${a.conversationId}: ${a.messages.length} envelopes, ${a.notes.length} decisions, ${ms(a.durationMs)} ms end to end`];
  if (a.chat) lines.push(`answer: ${a.chat.answer ?? '(none)'}`);
  if (a.violations.length === 0) lines.push('invariants: all hold');
  for (const v of a.violations) lines.push(`VIOLATED ${v.invariant}: ${v.detail}`);
  return lines.join('\n');
}

/** The headers that carry correlation (seed contract §1): reply_with / in_reply_to per envelope. */
export function correlationTable(a: Analysis): string {
  const ref = new Map(a.messages.map((m, i) => [m.reply_with, `#${i + 1}`]));
  const rows = a.messages.map((m, i) => [
    `#${i + 1}`, `${m.performative} ${m.content_type ?? ''}`.trim(), `${m.sender} → ${m.receiver}`, m.reply_with,
    m.in_reply_to ? `${m.in_reply_to} (${ref.get(m.in_reply_to) ?? '?'})` : '—',
  ]);
  const head = ['#', 'envelope', 'from → to', 'reply_with', 'in_reply_to'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (c: string[]) => c.map((x, i) => x.padEnd(widths[i] as number)).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
