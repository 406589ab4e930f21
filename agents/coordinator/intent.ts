// What the person wants, from the USER_MSG text alone. Pure: the Coordinator's factory picks
// the exchange machine from this (help, recall, OACoP scheduling/tasks, or the seed contract §3
// expert flow). `now` anchors relative dates ("tomorrow afternoon").
import { type FreeTimeQuestion, parseFreeTime } from './scheduling/free-time.js';
import { type MoveQuestion, parseMove } from './scheduling/move.js';
import { parseScheduling, type SchedulingIntent } from './scheduling/parse.js';

export type Intent =
  /** `rooms`: "which rooms are there?" — the rooms with their seats, from the same directory lookup. */
  | { kind: 'help'; topic?: 'rooms' }
  /** "hello", "thanks", "bye": a short friendly line with what to try (issue 16), no specialist asked. */
  | { kind: 'smalltalk'; greeting: Greeting }
  | { kind: 'recall'; topic: string }
  | { kind: 'scheduling'; command: SchedulingIntent | FreeTimeQuestion | MoveQuestion }
  | { kind: 'ask'; question: string };

const HELP = /^\s*\/?(?:help|commands|\?+|what can you do|what do you do|what can i ask(?: you)?|who(?:'s| is) (?:online|there|available)|(?:which|what) (?:specialists|agents|experts) (?:are|is) (?:there|online|available)|list (?:the )?(?:specialists|agents))\s*[?.!]*\s*$/i;
const ROOMS =
  /^\s*(?:(?:which|what)\s+rooms?\s+(?:are\s+there|(?:do|can)\s+(?:you|we|i)\s+(?:have|book)|could\s+i\s+book|exist|is\s+there)|(?:list|show)(?:\s+(?:me|all))?(?:\s+(?:the|all))?\s+(?:meeting\s+)?rooms|(?:meeting\s+)?rooms)\s*[?.!]*\s*$/i;
const RECALL =
  /^\s*(?:what did you (?:tell|say to) me about|what did you (?:tell me|say) (?:about|regarding)|what have you told me about|remind me (?:about|of))\s+(.+?)\s*[?.!]*\s*$/is;

const RECENT =
  /^\s*(?:what\s+(?:did|have)\s+i\s+(?:ask(?:ed)?|said\s+to)(?:\s+you)?(?:\s+(?:before|earlier|so\s+far|last|recently))?|what\s+have\s+you\s+told\s+me(?:\s+(?:so\s+far|before|recently))?|what\s+did\s+we\s+talk\s+about|(?:show\s+)?(?:my\s+)?(?:chat\s+)?history)\s*[?.!]*\s*$/i;

export type Greeting = 'hello' | 'who' | 'thanks' | 'bye' | 'ack' | 'how' | 'joke';

const SMALLTALK: ReadonlyArray<[RegExp, Greeting]> = [
  [/^\s*(?:hi|hello|hey|hallo|hiya|howdy|good\s+(?:morning|afternoon|evening|day)|greetings|moin|servus|bonjour|hola|ciao)(?:\s+(?:there|parley|presenter|again))?\s*[!.,?]*\s*$/i, 'hello'],
  // "who are you?", "what is Parley?": who answers, and what to try.
  [/^\s*(?:who|what)\s+(?:are|r)\s+(?:you|u)(?:\s+exactly)?\s*[?!.]*\s*$|^\s*what\s+(?:is|'s)\s+parley\s*[?!.]*\s*$|^\s*(?:please\s+)?introduce\s+yourself\s*[?!.]*\s*$/i, 'who'],
  [/^\s*(?:thanks?(?:\s+you)?|thank\s+you(?:\s+(?:very|so)\s+much)?|thx|ty|cheers|danke(?:\s+schön)?|merci)(?:\s+(?:a\s+lot|parley))?\s*[!.,]*\s*$/i, 'thanks'],
  [/^\s*(?:bye|goodbye|good\s+bye|good\s*night|night|see\s+you(?:\s+later|\s+tomorrow)?|ciao|tschüss|cya)\s*[!.,]*\s*$/i, 'bye'],
  [/^\s*(?:how\s+are\s+(?:you|u)(?:\s+doing)?(?:\s+today)?|how'?s\s+it\s+going|how\s+do\s+you\s+do|what'?s\s+up|wassup|sup)\s*[?!.,]*\s*$/i, 'how'],
  // "tell me a joke": one, offline; each line asked gets another (replies.ts JOKES).
  [/^\s*(?:(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:tell|give)\s+(?:me|us)\s+(?:a|another|one\s+more)\s+joke|(?:another|a)\s+joke|joke|make\s+me\s+laugh|say\s+something\s+funny|do\s+you\s+know\s+(?:a|any)\s+jokes?)(?:\s+please)?\s*[?!.,]*\s*$/i, 'joke'],
  // An acknowledgement is not a question: "ok", "got it", "👍".
  [/^\s*(?:ok(?:ay)?|k|cool|great|nice(?:\s+one)?|perfect|alright|all\s+right|got\s+it|sounds\s+good|understood|ha(?:ha)+|lol|yes|yep|no|nope|sure|fine|awesome|wow|👍|👌|🙂|😊|😂|😄)\s*[!.,]*\s*$/iu, 'ack'],
];

/** The contract caps GET_FACTS filter.text at 1000 characters. */
const MAX_TOPIC = 1000;

/** `zone`: the person's time zone, for natural-language times (scheduling/zones.ts). */
export function classifyIntent(text: string, now: Date = new Date(), zone?: string): Intent {
  if (HELP.test(text)) return { kind: 'help' };
  if (ROOMS.test(text)) return { kind: 'help', topic: 'rooms' };
  const small = SMALLTALK.find(([re]) => re.test(text));
  if (small) return { kind: 'smalltalk', greeting: small[1] };
  // "what did I ask you before?", "history": the latest answers, on no topic.
  if (RECENT.test(text)) return { kind: 'recall', topic: '' };
  const recall = RECALL.exec(text);
  const topic = recall?.[1]?.trim().replace(/^["'“]|["'”]$/g, '').trim();
  if (topic) return { kind: 'recall', topic: topic.slice(0, MAX_TOPIC) };
  // Task answers ("done", "50% …") are scheduling only for someone with an open task: the factory decides.
  const command = parseScheduling(text, now, zone) ?? parseFreeTime(text, now, zone) ?? parseMove(text);
  if (command) return { kind: 'scheduling', command };
  return { kind: 'ask', question: text.trim() || text };
}
