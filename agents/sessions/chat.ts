// A person's chat conversation as a Coordination Session (docs/sessions.md). People do not sign:
// the Presenter, which has a DID, convenes the session on the person's behalf. The Coordinator
// forwards the person's `session …` line as SESSION_CHAT (only it may send that kind) with the
// person (on_behalf_of) and the verified sender_did of their USER_MSG (the Presenter's), which this
// process accepts only when it is the DID pinned for presenter@<domain>. The session id is the
// chat's conversation_id; only that person's lines act on it; the answer is the text they read.
import type { Envelope } from '../../shared/acl/index.js';
import type { PlanSessionState } from '../../shared/contracts/index.js';
import { type ChatCommand, type Outcome, PLAN_SCHEMA, type SessionService } from '../../shared/sessions/index.js';

/** What the person reads, and `rich` for the trace (SESSION_CHAT_REPLY). */
export interface ChatAnswer {
  text: string;
  rich: Record<string, unknown>;
}

/** `plan`: the session's plan as the command found it (a receipt carries no state). */
function render(o: Outcome, what: string, plan?: PlanSessionState): string {
  // The code (o.content.reason) travels in rich for the trace; the person reads the sentence (issue 16).
  if (o.performative === 'REFUSE') return `Session: ${what} refused: ${o.content.detail}`;
  const c = o.content;
  if (c.type === 'SESSION_INFO') {
    const st = c.state as unknown as PlanSessionState;
    const steps = (st.steps ?? []).map((s) => `${s.id}. [${s.status}] ${s.text}`);
    // The session id (the conversation's) stays in rich: a person has no use for it.
    return [`Session "${st.title}" (${String(c.status)}, version ${String(c.state_version)})`, ...(steps.length ? steps : ['No steps yet: "session add <text>".'])].join('\n');
  }
  // The turn id (OAP RFC 0001) is for the trace, in `rich`; a person has no use for it.
  const st: Partial<PlanSessionState> = plan ?? {};
  const name = typeof st.title === 'string' ? `Session "${st.title}"` : 'The session';
  const steps = st.steps ?? [];
  const done = steps.filter((x) => x.status === 'done').length;
  const head = {
    start: `${name} started (version ${String(c.state_version)}).`,
    close: `${name} closed${steps.length ? `: ${done} of ${steps.length} steps done` : ''} (version ${String(c.state_version)}).`,
    delete: `${name} deleted.`,
  }[what] ?? `${name}: ${String(c.status)}, version ${String(c.state_version)}.`;
  // The first answer says what comes next; later ones stay one line.
  return what === 'start' ? `${head}\nAdd steps with "session add <text>", tick one off with "session done <n>", see it with "session", end it with "session close".` : head;
}

/**
 * Runs one chat command for `person` in conversation `request.conversation_id`, convened by
 * `presenterDid` (undefined when it was not the Presenter's pinned DID: refused MISSING_SIGNATURE).
 */
export function chatCommand(svc: SessionService, request: Envelope, person: string, presenterDid: string | undefined, cmd: ChatCommand): ChatAnswer {
  const base = { sessionId: request.conversation_id, did: presenterDid, name: 'Presenter', role: 'presenter', person };
  const run = (kind: string, content: Record<string, unknown>) => svc.handle({ ...base, kind, content: { type: kind, ...content } });
  const reply = (o: Outcome, what: string, plan?: PlanSessionState): ChatAnswer => ({ text: render(o, what, plan), rich: { kind: 'session', ...o.content } });
  if (cmd.op === 'start') {
    const state: PlanSessionState = { title: cmd.title, steps: [] };
    return reply(run('SESSION_CREATE', { state_schema: PLAN_SCHEMA, state, title: cmd.title, on_behalf_of: person }), 'start', state);
  }
  if (cmd.op === 'usage') return { text: cmd.detail, rich: { kind: 'session', status: 'usage' } };
  const s = svc.store.get(request.conversation_id);
  if (!s || s.on_behalf_of !== person) {
    return { text: 'This conversation is not one of your sessions. Say "session start <title>" to make it one.', rich: { kind: 'session', status: 'none' } };
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
      if (!st.steps.some((x) => x.id === cmd.step)) return { text: `There is no step ${cmd.step}.`, rich: { kind: 'session', status: 'no-such-step' } };
      const steps = st.steps.map((x) => (x.id === cmd.step ? { ...x, status: 'done' as const } : x));
      return afterUpdate(run('SESSION_UPDATE', { expected_version: s.state_version, state: { ...st, steps } }), 'done');
    }
    case 'close': return reply(run('SESSION_CLOSE', { reason: 'closed from chat' }), 'close', st);
    case 'delete': return reply(run('SESSION_DELETE', {}), 'delete', st);
  }
}
