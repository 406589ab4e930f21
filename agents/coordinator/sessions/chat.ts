// A person's chat conversation as a Coordination Session (docs/sessions.md). People do not sign:
// the Presenter, which has a DID, convenes the session on the person's behalf. Its USER_MSG is a
// signed envelope, so the verified sender_did (the Presenter's) is the convener, the person's JID
// (content.user) is recorded as on_behalf_of, and the session id is the chat's conversation_id.
// Only that person's lines act on it. Commands: session start TITLE | session | session add TEXT |
// session done N | session close | session delete.
import type { Envelope } from '../../../shared/acl/index.js';
import type { PlanSessionState } from '../../../shared/contracts/index.js';
import type { Identity } from '../../../shared/runtime/index.js';
import { presenterReply } from '../envelopes.js';
import type { Outcome } from './outcome.js';
import { PLAN_SCHEMA } from './schemas.js';
import type { SessionService } from './service.js';

export type ChatCommand =
  | { op: 'start'; title: string } | { op: 'show' } | { op: 'add'; text: string } | { op: 'done'; step: string }
  | { op: 'close' } | { op: 'delete' };

const COMMAND = /^\s*session(?:\s+(start|new|show|add|done|close|delete)\b\s*([\s\S]*))?\s*$/i;

export function parseSessionCommand(text: string): ChatCommand | undefined {
  const m = COMMAND.exec(text);
  if (!m) return undefined;
  const arg = (m[2] ?? '').trim();
  switch ((m[1] ?? 'show').toLowerCase()) {
    case 'start': case 'new': return { op: 'start', title: (arg || 'Plan').slice(0, 200) };
    case 'add': return arg ? { op: 'add', text: arg.slice(0, 2000) } : { op: 'show' };
    case 'done': return arg ? { op: 'done', step: arg.replace(/^#/, '') } : { op: 'show' };
    case 'close': return { op: 'close' };
    case 'delete': return { op: 'delete' };
    default: return { op: 'show' };
  }
}

function render(o: Outcome, what: string): string {
  // The code (o.content.reason) travels in rich for the trace; the person reads the sentence (issue 16).
  if (o.performative === 'REFUSE') return `Session: ${what} refused: ${o.content.detail}`;
  const c = o.content;
  if (c.type === 'SESSION_INFO') {
    const st = c.state as unknown as PlanSessionState;
    const steps = (st.steps ?? []).map((s) => `${s.id}. [${s.status}] ${s.text}`);
    return [`Session "${st.title}" (${String(c.status)}, version ${String(c.state_version)}, id ${String(c.session_id)})`, ...(steps.length ? steps : ['No steps yet: "session add <text>".'])].join('\n');
  }
  const head = `Session ${what}: ${String(c.status)}, version ${String(c.state_version)}, turn ${String(c.turn_id)}.`;
  // The first answer says what comes next; later ones stay one line.
  return what === 'start' ? `${head}\nAdd steps with "session add <text>", tick one off with "session done <n>", see it with "session", end it with "session close".` : head;
}

/** Runs one chat command for the person of `request` and answers the Presenter. */
export function chatCommand(svc: SessionService, request: Envelope, from: Identity, cmd: ChatCommand): Envelope {
  const user = typeof request.content.user === 'string' ? request.content.user : undefined;
  const base = { sessionId: request.conversation_id, did: request.sender_did, name: from.name, role: from.role };
  const run = (kind: string, content: Record<string, unknown>) => svc.handle({ ...base, kind, content: { type: kind, ...content } });
  const reply = (o: Outcome, what: string) => presenterReply(request, render(o, what), { kind: 'session', ...o.content });
  if (cmd.op === 'start') {
    const state: PlanSessionState = { title: cmd.title, steps: [] };
    return reply(run('SESSION_CREATE', { state_schema: PLAN_SCHEMA, state, title: cmd.title, ...(user ? { on_behalf_of: user } : {}) }), 'start');
  }
  const s = svc.store.get(request.conversation_id);
  if (!s || !user || s.on_behalf_of !== user) {
    return presenterReply(request, 'This conversation is not one of your sessions. Say "session start <title>" to make it one.', { kind: 'session', status: 'none' });
  }
  const st = s.state as unknown as PlanSessionState;
  const afterUpdate = (u: Outcome, what: string) => reply(u.performative === 'REFUSE' ? u : run('SESSION_STATE', {}), what);
  switch (cmd.op) {
    case 'show': return reply(run('SESSION_STATE', {}), 'show');
    case 'add': {
      const steps = [...st.steps, { id: String(st.steps.length + 1), text: cmd.text, status: 'todo' as const }];
      return afterUpdate(run('SESSION_UPDATE', { expected_version: s.state_version, state: { ...st, steps } }), 'add');
    }
    case 'done': {
      if (!st.steps.some((x) => x.id === cmd.step)) return presenterReply(request, `There is no step ${cmd.step}.`, { kind: 'session', status: 'no-such-step' });
      const steps = st.steps.map((x) => (x.id === cmd.step ? { ...x, status: 'done' as const } : x));
      return afterUpdate(run('SESSION_UPDATE', { expected_version: s.state_version, state: { ...st, steps } }), 'done');
    }
    case 'close': return reply(run('SESSION_CLOSE', { reason: 'closed from chat' }), 'close');
    case 'delete': return reply(run('SESSION_DELETE', {}), 'delete');
  }
}
