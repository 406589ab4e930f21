// Sniffer: the live message flow (SSE), filterable by conversation, agent and performative; a
// conversation opens with its sequence diagram (Mermaid, rendered locally), every envelope's
// fields, its signature check and the time of every hop.
import { api, fmtTime, h, loadScript, onEvent, shortJid } from '../app.js';

/** "3.2 ms", "4.1 s", "6 min 5 s", "2 h 3 min": a conversation's length as a person reads it. */
function duration(ms) {
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/**
 * Rows on the page while the flow is live: the ≈ 19 that show and a few. Each batch repaints every
 * row it moves down, and a watching Chromium slows the agents beside it even at SCHED_IDLE (its
 * renderer took 1.1 ms of CPU per conversation with 100 rows and 20 per batch, 0.45 with 25 and 8;
 * half of what is left is the flow, issue 13, docs/console.md). Newest at the bottom instead
 * (append, follow the scroll) cost as much. Paused, the page shows every row kept (KEPT_ROWS).
 */
const LIVE_ROWS = 22;
const KEPT_ROWS = 200;
/** Per batch: a person reads a few rows a second; every row stays in its conversation and /api/messages. */
const RENDER_ROWS = 6;
/** Conversations listed: the newest; older ones are in Data and /api/conversations. */
const MAX_CONVERSATIONS = 30;
let mermaidReady = false;
let renderSeq = 0;

async function ensureMermaid() {
  await loadScript('/vendor/mermaid.min.js');
  if (mermaidReady) return;
  window.mermaid.initialize({ startOnLoad: false, theme: 'neutral', securityLevel: 'strict', sequence: { showSequenceNumbers: true, mirrorActors: false } });
  mermaidReady = true;
}

const perfClass = (p) => `perf perf-${(p ?? 'note').toLowerCase().replace(/[^a-z-]/g, '')}`;

function flowRow(r, open) {
  return h('tr', { dataset: { conversation: r.conversation_id ?? '' }, onclick: () => r.conversation_id && open(r.conversation_id) },
    h('td.mono.small', {}, fmtTime(r.at)),
    h('td', {}, r.agent),
    h('td', {}, r.direction === 'in' ? '⇐' : r.direction === 'out' ? '⇒' : '•'),
    h('td', {}, r.direction === 'note' ? h('span.muted', {}, 'note') : `${shortJid(r.sender)} → ${shortJid(r.receiver)}`),
    h('td', {}, h('span', { className: perfClass(r.performative) }, r.performative ?? r.decision.split(':')[0])),
    // The conversation is the row's title (and a click opens it): a column of ids left no room for who spoke to whom.
    h('td.small', { title: r.conversation_id ?? '' }, r.content_type ?? ''));
}

async function detail(box, id) {
  box.replaceChildren(h('p.muted', {}, `Loading ${id}…`));
  let c;
  try {
    c = await api(`/api/conversations/${encodeURIComponent(id)}`);
  } catch (err) {
    box.replaceChildren(h('p.error', {}, err.message));
    return;
  }
  const diagram = h('div.diagram#diagram');
  const ok = c.analysis.violations.length === 0;
  const envelopeBox = h('pre.envelope', {}, 'Click a hop to see its envelope.');
  const hops = h('table.grid.hops', {}, h('thead', {}, h('tr', {}, ['#', 'sent', 'from → to', 'performative', 'content', 'transit', 'signature'].map((t) => h('th', {}, t)))),
    h('tbody', {}, c.hops.map((m, i) => h('tr', { onclick: () => (envelopeBox.textContent = JSON.stringify(m.envelope, null, 2)) },
      h('td.num', {}, i + 1),
      h('td.mono.small', {}, m.sent_at ? `+${(m.sent_at - c.analysis.t0).toFixed(1)} ms` : '—'),
      h('td', {}, `${shortJid(m.from)} → ${shortJid(m.to)}`),
      h('td', {}, h('span', { className: perfClass(m.performative) }, m.performative)),
      h('td.small', {}, m.content_type ?? ''),
      h('td.num', {}, m.transit_ms === null ? '—' : `${m.transit_ms.toFixed(2)} ms`),
      h('td', {}, m.signature.ok ? h('span.badge.ok', { title: m.signature.did }, '✔ valid') : h('span.badge.error', { title: m.signature.detail ?? '' }, `✘ ${m.signature.code}`))))));
  box.replaceChildren(
    h('div.page-head', {}, h('h3', {}, 'Conversation ', h('code', {}, id)), h('span.muted', {}, `${c.hops.length} ${c.hops.length === 1 ? 'hop' : 'hops'}, ${duration(c.analysis.durationMs)}`)),
    h('p', {}, ok ? h('span.badge.ok', {}, '✔ all trace invariants hold') : c.analysis.violations.map((v) => h('div.badge.error', {}, `${v.invariant}: ${v.detail}`))),
    diagram, hops, h('h4', {}, 'Envelope'), envelopeBox,
    h('details', {}, h('summary', {}, 'Mermaid source'), h('pre.mono.small', {}, c.mermaid)));
  try {
    await ensureMermaid();
    const { svg } = await window.mermaid.render(`seq${++renderSeq}`, c.mermaid);
    diagram.innerHTML = svg; // mermaid's own output (securityLevel strict sanitises labels)
    diagram.dataset.rendered = 'true';
  } catch (err) {
    diagram.replaceChildren(h('p.error', {}, `diagram: ${err.message}`));
  }
}

export async function snifferPage(main, [openId]) {
  const fConv = h('input', { placeholder: 'conversation', id: 'f-conversation' });
  const fAgent = h('input', { placeholder: 'agent', id: 'f-agent' });
  const fPerf = h('input', { placeholder: 'performative', id: 'f-performative' });
  const flow = h('tbody#flow');
  // Every agent's HEARTBEAT to the DF (a lease renewal every few seconds) would fill the flow: shown on demand.
  const fBeats = h('input', { type: 'checkbox', id: 'f-heartbeats' });
  const filters = h('div.filters', {}, fConv, fAgent, fPerf, h('label.small.check', { title: 'the DF lease renewals of every agent' }, fBeats, ' heartbeats'));
  const skippedNote = h('p.muted.small#skipped', {}, '');
  // An idle system sends nothing but heartbeats: say so rather than show an empty table.
  const emptyNote = h('p.muted.small#flow-empty', {}, 'Nothing to show yet: no envelope matches (the heartbeats show when ticked).');
  const showEmpty = () => (emptyNote.hidden = flow.children.length > 0);
  const convList = h('ul.convs#conversations');
  // Registrations, DF changes and lease renewals outnumber people's questions on a quiet system:
  // the list shows the conversations a person took part in unless this is unticked.
  const fPeople = h('input', { type: 'checkbox', id: 'f-people', checked: true });
  const peopleOnly = h('label.small.check', { title: 'only conversations a person took part in (leave out registrations, DF changes, lease renewals)' }, fPeople, ' people only');
  const detailBox = h('div.card.detail#detail', {}, h('p.muted', {}, 'Pick a conversation to see its sequence diagram.'));
  const open = (id) => (location.hash = `#/sniffer/${encodeURIComponent(id)}`);
  const matches = (r) => (fBeats.checked || r.content_type !== 'HEARTBEAT') && (!fConv.value || (r.conversation_id ?? '').includes(fConv.value.trim())) && (!fAgent.value || r.agent.includes(fAgent.value.trim()) || (r.sender ?? '').includes(fAgent.value.trim()) || (r.receiver ?? '').includes(fAgent.value.trim())) && (!fPerf.value || (r.performative ?? '').toLowerCase() === fPerf.value.trim().toLowerCase());
  const known = new Map();
  const convItem = (c) => h('li', { dataset: { id: c.id }, className: c.id === openId ? 'active' : '', onclick: () => open(c.id) },
    h('span.mono', {}, c.id.replace(/^sess-/, '').slice(0, 14)), ' ',
    h('span.muted.small', {}, c.person ? shortJid(c.person) : c.agents?.join(', ') ?? ''), ' ',
    c.outcome ? h('span', { className: perfClass(c.outcome) }, c.outcome) : '',
    h('span.muted.small.right', {}, c.hops !== undefined ? `${c.hops} ${c.hops === 1 ? 'hop' : 'hops'} · ${duration(c.duration_ms)}` : 'live…'));
  /** A person's name from a USER_MSG row's envelope (the Presenter's content.user), else null. */
  const personOf = (r) => {
    try {
      return JSON.parse(r.body ?? 'null')?.content?.user ?? null;
    } catch {
      return null;
    }
  };
  const addConversation = (c, front) => {
    if (known.has(c.id)) return;
    const li = convItem(c);
    known.set(c.id, li);
    if (front) convList.prepend(li);
    else convList.append(li);
  };
  main.append(h('div.page-head', {}, h('h2', {}, 'Sniffer'), h('span.muted', {}, 'every envelope every agent sends or receives, live')),
    h('div.sniffer', {},
      h('div.col', {},
        h('div.card', {}, h('div.card-head', {}, h('h3', {}, 'Conversations'), peopleOnly), convList),
        h('div.card', {}, h('h3', {}, 'Live flow'), filters, skippedNote, emptyNote,
          h('div.scroll', {}, h('table.grid.flow', {}, h('thead', {}, h('tr', {}, ['time', 'agent', '', 'from → to', 'performative', 'content'].map((t) => h('th', {}, t)))), flow)))),
      detailBox));
  const loadConversations = async () => {
    const { conversations } = await api(`/api/conversations?limit=${MAX_CONVERSATIONS}${fPeople.checked ? '&people=true' : ''}`);
    known.clear();
    convList.replaceChildren();
    for (const c of conversations) addConversation(c, false);
  };
  await loadConversations();
  fPeople.addEventListener('change', loadConversations);
  // The flow starts with the last rows already recorded, then follows live.
  const recent = await api('/api/messages?order=desc&limit=200&exclude_content=HEARTBEAT');
  const allRows = [];
  // The console sends at most one batch of about 20 rows per 600 ms (shared/console/events.ts);
  // each is drawn at the next frame (none while the tab is hidden), the newest LIVE_ROWS kept on the page.
  let pending = [];
  /** USER_MSG rows not yet listed: a person's conversation starts with one. */
  let questions = [];
  let frame;
  // Rows the stream counted but did not send, and rows sent but not drawn (RENDER_ROWS per batch).
  let skippedTotal = 0;
  const countSkipped = (rows) => {
    skippedTotal += rows;
    skippedNote.textContent = `${skippedTotal.toLocaleString()} rows went by too fast to show live; open a conversation to see all of its envelopes.`;
  };
  let paused = false;
  const render = (limit = RENDER_ROWS) => {
    frame = undefined;
    if (paused) return;
    const rows = pending;
    pending = [];
    const matching = rows.filter(matches);
    const shownRows = matching.slice(-limit);
    if (limit === RENDER_ROWS && matching.length > shownRows.length) countSkipped(matching.length - shownRows.length);
    // Only the conversations of the rows drawn: each list item is work for the renderer too.
    // People only: every question that came (few, one per conversation), drawn or not.
    const opened = fPeople.checked ? questions : shownRows;
    questions = [];
    for (const r of opened) if (r.conversation_id) addConversation({ id: r.conversation_id, agents: [r.agent], person: r.content_type === 'USER_MSG' ? personOf(r) : null }, true);
    while (convList.children.length > MAX_CONVERSATIONS) {
      known.delete(convList.lastChild.dataset.id);
      convList.lastChild.remove();
    }
    flow.prepend(...shownRows.reverse().map((r) => flowRow(r, open)));
    while (flow.children.length > LIVE_ROWS) flow.lastChild.remove();
    showEmpty();
  };
  const push = (rows) => {
    for (const r of rows) if (r.content_type === 'USER_MSG') questions.push(r);
    if (questions.length > MAX_CONVERSATIONS) questions.splice(0, questions.length - MAX_CONVERSATIONS);
    allRows.push(...rows);
    if (allRows.length > KEPT_ROWS) allRows.splice(0, allRows.length - KEPT_ROWS);
    if (paused) {
      missed += rows.length;
      pauseBtn.textContent = `Resume (${missed.toLocaleString()} new)`;
      return;
    }
    pending.push(...rows);
    if (pending.length > LIVE_ROWS) pending.splice(0, pending.length - LIVE_ROWS);
    frame ??= window.requestAnimationFrame(() => render());
  };
  const refilter = () => {
    flow.replaceChildren(...allRows.filter(matches).reverse().slice(0, paused ? KEPT_ROWS : LIVE_ROWS).map((r) => flowRow(r, open)));
    showEmpty();
  };
  // Paused: the flow stands still with every kept row; resumed: the newest again, live.
  let missed = 0;
  const pauseBtn = h('button.small#pause', { type: 'button', onclick: () => {
    paused = !paused;
    missed = 0;
    pending = [];
    pauseBtn.textContent = paused ? 'Resume' : 'Pause';
    refilter();
  } }, 'Pause');
  filters.append(pauseBtn);
  push(recent.messages.reverse());
  window.cancelAnimationFrame(frame);
  render(LIVE_ROWS); // the history at once; live rows as they come
  for (const f of [fConv, fAgent, fPerf]) f.addEventListener('input', refilter);
  fBeats.addEventListener('change', refilter);
  const off = onEvent('envelopes', push);
  // The stream carries a few hundred rows a second at most (shared/console/events.ts); the rest is
  // counted here, and every row stays in the conversations and /api/messages.
  // Rows the stream left out may hold a question: the list is read again, at most every 5 s.
  let reloadAt = 0;
  const offSkipped = onEvent('skipped', ({ rows }) => {
    countSkipped(rows);
    if (fPeople.checked && Date.now() > reloadAt) {
      reloadAt = Date.now() + 5000;
      loadConversations().catch(() => undefined);
    }
  });
  if (openId) await detail(detailBox, openId);
  return { leave: () => (off(), offSkipped(), window.cancelAnimationFrame(frame)) };
}
