// A choice or an approval the system needs from a person (issue 16, human in the loop): the
// Coordinator lists it as rich.choices [{label, say}] — each `say` is the chat line that answers
// it ("accept", "meet 30m bob 2027-01-20T12:00Z..2027-01-20T12:30Z"). The Presenter shows the text
// as always (any client can type the answer) and adds an XEP-0004 form in the same message, so a
// client with forms shows buttons/a list. A submitted form is that chat line, handled like a typed
// one (allow-list, USER_MSG): nothing waits in the Presenter's memory, the Coordinator's own durable
// state (tasks in SQLite, the self-contained meet command) carries the conversation on, whenever
// the answer comes, even after restarts.
import { xml } from '@xmpp/client';
import type { Element } from '@xmpp/xml';
import { NS_DATA } from './adhoc.js';

export const CHOICE_FORM_TYPE = 'urn:parley:choice:1';
const MAX_CHOICES = 10;
const MAX_SAY = 500;

export interface Choice {
  label: string;
  /** The chat line that answers with this choice. */
  say: string;
}

/** rich.choices, checked: strings of sane length, at most 10; undefined when none. */
export function choicesOf(rich: unknown): Choice[] | undefined {
  const list = (rich as { choices?: unknown } | null | undefined)?.choices;
  if (!Array.isArray(list)) return undefined;
  const ok = list.filter((c): c is Choice => typeof c?.label === 'string' && typeof c?.say === 'string' && c.label.length <= 200 && c.say.length <= MAX_SAY && c.say.trim() !== '')
    .slice(0, MAX_CHOICES);
  return ok.length ? ok : undefined;
}

/** The form that goes with the chat line (XEP-0004 §3.1, FORM_TYPE per XEP-0068). */
export function choiceForm(choices: readonly Choice[], title = 'Your answer'): Element {
  return xml('x', { xmlns: NS_DATA, type: 'form' }, xml('title', {}, title),
    xml('field', { var: 'FORM_TYPE', type: 'hidden' }, xml('value', {}, CHOICE_FORM_TYPE)),
    xml('field', { var: 'say', type: 'list-single', label: 'Choose' }, xml('required'),
      ...choices.map((c) => xml('option', { label: c.label }, xml('value', {}, c.say)))));
}

/** The chat line a submitted choice form stands for, or undefined when the message carries none. */
export function submittedChoice(stanza: Element | undefined): string | undefined {
  const x = stanza?.getChildren('x', NS_DATA).find((e) => e.attrs.type === 'submit');
  if (!x) return undefined;
  const field = (name: string) => x.getChildren('field').find((f) => f.attrs.var === name)?.getChildText('value') ?? undefined;
  if (field('FORM_TYPE') !== CHOICE_FORM_TYPE) return undefined;
  const say = field('say')?.replace(/[\r\n]+/g, ' ').trim();
  return say && say.length <= MAX_SAY ? say : undefined;
}
