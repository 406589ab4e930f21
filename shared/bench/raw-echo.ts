// Baseline: the cheapest request/reply XMPP allows here. Two plain @xmpp/client sessions
// (SASL PLAIN, TCP_NODELAY as facts.md requires, stream management left at its default); one
// echoes each <message> back with the same id and body. The body is a real serialised REQUEST
// envelope, so the runtime scenarios differ from this only in what the runtime does.
import { client, xml } from '@xmpp/client';
import type { Element } from '@xmpp/xml';
import { makeEnvelope } from '../acl/index.js';
import type { TempInstance } from '../ejabberd/operator.js';
import type { Runner, Scenario } from './scenario.js';

type XmppClient = ReturnType<typeof client>;

async function connect(instance: TempInstance, account: string): Promise<XmppClient> {
  const { password } = await instance.account(account);
  const xmpp = client({
    service: `xmpp://${instance.cfg.host}:${instance.cfg.c2sPort}`,
    domain: instance.cfg.domain,
    resource: 'bench',
    credentials: (authenticate, mechanisms) => authenticate({ username: account, password }, mechanisms.includes('PLAIN') ? 'PLAIN' : (mechanisms[0] as string)),
  });
  xmpp.reconnect.stop();
  // A baseline that silently loses its session would hang the run: say why instead.
  xmpp.on('error', (err: Error) => process.stderr.write(`\n${account}: ${err.message}\n`));
  xmpp.on('disconnect', () => process.stderr.write(`\n${account}: disconnected\n`));
  xmpp.on('status', (s: string) => {
    if (s === 'connect') (xmpp as unknown as { socket: import('node:net').Socket | null }).socket?.setNoDelay(true);
  });
  await xmpp.start();
  await xmpp.send(xml('presence', {}, xml('priority', {}, '1')));
  return xmpp;
}

export const rawEcho: Scenario = {
  name: 'raw-echo',
  description: '@xmpp/client echo, no runtime (baseline)',
  async setup(instance) {
    const a = await connect(instance, 'bench-raw-a');
    const b = await connect(instance, 'bench-raw-b');
    const bJid = `bench-raw-b@${instance.cfg.domain}`;
    b.on('stanza', (st: Element) => {
      if (st.name !== 'message' || st.attrs.type === 'error') return;
      void b.send(xml('message', { to: st.attrs.from, id: st.attrs.id, type: 'normal' },
        xml('thread', {}, st.getChildText('thread') ?? ''), xml('body', {}, st.getChildText('body') ?? '')));
    });
    const pending = new Map<string, () => void>();
    a.on('stanza', (st: Element) => {
      if (st.name !== 'message') return;
      const done = pending.get(String(st.attrs.id));
      pending.delete(String(st.attrs.id));
      done?.();
    });
    const body = JSON.stringify(makeEnvelope({
      performative: 'REQUEST', sender: 'Coordinator', receiver: 'specialist-echo', conversation_id: 'sess-bench-raw',
      content: { type: 'ASK_EXPERT', args: { question: 'ping' }, context_ref: { session_id: 'sess-bench-raw' } },
    }));
    let seq = 0;
    const runner: Runner = {
      roundTrip: () => new Promise<void>((resolve, reject) => {
        const id = `raw-${++seq}`;
        pending.set(id, resolve);
        a.send(xml('message', { to: bJid, id, type: 'normal' }, xml('thread', {}, 'sess-bench-raw'), xml('body', {}, body))).catch(reject);
      }),
      close: async () => {
        await a.stop().catch(() => undefined);
        await b.stop().catch(() => undefined);
      },
    };
    return runner;
  },
};
