// The dashboard shell: hash routing between pages, the JSON API helper, one shared EventSource
// (/api/events) that every page subscribes to, and small DOM helpers. Plain ES modules, no build.
import { agentsPage } from './pages/agents.js';
import { chatPage } from './pages/chat.js';
import { dataPage } from './pages/data.js';
import { skillsPage } from './pages/skills.js';
import { snifferPage } from './pages/sniffer.js';

const pages = { agents: agentsPage, sniffer: snifferPage, skills: skillsPage, chat: chatPage, data: dataPage };

/** fetch + JSON; throws Error(detail) on an error answer, goes to the login page on 401. */
export async function api(path, { method = 'GET', body } = {}) {
  const res = await fetch(path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  if (res.status === 401) {
    location.href = '/login';
    throw new Error('logged out');
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(data.detail ?? `${res.status}`), { code: data.error, status: res.status });
  return data;
}

/** h('div.card#id', {onclick}, children…): a tiny element builder (classes before the #id). */
export function h(tag, attrs = {}, ...children) {
  const [head, id] = tag.split('#');
  const [name, ...classes] = head.split('.');
  const el = document.createElement(name);
  if (classes.length) el.className = classes.join(' ');
  if (id) el.id = id;
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k in el && k !== 'list' && k !== 'form') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

export function toast(text, kind = 'ok') {
  const t = document.getElementById('toast');
  t.textContent = text;
  t.className = `toast show ${kind}`;
  clearTimeout(t.timer);
  t.timer = setTimeout(() => (t.className = 'toast'), 4000);
}

// The big vendor bundles (Mermaid ≈ 3 MB, xmpp.js) load when a page first needs them, not with
// every page: a watching browser then parses only the console's own code.
const scripts = new Map();
export function loadScript(src) {
  if (!scripts.has(src)) {
    scripts.set(src, new Promise((resolve, reject) => {
      const el = document.createElement('script');
      el.src = src;
      el.onload = () => resolve();
      el.onerror = () => (scripts.delete(src), reject(new Error(`could not load ${src}`)));
      document.head.append(el);
    }));
  }
  return scripts.get(src);
}

export const shortJid = (jid) => (jid ?? '?').split('/')[0].split('@')[0];
const two = (n) => String(n).padStart(2, '0');
/** HH:MM:SS.mmm in local time (the sniffer formats a few rows a second; no Intl formatter per row). */
export const fmtTime = (ms) => {
  const d = new Date(ms);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
};

// One EventSource for the whole page: pages subscribe while they are shown.
// Envelopes only: the agents page polls /api/agents itself, so the console need not ask ejabberd
// for presence every second on behalf of a browser that is watching the sniffer.
const listeners = { envelopes: new Set(), skipped: new Set() };
export function onEvent(kind, fn) {
  listeners[kind].add(fn);
  return () => listeners[kind].delete(fn);
}
function connectEvents() {
  const es = new EventSource('/api/events?topics=envelopes');
  const live = document.getElementById('live');
  es.onopen = () => (live.className = 'live on');
  es.onerror = () => (live.className = 'live off');
  for (const kind of Object.keys(listeners)) es.addEventListener(kind, (e) => {
    const data = JSON.parse(e.data);
    for (const fn of listeners[kind]) fn(data);
  });
}

let current;
let routed = 0;
async function route() {
  const [, name = 'agents', ...rest] = location.hash.split('/');
  const page = pages[name] ?? pages.agents;
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.dataset.page === name);
  current?.leave?.();
  current = undefined;
  const main = document.getElementById('main');
  main.replaceChildren();
  main.dataset.page = name;
  const mine = ++routed;
  const shown = await page(main, rest.map(decodeURIComponent));
  // Left while it was loading: stop it now, or its timers (the agents page polls) run on unseen.
  if (mine !== routed) shown?.leave?.();
  else current = shown;
}

document.getElementById('logout').addEventListener('click', async () => {
  await fetch('/api/logout', { method: 'POST' });
  location.href = '/login';
});
window.addEventListener('hashchange', route);
connectEvents();
route();
