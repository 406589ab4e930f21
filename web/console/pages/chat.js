// Chat: the person talks to the Presenter from the browser over XMPP on ejabberd's WebSocket
// endpoint (RFC 7395), with xmpp.js's browser bundle served from node_modules. They log in with
// their own XMPP account; the console never sees the password (it goes to ejabberd only).
import { api, fmtTime, h, loadScript } from '../app.js';

let session; // kept across page switches: the chat stays connected

function line(who, text, thread) {
  return h('div.msg.' + who, {}, h('div.bubble', {}, text), h('div.meta', {}, fmtTime(Date.now()), thread ? [' · ', h('a', { href: `#/sniffer/${encodeURIComponent(thread)}` }, 'in sniffer')] : ''));
}

async function connect(cfg, username, password, log, onState) {
  await loadScript('/vendor/xmpp.min.js');
  const { client, xml } = window.XMPP;
  const xmpp = client({ service: cfg.websocket, domain: cfg.domain, resource: `console-${Math.random().toString(36).slice(2, 8)}`, username, password });
  xmpp.on('error', (err) => onState(`error: ${err.message}`));
  xmpp.on('offline', () => onState('offline'));
  xmpp.on('stanza', (st) => {
    if (st.is('presence') && st.attrs.type === 'subscribe' && st.attrs.from.split('/')[0] === cfg.presenter) xmpp.send(xml('presence', { to: cfg.presenter, type: 'subscribed' }));
    if (!st.is('message') || st.attrs.type === 'error') return;
    const body = st.getChildText('body');
    if (body) log.append(line('them', body, st.getChildText('thread')));
    log.scrollTop = log.scrollHeight;
  });
  await xmpp.start();
  await xmpp.send(xml('presence'));
  await xmpp.send(xml('presence', { to: cfg.presenter, type: 'subscribe' }));
  return {
    xmpp,
    ask(text) {
      const thread = `sess-${crypto.randomUUID()}`;
      log.append(line('me', text, thread));
      log.scrollTop = log.scrollHeight;
      return xmpp.send(xml('message', { to: cfg.presenter, type: 'chat' }, xml('body', {}, text), xml('thread', {}, thread)));
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
