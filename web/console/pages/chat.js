// Chat: the person talks to the Presenter from the browser over XMPP on ejabberd's WebSocket
// endpoint (RFC 7395), with xmpp.js's browser bundle served from node_modules. They log in with
// their own XMPP account; the console never sees the password (it goes to ejabberd only).
import { api, fmtTime, h, loadScript } from '../app.js';

let session; // kept across page switches: the chat stays connected

const snifferLink = (thread) => [' · ', h('a', { href: `#/sniffer/${encodeURIComponent(thread)}` }, 'in sniffer')];

/** A line of the chat; an .ics or other file the Presenter sends (XEP-0066 oob) is a link to open, not a long URL. */
function line(who, text, thread, oob, choices) {
  const content = oob ? h('a', { href: oob, target: '_blank', rel: 'noopener', download: '' }, `↓ ${decodeURIComponent(oob.split('/').pop() || 'file')}`) : text;
  return h('div.msg.' + who, {}, h('div.bubble', {}, content), ...(choices ? [choices] : []), h('div.meta', {}, fmtTime(Date.now()), thread ? snifferLink(thread) : ''));
}

const CHOICE_FORM_TYPE = 'urn:parley:choice:1';

/**
 * The choices a line asks for (agents/presenter/choices.ts: an XEP-0004 form with FORM_TYPE
 * urn:parley:choice:1 and a list-single "say"), as {label, say}; none when the line carries no such form.
 */
function choicesOf(st) {
  const form = st.getChildren('x', 'jabber:x:data').find((x) => x.attrs.type === 'form');
  const field = (name) => form?.getChildren('field').find((f) => f.attrs.var === name);
  if (field('FORM_TYPE')?.getChildText('value') !== CHOICE_FORM_TYPE) return [];
  return (field('say')?.getChildren('option') ?? []).map((o) => ({ label: o.attrs.label || o.getChildText('value'), say: o.getChildText('value') })).filter((c) => c.say);
}

/** One button per choice, as a client with forms shows them; a click answers with the form, once. */
function choiceButtons(choices, pick) {
  const box = h('div.choices');
  for (const c of choices) {
    box.append(h('button', { type: 'button', title: c.say, onclick: () => {
      for (const b of box.querySelectorAll('button')) b.disabled = true;
      pick(c);
    } }, c.label));
  }
  return box;
}

async function connect(cfg, username, password, log, onState) {
  await loadScript('/vendor/xmpp.min.js');
  const { client, xml } = window.XMPP;
  const unanswered = [];
  const xmpp = client({ service: cfg.websocket, domain: cfg.domain, resource: `console-${Math.random().toString(36).slice(2, 8)}`, username, password });
  xmpp.on('error', (err) => onState(`error: ${err.message}`));
  xmpp.on('offline', () => onState('offline'));
  xmpp.on('stanza', (st) => {
    if (st.is('presence') && st.attrs.type === 'subscribe' && st.attrs.from.split('/')[0] === cfg.presenter) xmpp.send(xml('presence', { to: cfg.presenter, type: 'subscribed' }));
    if (!st.is('message') || st.attrs.type === 'error') return;
    const body = st.getChildText('body');
    const thread = st.getChildText('thread');
    // The person's lines learn their conversation from the answer's <thread> (the Presenter's id).
    if (body && thread) for (const el of unanswered.splice(0)) el.querySelector('.meta').append(...snifferLink(thread));
    const choices = body ? choicesOf(st) : [];
    const buttons = choices.length ? choiceButtons(choices, (c) => choose(thread, c)) : undefined;
    if (body) log.append(line('them', body, thread, st.getChild('x', 'jabber:x:oob')?.getChildText('url') ?? undefined, buttons));
    log.scrollTop = log.scrollHeight;
  });
  /** The person's own line, waiting for the answer's thread (its sniffer link). */
  const mine = (text) => {
    const el = line('me', text);
    unanswered.push(el);
    log.append(el);
    log.scrollTop = log.scrollHeight;
  };
  // A picked choice is the submitted form alone (no body), as a client with forms sends it; the person's line shows its label.
  const choose = (thread, c) => {
    mine(c.label);
    const field = (name, value) => xml('field', { var: name }, xml('value', {}, value));
    return xmpp.send(xml('message', { to: cfg.presenter, type: 'chat' }, ...(thread ? [xml('thread', {}, thread)] : []),
      xml('x', { xmlns: 'jabber:x:data', type: 'submit' }, field('FORM_TYPE', CHOICE_FORM_TYPE), field('say', c.say))));
  };
  await xmpp.start();
  await xmpp.send(xml('presence'));
  await xmpp.send(xml('presence', { to: cfg.presenter, type: 'subscribe' }));
  return {
    xmpp,
    // No <thread> of our own, as most clients: the Presenter keeps one conversation per person
    // (renewed on "new" or after a silence), so "session add" reaches the session "session start"
    // made, and "cancel that meeting" the conversation it follows. (A thread per line broke both.)
    ask(text) {
      mine(text);
      return xmpp.send(xml('message', { to: cfg.presenter, type: 'chat' }, xml('body', {}, text)));
    },
  };
}

export async function chatPage(main) {
  const cfg = await api('/api/config');
  const state = h('span.badge.off#chat-state', {}, session ? 'online' : 'offline');
  const log = session?.log ?? h('div.chatlog#chatlog');
  const onState = (s) => {
    state.textContent = s;
    state.className = `badge ${s === 'online' ? 'ok' : s.startsWith('error') ? 'error' : 'off'}`;
  };
  const user = h('input#chat-user', { placeholder: `username (…@${cfg.domain})`, autocomplete: 'username' });
  const pass = h('input#chat-pass', { type: 'password', placeholder: 'XMPP password', autocomplete: 'current-password' });
  const loginForm = h('form.inline#chat-login', { onsubmit: async (e) => {
    e.preventDefault();
    onState('connecting…');
    try {
      const c = await connect(cfg, user.value.trim(), pass.value, log, onState);
      session = { ...c, log };
      onState('online');
      loginForm.hidden = true;
      askForm.hidden = false;
      question.focus();
    } catch (err) {
      onState(`error: ${err.message}`);
    }
  } }, user, pass, h('button.primary', { type: 'submit' }, 'Connect'));
  const question = h('input#chat-input', { placeholder: `ask ${cfg.presenter} something`, autocomplete: 'off' });
  const askForm = h('form.inline#chat-ask', { hidden: !session, onsubmit: (e) => {
    e.preventDefault();
    if (!question.value.trim()) return;
    void session.ask(question.value.trim());
    question.value = '';
  } }, question, h('button.primary', { type: 'submit' }, 'Send'));
  loginForm.hidden = Boolean(session);
  if (session) onState('online');
  main.append(h('div.page-head', {}, h('h2', {}, 'Chat'), h('span.muted', {}, `with ${cfg.presenter} over XMPP WebSocket (${cfg.websocket})`), state),
    h('div.card.chat', {}, loginForm, log, askForm));
  return {};
}
