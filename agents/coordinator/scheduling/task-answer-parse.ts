// The assignee's answer to a task (OACoP §4.2 TaskUpdate) as people type it: "accept", "decline,
// no time", "50% draft started", "done", "blocked: …", or a sentence ("I finished the report",
// "mark Q1 report as done"). What follows the status word is the comment; pick-task.ts finds a
// task's title in it.
export type TaskStatus = 'ACCEPTED' | 'DECLINED' | 'IN_PROGRESS' | 'COMPLETED' | 'BLOCKED';
export interface TaskAnswer {
  kind: 'task-answer';
  status: TaskStatus;
  progress?: number;
  comment?: string;
  /** The comment names the task ("I finished the report", "I will do the budget"): none open by that name is said, not the latest taken. */
  names?: true;
}

const TASK_WORDS: Array<[RegExp, TaskStatus]> = [
  [/^(?:i\s+)?(?:accept(?:ed)?|ok(?:ay)?,?\s+i(?:'ll| will) do it|yes,? i(?:'ll| will) do it)\b/i, 'ACCEPTED'],
  [/^(?:i\s+)?(?:decline(?:d)?|reject(?:ed)?|no,? i can'?t)\b/i, 'DECLINED'],
  [/^(?:done|finished|completed?|it'?s done)\b/i, 'COMPLETED'],
  [/^(?:blocked|stuck)\b/i, 'BLOCKED'],
];

/**
 * How people answer a task in a sentence, each rewritten to the word TASK_WORDS reads, the rest
 * (a title, a comment) after it: "I finished the report" → "done the report", "mark Q1 report as
 * done" → "done Q1 report". Only a person with an open task gets a task answer at all
 * (route.ts: none → the line goes on to the experts), and a question is never one.
 */
const TASK_SENTENCES: Array<[RegExp, string, 'names' | 'comment']> = [
  [/^(?:please\s+)?mark\s+(.+?)\s+as\s+(?:done|finished|complete(?:d)?)$/i, 'done $1', 'names'],
  [/^i(?:'ve|\s+have)?\s+(?:just\s+)?(?:finished|completed|done)\b\s*(.*)$/i, 'done $1', 'names'],
  [/^i(?:'m|\s+am)\s+(?:all\s+)?(?:done|finished)(?:\s+with\b)?\s*(.*)$/i, 'done $1', 'names'],
  [/^(?!(?:what|who|when|where|why|how|which|is|are)\b)(.+?)\s+(?:is|are)\s+(?:now\s+)?(?:done|finished|complete(?:d)?)$/i, 'done $1', 'names'],
  // "I'll do it (by Thursday)": what follows "it" is a comment; "I will do the budget",
  // "I'll take on the report": the words name the task (not "I'll take a look").
  [/^(?:sure|ok(?:ay)?|yes)?[,!\s]*i(?:'ll|\s+will)\s+(?:do|take(?:\s+on)?|handle|work\s+on)\s+(?:it|that|this)\b\s*(.*)$/i, 'accept $1', 'comment'],
  [/^(?:sure|ok(?:ay)?|yes)?[,!\s]*i(?:'ll|\s+will)\s+(?:do|handle|work\s+on|take\s+on)\s+(.+)$/i, 'accept $1', 'names'],
  [/^(?:sorry[,!\s]*)?i\s+(?:can(?:'|no)?t|cannot|won'?t)\s+(?:do|take(?:\s+on)?|handle)\s+(?:it|that|this)\b\s*(.*)$/i, 'decline $1', 'comment'],
  [/^(?:sorry[,!\s]*)?i\s+(?:can(?:'|no)?t|cannot|won'?t)\s+(?:do|handle|take\s+on)\s+(.+)$/i, 'decline $1', 'names'],
  [/^i(?:'m|\s+am)\s+(?:stuck|blocked)\b\s*(?:on\s+)?(.*)$/i, 'blocked $1', 'comment'],
];

// "the meeting with alice", "the invitation", "my call tomorrow" (not "the meeting notes", a title).
const ABOUT_A_MEETING = /\b(?:the|that|this|my|our|your|his|her|their|a|an)\s+(?:meeting|appointment|invitation|invite|call|event)s?(?=\s*(?:$|[,.;:!]|(?:with|on|at|from|for|tomorrow|today|tonight|this|next)\b))/i;

/** The assignee's answer to a task: status, progress and a comment; undefined when the line is none. */
export function parseTaskAnswer(text: string): TaskAnswer | undefined {
  const typed = text.trim().replace(/[.!]+$/, '');
  // A question is never a task answer; nor a line about a meeting: "decline the meeting with
  // alice" declined bob's task "budget" with that as its comment (found by hand on npm start).
  if (typed.includes('?') || ABOUT_A_MEETING.test(typed)) return undefined;
  const sentence = TASK_SENTENCES.find(([re]) => re.test(typed));
  const t = sentence ? typed.replace(sentence[0], sentence[1]).trim() : typed;
  const pct = /^(\d{1,3})\s*%\s*[,:;-]?\s*(.*)$/s.exec(t);
  if (pct) {
    const progress = Number(pct[1]);
    if (progress > 100) return undefined;
    const comment = pct[2]?.trim();
    return { kind: 'task-answer', status: progress === 100 ? 'COMPLETED' : 'IN_PROGRESS', progress, ...(comment ? { comment } : {}) };
  }
  for (const [re, status] of TASK_WORDS) {
    const m = re.exec(t);
    if (!m) continue;
    const comment = t.slice(m[0].length).replace(/^\s*[,:;-]\s*/, '').trim();
    const names = sentence?.[2] === 'names' && comment ? { names: true as const } : {};
    return { kind: 'task-answer', status, ...(status === 'COMPLETED' ? { progress: 100 } : {}), ...(comment ? { comment } : {}), ...names };
  }
  return undefined;
}
