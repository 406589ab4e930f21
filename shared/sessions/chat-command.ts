// A person's `session …` chat line (docs/sessions.md): recognised by the Coordinator, which
// forwards it to the sessions agent (SESSION_CHAT), and carried out there (agents/sessions/chat.ts).
// Commands: session start TITLE | session | session add TEXT | session done N | session close | session delete.

export type ChatCommand =
  | { op: 'start'; title: string } | { op: 'show' } | { op: 'add'; text: string } | { op: 'done'; step: string }
  | { op: 'close' } | { op: 'delete' }
  /** A command without what it needs ("session add" alone): the person is told what to say. */
  | { op: 'usage'; detail: string };

const COMMAND = /^\s*session(?:\s+(start|new|show|add|done|close|delete)\b\s*([\s\S]*))?\s*$/i;

export function parseSessionCommand(text: string): ChatCommand | undefined {
  const m = COMMAND.exec(text);
  if (!m) return undefined;
  const arg = (m[2] ?? '').trim();
  switch ((m[1] ?? 'show').toLowerCase()) {
    case 'start': case 'new': return { op: 'start', title: (arg || 'Plan').slice(0, 200) };
    case 'add': return arg ? { op: 'add', text: arg.slice(0, 2000) } : { op: 'usage', detail: 'What is the step? Say e.g. "session add book the train".' };
    case 'done': return arg ? { op: 'done', step: arg.replace(/^#/, '') } : { op: 'usage', detail: 'Which step is done? Say e.g. "session done 1" ("session" shows the steps).' };
    case 'close': return { op: 'close' };
    case 'delete': return { op: 'delete' };
    default: return { op: 'show' };
  }
}
