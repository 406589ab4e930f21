// Agents: a live graph of who talks to whom (edges weighted by the last minute's traffic), each
// agent's state, skills and load, and spawn/stop. Refreshes on agent events and every 2 s.
import { api, h, shortJid, toast } from '../app.js';

const NS = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs = {}, ...kids) => {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...kids);
  return el;
};
const stateClass = (a) => (a.supervisor.status === 'ready' || a.presence !== 'offline' ? (a.presence === 'offline' ? 'warn' : 'ok') : a.supervisor.status === 'stopped' ? 'off' : 'warn');

/**
 * Columns in the order a question flows, each group of agents a column (several when it is
 * tall): who talks to whom reads left to right, and no label lands on another (an ellipse of 18
 * agents put Sessions' label on calendar-alice's). A group too large to draw shows "+N more".
 */
const GROUPS = [
  ['People', (a) => a.role === 'presenter'],
  ['Coordination', (a) => a.role === 'coordinator' || a.role === 'sessions'],
  ['Directory & facts', (a) => a.role === 'registry' || a.role === 'kb'],
  ['Specialists', (a) => a.name.startsWith('specialist-') || a.name.startsWith('vm-')],
  ['Calendars', (a) => a.role === 'calendar'],
  ['Rooms', (a) => a.role === 'room' || a.role === 'room host'],
  ['Other', () => true],
];
const ROW = 56; // vertical room per node: circle, label and a gap
const MAX_SUBCOLUMNS = 3;

function layout(agents, H) {
  const perColumn = Math.max(1, Math.floor((H - 40) / ROW));
  const left = new Set(agents);
  const columns = []; // [{ title, names, more }]
  for (const [title, test] of GROUPS) {
    // A host before what it hosts (rooms before room-atlas …), then by name.
    const members = [...left].filter(test).sort((a, b) => Number(b.role.endsWith('host')) - Number(a.role.endsWith('host')) || a.name.localeCompare(b.name));
    members.forEach((a) => left.delete(a));
    if (members.length === 0) continue;
    const room = perColumn * MAX_SUBCOLUMNS;
    const shown = members.length > room ? members.slice(0, room - 1) : members;
    const more = members.length - shown.length;
    for (let i = 0; i < shown.length || (more && i === shown.length); i += perColumn) {
      columns.push({ title: i === 0 ? title : '', agents: shown.slice(i, i + perColumn), more: i + perColumn >= shown.length ? more : 0 });
    }
  }
  return { columns, perColumn };
}

function graph(body) {
  const W = 1000, H = 380;
  const { columns } = layout(body.agents, H);
  const pos = new Map();
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'graph', role: 'img', 'aria-label': 'agents and their traffic' });
  g.append(svg('defs', {}, svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto' }, svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#7c8aa0' }))));
  const step = W / columns.length;
  columns.forEach((c, i) => {
    const x = step * (i + 0.5);
    const slots = c.agents.length + (c.more ? 1 : 0);
    const top = 40 + (H - 40 - slots * ROW) / 2;
    c.agents.forEach((a, j) => pos.set(a.name, [x, top + ROW * (j + 0.5) - 8]));
    if (c.title) g.append(svg('text', { x, y: 18, 'text-anchor': 'middle', class: 'group' }, c.title));
    if (c.more) g.append(svg('text', { x, y: top + ROW * (slots - 0.5), 'text-anchor': 'middle', class: 'more' }, `+${c.more} more`));
  });
  const max = Math.max(1, ...body.edges.map((e) => e.count));
  for (const e of body.edges) {
    const from = pos.get(shortJid(e.from)), to = pos.get(shortJid(e.to));
    if (!from || !to) continue;
    const len = Math.hypot(to[0] - from[0], to[1] - from[1]) || 1;
    const trim = 24 / len; // stop at the target's rim so the arrowhead shows
    g.append(svg('line', { x1: from[0], y1: from[1], x2: to[0] - (to[0] - from[0]) * trim, y2: to[1] - (to[1] - from[1]) * trim, class: 'edge', 'stroke-width': 1 + (5 * e.count) / max, 'marker-end': 'url(#arrow)' }, svg('title', {}, `${shortJid(e.from)} → ${shortJid(e.to)}: ${e.count} in the last minute`)));
  }
  for (const a of body.agents) {
    if (!pos.has(a.name)) continue;
    const [x, y] = pos.get(a.name);
    const load = a.load.in_per_min + a.load.out_per_min;
    g.append(svg('g', { class: `node ${stateClass(a)}`, transform: `translate(${x},${y})` },
      svg('circle', { r: 12 + Math.min(8, Math.sqrt(load) / 2) }),
      svg('text', { y: 32, 'text-anchor': 'middle' }, a.name.length > 18 ? `${a.name.slice(0, 17)}…` : a.name),
      svg('title', {}, `${a.name} (${a.role}): ${a.supervisor.status}, ${a.presence}; ${a.load.in_per_min} in / ${a.load.out_per_min} out per minute`)));
  }
  return g;
}

function table(body, refresh) {
  const rows = body.agents.map((a) => h('tr', { dataset: { agent: a.name, supervised: a.supervisor.name ?? '' } },
    h('td', {}, h('span.dot.' + stateClass(a)), ' ', h('strong', {}, a.name), h('div.muted.small', {}, a.jid)),
    h('td', {}, a.role),
    h('td', {}, h('span.badge.' + (a.supervisor.status === 'ready' ? 'ok' : a.supervisor.status === 'stopped' ? 'off' : 'warn'), {}, a.supervisor.status), a.supervisor.restarts ? h('span.muted.small', {}, ` ↻${a.supervisor.restarts}`) : ''),
    h('td', {}, h('span.badge.' + (a.presence === 'offline' ? 'off' : 'ok'), {}, a.presence), a.node ? h('div.muted.small', { title: 'the ejabberd node of its session' }, a.node) : ''),
    h('td', {}, a.df.registered ? h('span.badge.' + (a.df.lease_left_ms > 0 ? 'ok' : 'error'), { title: `registered; heard ${Math.round(a.df.last_seen_ms_ago / 1000)} s ago` }, `lease ${Math.round(a.df.lease_left_ms / 1000)} s`) : h('span.muted', {}, '—')),
    h('td.skills', {}, a.skills.length ? a.skills.map((s) => h('span.chip', {}, s)) : h('span.muted', {}, '—')),
    h('td.num', {}, `${a.load.in_per_min} / ${a.load.out_per_min}`),
    h('td', {}, a.supervisor.kind && a.supervisor.status !== 'stopped'
      ? h('button.small.danger', { onclick: async (e) => {
        e.target.disabled = true;
        try {
          await api(`/api/agents/${encodeURIComponent(a.supervisor.name)}/stop`, { method: 'POST' });
          toast(`${a.name} stopped`);
        } catch (err) {
          toast(err.message, 'error');
        }
        refresh();
      } }, 'Stop') : '')));
  return h('table.grid', {}, h('thead', {}, h('tr', {}, ['Agent', 'Role', 'Supervisor', 'Presence', 'Directory', 'Skills', 'in / out per min', ''].map((t) => h('th', {}, t)))), h('tbody', {}, rows));
}

function spawnForm(refresh) {
  const name = h('input', { name: 'name', placeholder: 'name (account specialist-NAME)', required: true, pattern: '[a-z0-9][a-z0-9_-]{0,39}' });
  const role = h('input', { name: 'role', placeholder: 'role (optional)' });
  const skills = h('input', { name: 'skills', placeholder: 'skills, comma separated (optional)' });
  const button = h('button.primary', { type: 'submit' }, 'Spawn specialist');
  return h('form.inline#spawn', { onsubmit: async (e) => {
    e.preventDefault();
    button.disabled = true;
    button.textContent = 'Spawning…';
    try {
      const r = await api('/api/agents/spawn', { method: 'POST', body: { name: name.value.trim(), ...(role.value.trim() ? { role: role.value.trim() } : {}), skills: skills.value.split(',').map((s) => s.trim()).filter(Boolean) } });
      toast(`${r.agent.name} registered in ${r.ready_ms} ms`);
      name.value = '';
    } catch (err) {
      toast(err.message, 'error');
    }
    button.disabled = false;
    button.textContent = 'Spawn specialist';
    refresh();
  } }, name, role, skills, button);
}

export async function agentsPage(main) {
  const graphBox = h('div.card.graph-card');
  const tableBox = h('div.card');
  const summary = h('span.muted');
  main.append(h('div.page-head', {}, h('h2', {}, 'Agents'), summary), graphBox, h('div.card', {}, h('h3', {}, 'Spawn'), spawnForm(() => refresh())), tableBox);
  let busy = false;
  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      const body = await api('/api/agents');
      graphBox.replaceChildren(graph(body));
      tableBox.replaceChildren(table(body, refresh));
      const up = body.agents.filter((a) => a.presence !== 'offline').length;
      summary.textContent = `${body.agents.length} agents, ${up} online${body.supervisor ? '' : ' — no supervisor running'}`;
    } catch (err) {
      tableBox.replaceChildren(h('p.error', {}, err.message));
    } finally {
      busy = false;
    }
  }
  await refresh();
  const timer = setInterval(refresh, 2000);
  return { leave: () => clearInterval(timer) };
}
