// Sessions, meetings, tasks, bookings and the DF, read-only. A session opens with its turn log
// and the server's verdict on its hash chain (OAP RFC 0001 §3.5).
import { api, h } from '../app.js';

// Times as an operator reads them, in the browser's own zone, which the page names once.
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
const dayTime = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
const timeOnly = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' });
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const at = (iso) => (ISO.test(iso) && !Number.isNaN(Date.parse(iso)) ? dayTime.format(new Date(iso)) : iso);
/** A slot {start, end}: "Wed 2 Dec 2026, 14:00–14:30" (the end's day only when it differs). */
function span(slot) {
  const [s, e] = [new Date(slot.start), new Date(slot.end)];
  if (Number.isNaN(s.getTime()) || Number.isNaN(e.getTime())) return JSON.stringify(slot);
  return `${dayTime.format(s)}–${s.toDateString() === e.toDateString() ? timeOnly.format(e) : dayTime.format(e)}`;
}
const cell = (v) => {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'object') return typeof v.start === 'string' && typeof v.end === 'string' ? span(v) : JSON.stringify(v);
  return typeof v === 'string' ? at(v) : String(v);
};
function rowsTable(rows, columns) {
  if (!rows.length) return h('p.muted', {}, 'none yet');
  const cols = columns ?? Object.keys(rows[0]);
  return h('div.scroll', {}, h('table.grid', {}, h('thead', {}, h('tr', {}, cols.map((c) => h('th', {}, c)))), h('tbody', {}, rows.map((r) => h('tr', {}, cols.map((c) => h('td.small', {}, cell(r[c]))))))));
}

async function sessionDetail(box, id) {
  const s = await api(`/api/sessions/${encodeURIComponent(id)}`);
  const v = s.verdict;
  box.replaceChildren(h('h3', {}, 'Session ', h('code', {}, id)),
    h('p#chain-verdict', {}, v.ok ? h('span.badge.ok', {}, `✔ hash chain verified: ${v.turns} turns, head ${v.head?.hash?.slice(0, 16) ?? '—'}…`) : h('span.badge.error', {}, `✘ TAMPERED at turn ${v.seq} (${v.turn_id}): ${v.problem}`)),
    h('pre.envelope', {}, JSON.stringify(s.session.state, null, 2)),
    rowsTable(s.participants),
    rowsTable(s.turns.map((t) => ({ seq: t.seq, op: t.op, at: t.at, actor: t.actor, hash: `${t.hash.slice(0, 16)}…` }))));
}

export async function dataPage(main) {
  const [sessions, meetings, tasks, bookings, dir] = await Promise.all(['sessions', 'meetings', 'tasks', 'bookings', 'directory'].map((p) => api(`/api/${p}`)));
  const detail = h('div#session-detail');
  // Meetings soonest first (upcoming before past ones), rooms by the name people use.
  const now = Date.now();
  const ahead = (m) => Date.parse(m.end) >= now;
  const meetingRows = [...meetings.meetings].sort((a, b) => Number(ahead(b)) - Number(ahead(a)) || (ahead(a) ? 1 : -1) * (Date.parse(a.start) - Date.parse(b.start)))
    .map((m) => ({ ...m, when: span({ start: m.start, end: m.end }), room: m.room ? String(m.room).replace(/^room-/, '') : m.room }));
  main.append(h('div.page-head', {}, h('h2', {}, 'Sessions, meetings & tasks'), h('span.muted', {}, `read-only; times in ${ZONE}`)),
    h('div.card', {}, h('h3', {}, 'Coordination sessions'), sessions.sessions.length ? h('ul.convs.fit', {}, sessions.sessions.map((s) => h('li', { onclick: () => void sessionDetail(detail, s.id) }, h('span.mono', {}, s.id), ' ', h('span.muted.small', {}, `${s.status} v${s.state_version} ${s.title ?? ''}`)))) : h('p.muted', {}, 'none yet'), detail),
    h('div.two', {},
      h('div.card', {}, h('h3', {}, 'Meetings'), rowsTable(meetingRows, ['title', 'when', 'organizer', 'status', 'room'])),
      h('div.card', {}, h('h3', {}, 'Tasks'), rowsTable(tasks.tasks, ['title', 'assignee', 'deadline', 'status', 'progress']))),
    h('div.card.spaced', {}, h('h3', {}, 'Calendar bookings'), rowsTable(bookings.bookings, ['person', 'thread_id', 'status', 'requester', 'slot', 'updated'])),
    h('div.card', {}, h('h3', {}, 'Directory (DF)'), rowsTable(dir.registrations.map((r) => ({ name: r.profile?.name, role: r.profile?.role, jid: r.jid, skills: (r.profile?.skills ?? []).join(', '), last_seen: new Date(r.last_seen).toLocaleTimeString() })))));
  return {};
}
