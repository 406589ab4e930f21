// Ad-hoc commands (XEP-0050) with data forms (XEP-0004) for the structured actions (issue 16):
// clients that support them (Gajim, Conversations, profanity `/cmd`) show real forms instead of
// a command line to remember. A submitted form becomes the plain-word chat command it stands for
// and goes the same way as a typed line (ChatDesk: allow-list, USER_MSG to the Coordinator), so
// there is one behaviour to test and to trust; the answer comes back as the form's note and as a
// chat line. Pure parts (forms, fields → text) are exported for unit tests.
import { randomBytes } from 'node:crypto';
import { xml } from '@xmpp/client';
import type { Element } from '@xmpp/xml';
import { NS_MARKERS, NS_RECEIPTS } from './receipts.js';

export const NS_COMMANDS = 'http://jabber.org/protocol/commands';
export const NS_DATA = 'jabber:x:data';
export const NS_DISCO_INFO = 'http://jabber.org/protocol/disco#info';
export const NS_DISCO_ITEMS = 'http://jabber.org/protocol/disco#items';

type FieldType = 'text-single' | 'list-single' | 'boolean';

interface Field {
  var: string;
  label: string;
  type: FieldType;
  required?: boolean;
  options?: string[];
  value?: string;
  desc?: string;
}

export interface Command {
  node: string;
  name: string;
  instructions: string;
  fields: Field[];
  /** The chat command the submitted values stand for; an Error names what is missing or wrong. */
  toText(values: Record<string, string>): string | Error;
}

const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').trim();
const NAME_LIST = /^[a-z][a-z0-9._-]{0,60}(?:\s*,\s*[a-z][a-z0-9._-]{0,60}\??)*\??$/i;

export const COMMANDS: readonly Command[] = [
  {
    node: 'meet', name: 'Schedule a meeting',
    instructions: 'Who, how long and when: I book the earliest slot all can make and send the invitation.',
    fields: [
      { var: 'with', label: 'With (names, comma-separated; "name?" is optional)', type: 'text-single', required: true },
      { var: 'minutes', label: 'Duration (minutes)', type: 'list-single', options: ['15', '30', '45', '60', '90', '120'], value: '30', required: true },
      { var: 'when', label: 'When (e.g. "tomorrow afternoon", "friday 3pm")', type: 'text-single', value: 'tomorrow', required: true },
      { var: 'room', label: 'Book a room', type: 'boolean', value: 'false' },
    ],
    toText: (v) => {
      const who = oneLine(v.with ?? '');
      if (!NAME_LIST.test(who)) return new Error('"With" needs one or more names, e.g. "bob, carol".');
      const minutes = Number(v.minutes);
      if (!Number.isInteger(minutes) || minutes <= 0 || minutes > 24 * 60) return new Error('Pick a duration.');
      const names = who.split(/\s*,\s*/);
      const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
      return `schedule ${minutes} min with ${list} ${oneLine(v.when ?? '') || 'tomorrow'}${v.room === 'true' || v.room === '1' ? ' in a room' : ''}`;
    },
  },
  {
    node: 'assign', name: 'Assign a task',
    instructions: 'The assignee is told in chat and answers there; you hear each update.',
    fields: [
      { var: 'title', label: 'Task', type: 'text-single', required: true },
      { var: 'to', label: 'Assign to (name)', type: 'text-single', required: true },
      { var: 'by', label: 'Due (e.g. "Friday", "2026-12-18 17:00")', type: 'text-single', value: 'in 7 days' },
    ],
    toText: (v) => {
      const title = oneLine(v.title ?? '').replace(/'/g, '’');
      const to = oneLine(v.to ?? '');
      if (!title) return new Error('Name the task.');
      if (!/^[a-z][a-z0-9._-]{0,60}$/i.test(to)) return new Error('"Assign to" needs one name, e.g. "bob".');
      return `assign '${title.slice(0, 200)}' to ${to} by ${oneLine(v.by ?? '') || 'in 7 days'}`;
    },
  },
  {
    node: 'agenda', name: 'My meetings and tasks',
    instructions: 'The meetings ahead that I booked with you in them, and the open tasks given to you or by you.',
    fields: [{ var: 'show', label: 'Show', type: 'list-single', options: ['meetings and tasks', 'meetings', 'tasks'], value: 'meetings and tasks', required: true }],
    toText: (v) => ({ meetings: 'my meetings', tasks: 'my tasks' } as Record<string, string>)[v.show ?? ''] ?? 'agenda',
  },
  {
    node: 'tz', name: 'Set my time zone',
    instructions: 'Times you write are read, and times I show are given, in this zone.',
    fields: [{ var: 'zone', label: 'Time zone (IANA name, e.g. Europe/Berlin, or UTC)', type: 'text-single', required: true }],
    toText: (v) => {
      const zone = oneLine(v.zone ?? '');
      return /^\S{1,64}$/.test(zone) ? `tz ${zone}` : new Error('Give one zone name, e.g. Europe/Berlin.');
    },
  },
  {
    node: 'session', name: 'Start a session',
    instructions: 'This conversation becomes a coordination session with a shared, versioned plan.',
    fields: [{ var: 'title', label: 'Title', type: 'text-single', required: true }],
    toText: (v) => {
      const title = oneLine(v.title ?? '');
      return title ? `session start ${title.slice(0, 200)}` : new Error('Give the session a title.');
    },
  },
];

function fieldEl(f: Field): Element {
  return xml('field', { var: f.var, type: f.type, label: f.label },
    ...(f.desc ? [xml('desc', {}, f.desc)] : []),
    ...(f.required ? [xml('required')] : []),
    ...(f.options ?? []).map((o) => xml('option', { label: o }, xml('value', {}, o))),
    ...(f.value !== undefined ? [xml('value', {}, f.value)] : []));
}

/** XEP-0004 form for a command (type form, with title and instructions). */
export function formOf(c: Command, error?: string): Element {
  return xml('x', { xmlns: NS_DATA, type: 'form' }, xml('title', {}, c.name), xml('instructions', {}, error ? `${error} ${c.instructions}` : c.instructions), ...c.fields.map(fieldEl));
}

/** The values of a submitted form (XEP-0004 §3.4: type submit); the first value of each field. */
export function valuesOf(x: Element | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of x?.getChildren('field') ?? []) {
    const name = f.attrs.var as string | undefined;
    if (name) out[name] = (f.getChildText('value') ?? '').slice(0, 1000);
  }
  return out;
}

/**
 * Ad-hoc sessions (XEP-0050 §3.3 sessionid) waiting for their form, per requester. Bounded per
 * account (its own oldest form gives way) and in all: when full, a new form is refused, so that
 * one account opening forms in a loop can never close another person's open form.
 */
export class AdhocSessions {
  private readonly open = new Map<string, { node: string; from: string; account: string; at: number }>();
  constructor(private readonly ttlMs = 10 * 60 * 1000, private readonly max = 1000, private readonly perAccount = 8) {}

  /** A new session id, or undefined when every slot is held by forms still open. */
  start(node: string, from: string, now: number): string | undefined {
    const account = from.split('/')[0] ?? from;
    let own = 0;
    let oldestOwn: string | undefined;
    for (const [id, s] of this.open) {
      if (now - s.at > this.ttlMs) this.open.delete(id);
      else if (s.account === account) {
        own += 1;
        oldestOwn ??= id;
      }
    }
    if (own >= this.perAccount && oldestOwn) this.open.delete(oldestOwn);
    else if (this.open.size >= this.max) return undefined;
    const id = randomBytes(12).toString('hex');
    this.open.set(id, { node, from, account, at: now });
    return id;
  }

  /** The session if it exists, belongs to `from` (full JID) and is for `node`; it is then closed. */
  take(id: string, node: string, from: string, now: number): boolean {
    const s = this.open.get(id);
    if (!s || s.node !== node || s.from !== from || now - s.at > this.ttlMs) return false;
    this.open.delete(id);
    return true;
  }

  cancel(id: string, from: string): void {
    if (this.open.get(id)?.from === from) this.open.delete(id);
  }
}

const stanzaError = (type: string, condition: string, text?: string, specific?: string) =>
  xml('error', { type }, xml(condition, { xmlns: 'urn:ietf:params:xml:ns:xmpp-stanzas' }), ...(text ? [xml('text', { xmlns: 'urn:ietf:params:xml:ns:xmpp-stanzas' }, text)] : []),
    ...(specific ? [xml(specific, { xmlns: NS_COMMANDS })] : []));

/** XEP-0050 §3.4 actions; every command here is one form, so there is no next or previous stage. */
const ACTIONS = new Set(['execute', 'complete', 'cancel', 'next', 'prev']);

export interface AdhocDeps {
  /** Our own JID (the disco items' jid). */
  self(): string;
  /** Runs `text` as a chat line from `from` (full JID); resolves with the answer's text, or undefined if none came in time. */
  run(from: string, text: string): Promise<string | undefined>;
  allowed(from: string): boolean;
  now(): number;
}

/** One <command/> request (XEP-0050 §3.2–3.5) → the reply's <command/> child or an error. */
export async function handleCommand(el: Element, from: string, sessions: AdhocSessions, deps: AdhocDeps): Promise<Element> {
  const node = String(el.attrs.node ?? '');
  const action = String(el.attrs.action ?? 'execute');
  const c = COMMANDS.find((x) => x.node === node);
  if (!c) return stanzaError('cancel', 'item-not-found', `no command ${node}`);
  if (!deps.allowed(from)) return stanzaError('auth', 'forbidden', 'this assistant is not available to your account');
  // XEP-0050 §4.6: an action not in the protocol is malformed-action; next/prev, which a one-form command has no use for, bad-action.
  if (!ACTIONS.has(action)) return stanzaError('modify', 'bad-request', `unknown action ${action.slice(0, 40)}`, 'malformed-action');
  if (action === 'next' || action === 'prev') return stanzaError('modify', 'bad-request', `this command is one form: no ${action} stage`, 'bad-action');
  const sid = el.attrs.sessionid as string | undefined;
  const reply = (status: string, ...children: Element[]) => xml('command', { xmlns: NS_COMMANDS, node, status, ...(sid || status === 'executing' ? { sessionid: sid ?? '' } : {}) }, ...children);
  if (action === 'cancel') {
    if (sid) sessions.cancel(sid, from);
    return reply('canceled');
  }
  const submitted = el.getChild('x', NS_DATA);
  if (!sid || submitted?.attrs.type !== 'submit') {
    // First step: the form (a new session).
    const id = sessions.start(node, from, deps.now());
    if (id === undefined) return stanzaError('wait', 'resource-constraint', 'too many forms are open; try again in a few minutes');
    return xml('command', { xmlns: NS_COMMANDS, node, status: 'executing', sessionid: id },
      xml('actions', { execute: 'complete' }, xml('complete')), formOf(c));
  }
  if (!sessions.take(sid, node, from, deps.now())) return stanzaError('modify', 'bad-request', 'unknown or expired session; start the command again');
  const values = valuesOf(submitted);
  const missing = c.fields.filter((f) => f.required && !values[f.var]?.trim()).map((f) => f.label);
  const text = missing.length ? new Error(`Missing: ${missing.join(', ')}.`) : c.toText(values);
  if (text instanceof Error) {
    // Ask again with the same form and what was wrong (a new session id).
    const id = sessions.start(node, from, deps.now());
    if (id === undefined) return stanzaError('wait', 'resource-constraint', 'too many forms are open; try again in a few minutes');
    return xml('command', { xmlns: NS_COMMANDS, node, status: 'executing', sessionid: id },
      xml('actions', { execute: 'complete' }, xml('complete')), formOf(c, text.message), xml('note', { type: 'error' }, text.message));
  }
  const answer = await deps.run(from, text);
  return xml('command', { xmlns: NS_COMMANDS, node, status: 'completed', sessionid: sid },
    xml('note', { type: 'info' }, answer ?? 'Working on it: the answer follows in our chat.'));
}

/** disco#items on the commands node (XEP-0050 §2.2). */
export function commandItems(self: string): Element {
  return xml('query', { xmlns: NS_DISCO_ITEMS, node: NS_COMMANDS }, ...COMMANDS.map((c) => xml('item', { jid: self, node: c.node, name: c.name })));
}

/** disco#info: an automated client that speaks ad-hoc commands (XEP-0050 §2.1), receipts and markers (receipts.ts). */
export function discoInfo(node: string | undefined): Element {
  const c = node ? COMMANDS.find((x) => x.node === node) : undefined;
  if (node && node !== NS_COMMANDS && !c) return stanzaError('cancel', 'item-not-found');
  return xml('query', { xmlns: NS_DISCO_INFO, ...(node ? { node } : {}) },
    xml('identity', c ? { category: 'automation', type: 'command-node', name: c.name } : { category: 'client', type: 'bot', name: 'Parley' }),
    xml('feature', { var: NS_COMMANDS }), xml('feature', { var: NS_DATA }), xml('feature', { var: NS_DISCO_INFO }),
    ...(node ? [] : [xml('feature', { var: NS_RECEIPTS }), xml('feature', { var: NS_MARKERS })]));
}

/** The IQ side of a transport (XmppTransport.onIq). */
export interface IqServer {
  onIq(type: 'get' | 'set', ns: string, name: string, handler: (stanza: Element, child: Element) => Promise<Element | undefined> | Element | undefined): void;
}

/** Answers disco (info, items on the commands node) and the commands themselves. */
export function serveAdhoc(t: IqServer, deps: AdhocDeps): void {
  const sessions = new AdhocSessions();
  t.onIq('set', NS_COMMANDS, 'command', (stanza, el) => handleCommand(el, String(stanza.attrs.from ?? ''), sessions, deps));
  // Items name the full JID that was asked (an IQ to the bare JID is the server's to answer).
  t.onIq('get', NS_DISCO_ITEMS, 'query', (stanza, el) =>
    (el.attrs.node === NS_COMMANDS ? commandItems(String(stanza.attrs.to ?? deps.self())) : xml('query', { xmlns: NS_DISCO_ITEMS, ...(el.attrs.node ? { node: String(el.attrs.node) } : {}) })));
  t.onIq('get', NS_DISCO_INFO, 'query', (_stanza, el) => discoInfo(el.attrs.node as string | undefined));
}
