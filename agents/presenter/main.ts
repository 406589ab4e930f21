// The Presenter process: the only agent people see (docs/architecture.md). Wiring only:
// chat lines → ChatDesk → one question actor each; actor `chat` lines → <message type="chat">;
// presence subscriptions → subscriptions.ts decisions.
import { xml } from '@xmpp/client';
import type { Element } from '@xmpp/xml';
import { fromPromise } from 'xstate';
import { loadTunables, paths } from '../../shared/config/index.js';
import { createAgent, restoreExchanges, startUp, warmUp } from '../../shared/runtime/index.js';
import { type InboundMessage, bare } from '../../shared/transport/index.js';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ChatDesk } from './chat.js';
import { FairGate } from './fairness.js';
import { TEXT } from './render.js';
import { choiceForm, submittedChoice } from './choices.js';
import { ShownChoices } from './shown-choices.js';
import { LastValue } from './last-value.js';
import { startFileServer } from './files.js';
import { httpUploader } from './upload.js';
import { type IqServer, serveAdhoc } from './adhoc.js';
import { acknowledgement, takenIn } from './receipts.js';
import { newConversationId } from '../../shared/acl/index.js';
import { type ChatEmitted, questionKey, questionMachine } from './machine.js';
import { notifyMachine } from './notify.js';
import { ConversationIds } from './conversation-ids.js';
import { SqliteThreadOwners } from './thread-owners.js';
import { LinesAtRisk } from './lines-at-risk.js';
import { chatLineKey } from './line-key.js';
import { allowList, isAllowed, onPresenceStanza } from './subscriptions.js';
import { announce } from '../../shared/supervisor/ipc.js';

// Durable (docs/runtime.md "Durability"): question actors in data/presenter-exchanges.sqlite.
const { agent, config, logger, store, groupWith } = createAgent({
  account: 'presenter',
  durable: true,
  readsChat: true,
  onChat: (msg: InboundMessage) => {
    // A chat line with an id is handled once, even when redelivered after a restart or resent by
    // the person's client after a stream break (line-key.ts).
    // A submitted choice form (choices.ts) is the chat line it stands for.
    // So is "2" or "book the second" after a numbered list of choices (shown-choices.ts).
    const submitted = submittedChoice(msg.stanza);
    const picked = submitted === undefined ? shownChoices.resolve(msg.fromBare, msg.body ?? '') : undefined;
    // Delivered and read, as the person's client shows it (receipts.ts); a duplicate is acknowledged again.
    const receipt = () => {
      const ack = acknowledgement(msg);
      if (ack) agent.transport.sendRaw(ack).catch((err: Error) => logger.debug({ err: err.message }, 'receipt not sent'));
    };
    // "and times 2" after "391": the calculation goes on from it (last-value.ts).
    const onFrom = submitted === undefined && picked === undefined ? lastValue.resolve(msg.fromBare, msg.body ?? '') : undefined;
    // A number past the choices, or "times 2" with no number told lately: answered here, at once.
    const atOnce = picked && 'outOf' in picked ? TEXT.noSuchChoice(picked.outOf) : onFrom === 'nothing' ? TEXT.nothingToGoOn : undefined;
    if (atOnce !== undefined) {
      say({ type: 'chat', to: msg.from, text: atOnce, chatState: 'active', thread: msg.thread ?? '' }, { keepChoices: true });
      receipt();
      return;
    }
    const goesOn = onFrom === 'nothing' ? undefined : onFrom?.line;
    const chosen = submitted ?? (picked && 'line' in picked ? picked.line : undefined) ?? goesOn;
    const line = chosen ? { ...msg, body: chosen } : msg;
    // A copy of a line that went on from a number is the same line, whatever the person was told since.
    const keyBody = goesOn !== undefined ? msg.body : line.body;
    const handle = () => (msg.id && store && !store.firstTime(chatLineKey(msg.fromBare, msg.id, keyBody ?? '')) ? 'duplicate' : desk.handle(line));
    const outcome = store ? store.atomically(handle) : handle();
    logger.debug({ from: msg.from, outcome, thread: msg.thread }, 'chat line');
    if (takenIn(outcome)) receipt();
  },
});
const tunables = loadTunables(process.env, config.domain);
const allow = allowList(tunables.presenterAllow);
// Started now, awaited before going online (no top-level await: see the end of this file).
const filesStarting = startFileServer(path.join(paths(config).data, 'files'), '127.0.0.1', tunables.presenterFilesPort);
const uploader = httpUploader(agent.transport as unknown as { iq(el: Element, timeoutMs?: number): Promise<Element> }, `upload.${config.domain}`, `http://127.0.0.1:${config.httpPort}`);

/** Ad-hoc commands waiting for their answer, by thread (adhoc.ts puts it in the form's note). */
const taps = new Map<string, (text: string) => void>();
/** How long a submitted form waits for the answer before saying it follows in chat (IQ timeouts are ~30 s). */
const ADHOC_WAIT_MS = 20000;

/**
 * Every line to a person carries its own id, also as XEP-0359 origin-id: a line XEP-0198 sends
 * again after the server died (it had delivered it but not yet acknowledged it) is the same
 * stanza, which clients recognise by that id and show once (docs/architecture.md "Durability").
 */
function lineId(): { id: string; origin: Element } {
  const id = `pl-${randomUUID()}`;
  return { id, origin: xml('origin-id', { xmlns: 'urn:xmpp:sid:0', id }) };
}

/** Lines to people, sent again after the server went away just after them (lines-at-risk.ts). */
const lines = new LinesAtRisk(agent.transport);

function say(line: ChatEmitted, o: { keepChoices?: boolean } = {}): void {
  // A number the person types next means one of these choices, or none once another answer came.
  if (line.text !== undefined && line.chatState === 'active' && line.to && !o.keepChoices) {
    shownChoices.shown(bare(line.to), line.text, line.choices);
    lastValue.told(bare(line.to), line.text); // and a number is what "and times 2" goes on from
  }
  if (line.chatState === 'active' && line.text !== undefined && taps.has(line.thread)) {
    taps.get(line.thread)?.(line.text);
    taps.delete(line.thread);
  }
  const text = line.text !== undefined ? lineId() : undefined;
  lines.send({
    type: 'chat',
    to: line.to,
    ...(text ? { id: text.id } : {}),
    ...(line.thread ? { thread: line.thread } : {}),
    ...(line.text !== undefined ? { body: line.text } : {}),
    chatState: line.chatState,
    children: [...(text ? [text.origin] : []), ...(line.choices ? [choiceForm(line.choices)] : [])],
  });
  // An invitation or cancellation (docs/oacop.md): the readable line went above; the .ics follows
  // as a file the client can open (XEP-0066 out-of-band data; the body is the URL, as XEP-0066 §3
  // advises for clients without it), stored with ejabberd's HTTP upload (upload.ts: reachable from
  // other devices when exposed), else on files.ts's loopback server — never raw iCalendar text.
  if (line.ics !== undefined) {
    const name = /^METHOD:CANCEL/m.test(line.ics) ? 'cancellation.ics' : 'invitation.ics';
    const ics = line.ics;
    void uploader.put(name, ics).catch((err: Error) => {
      logger.warn({ err: err.message }, 'HTTP upload failed: the attachment is served on loopback only');
      return filesStarting.then((files) => files.put(name, ics));
    }).then((url) => {
      const file = lineId();
      lines.send({
        type: 'chat', to: line.to, id: file.id, ...(line.thread ? { thread: line.thread } : {}), body: url,
        children: [file.origin, xml('x', { xmlns: 'jabber:x:oob' }, xml('url', {}, url), xml('desc', {}, name))],
      });
    });
  }
}

// A thread's owner commits with the burst of the line that claimed it (docs/runtime.md "Group commit").
const threadOwners = new SqliteThreadOwners(path.join(paths(config).data, 'presenter-threads.sqlite'));
groupWith(threadOwners.group());
const shownChoices = new ShownChoices(threadOwners.connection);
const lastValue = new LastValue(threadOwners.connection);
const desk = new ChatDesk({
  allow,
  conversationIds: new ConversationIds(tunables.presenterIdleMs, undefined, undefined, threadOwners),
  timeoutMs: tunables.presenterTimeoutMs,
  progressMs: tunables.presenterProgressMs,
  resultTimeoutMs: tunables.resultTimeoutMs,
  self: agent.name,
  now: () => Date.now(),
  say,
  // One person's flood never slows anyone else (issue "Close the perimeter" §6; fairness.ts).
  fair: new FairGate({ ...tunables.chat, noticeEveryMs: 10_000, noticeDelayMs: 500, now: () => Date.now(), later: (ms, fn) => setTimeout(fn, ms).unref() }, (person, setAside) => {
    logger.warn({ person, set_aside: setAside }, 'chat flood: lines set aside');
    say({ type: 'chat', to: person, text: TEXT.slowDown(setAside, tunables.chat.ratePerS, tunables.chat.inFlightPerPerson), chatState: 'active', thread: '' });
  }),
  ask: (input, onChat) => {
    const key = questionKey(input.request);
    const actor = agent.router.start(key, questionMachine, input);
    actor.on('chat', (e: ChatEmitted) => onChat(e));
    agent.router.send(key, { type: 'START' });
  },
});

// XEP-0050 ad-hoc commands: a submitted form is the chat line it stands for, in a new thread.
if ('onIq' in agent.transport) serveAdhoc(agent.transport as IqServer, {
  self: () => agent.transport.address,
  allowed: (from) => isAllowed(allow, bare(from)),
  now: () => Date.now(),
  run: (from, text) => new Promise((resolve) => {
    const thread = newConversationId();
    const timer = setTimeout(() => {
      taps.delete(thread);
      resolve(undefined);
    }, ADHOC_WAIT_MS);
    taps.set(thread, (answer) => {
      clearTimeout(timer);
      resolve(answer);
    });
    const outcome = desk.handle({
      type: 'chat', from, fromBare: bare(from), to: agent.transport.address, toBare: agent.transport.address, body: text, thread,
      delayed: false, stanza: xml('message'), receivedAt: Date.now(),
    });
    logger.info({ from, outcome, command: text.split(' ')[0] }, 'ad-hoc command');
  }),
});

// Coordinator → Presenter INFORM NOTIFY_USER: a line to a person who did not ask (docs/oacop.md).
const notify = notifyMachine.provide({ actors: { deliver: fromPromise(async ({ input }: { input: ChatEmitted }) => say(input)) } });
agent.router.on('NOTIFY_USER', (request, from) => ({
  machine: notify,
  input: { request, from, self: agent.name, allowed: (jid: string) => isAllowed(allow, jid) },
}));

agent.transport.onPresence((stanza: Element) => {
  const from = String(stanza.attrs.from ?? '');
  const type = stanza.attrs.type as string | undefined;
  for (const reply of onPresenceStanza(allow, type, from)) {
    logger.info({ to: reply.to, type: reply.type }, 'subscription');
    agent.transport.sendRaw(xml('presence', { to: reply.to, type: reply.type })).catch((err: Error) =>
      logger.warn({ err: err.message, to: reply.to }, 'presence send failed'));
  }
});

// Questions a killed Presenter left behind resume (their answer lines go out again through say).
if (store) {
  restoreExchanges(agent, store, {
    machineFor: (rec) => (rec.machineId === questionMachine.id ? questionMachine : undefined),
    onRestored: (actor, rec) => {
      if (rec.machineId !== questionMachine.id) return;
      actor.on('chat', (e: ChatEmitted) => say(e));
      actor.send({ type: 'START' }); // ignored unless it died before its first step
    },
  });
}
// Compile the contracts now: a broken one stops start-up, and the first answer pays no compile.
warmUp(agent);
// No top-level await: the bundled agent is a CommonJS script, whose compiled code V8 can cache
// (scripts/bundle.ts, shared/supervisor/bundle-run.cts).
startUp(async () => {
  const files = await filesStarting;
  await agent.start();
  announce(logger, { jid: agent.self.jid, allow: tunables.presenterAllow, timeoutMs: tunables.presenterTimeoutMs, filesPort: files.port }, 'online');
}, logger);
