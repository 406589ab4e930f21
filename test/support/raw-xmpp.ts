// A deliberately small XMPP client over node:net/node:tls for the TLS tests: it shows every step
// (STARTTLS or direct TLS, certificate verification against a pinned CA, SASL PLAIN, bind) instead
// of hiding them in a library, so a test can also do a step out of order (auth before TLS).
import net from 'node:net';
import tls from 'node:tls';

/** TLS from a chosen local address (tls.connect's options do not carry localAddress). */
export function tlsFrom(host: string, port: number, localAddress: string, opts: tls.ConnectionOptions, onSecure: () => void): tls.TLSSocket {
  return tls.connect({ ...opts, socket: net.connect({ host, port, localAddress }) }, onSecure);
}

export class RawXmpp {
  private buf = '';
  private waiters: Array<() => void> = [];

  private constructor(private socket: net.Socket | tls.TLSSocket, readonly domain: string) {
    this.listen(socket);
  }

  private listen(s: net.Socket): void {
    s.setEncoding('utf8');
    s.on('data', (d: string) => {
      this.buf += d;
      for (const w of this.waiters.splice(0)) w();
    });
    s.on('error', () => undefined);
  }

  /** Plain TCP (for STARTTLS) from `localAddress`. */
  static plain(host: string, port: number, localAddress: string, domain: string): Promise<RawXmpp> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ host, port, localAddress }, () => resolve(new RawXmpp(s, domain)));
      s.once('error', reject);
    });
  }

  /** Direct TLS (XEP-0368), verifying the server's certificate against `ca` for `domain`. */
  static direct(host: string, port: number, localAddress: string, domain: string, ca: string | undefined): Promise<RawXmpp> {
    return new Promise((resolve, reject) => {
      const s = tlsFrom(host, port, localAddress, { servername: domain, ...(ca ? { ca } : {}), rejectUnauthorized: true, ALPNProtocols: ['xmpp-client'] }, () => resolve(new RawXmpp(s, domain)));
      s.once('error', reject);
    });
  }

  get tlsSocket(): tls.TLSSocket | undefined {
    return this.socket instanceof tls.TLSSocket ? this.socket : undefined;
  }

  send(xml: string): void {
    this.socket.write(xml);
  }

  /** Waits until the received text matches `re` (consumed up to the match), or fails after `ms`. */
  async expect(re: RegExp, what: string, ms = 5000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = this.buf.match(re);
      if (m) {
        this.buf = this.buf.slice((m.index ?? 0) + m[0].length);
        return m;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms; got: ${this.buf.slice(0, 400)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }

  async openStream(): Promise<string> {
    this.send(`<?xml version='1.0'?><stream:stream to='${this.domain}' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>`);
    return (await this.expect(/<stream:features>[\s\S]*?<\/stream:features>/, 'stream features'))[0];
  }

  /** RFC 6120 §5: STARTTLS, then the stream again over TLS verified against `ca`. */
  async starttls(ca: string): Promise<string> {
    this.send("<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>");
    await this.expect(/<proceed[^>]*\/>/, 'STARTTLS proceed');
    const plain = this.socket;
    plain.removeAllListeners('data');
    this.socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const s = tls.connect({ socket: plain, servername: this.domain, ca, rejectUnauthorized: true }, () => resolve(s));
      s.once('error', reject);
    });
    this.buf = '';
    this.listen(this.socket);
    return this.openStream();
  }

  /** SASL PLAIN then resource binding (RFC 6120 §6, §7); returns the full JID. */
  async login(user: string, password: string, resource = 'device'): Promise<string> {
    this.send(`<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>${Buffer.from(`\0${user}\0${password}`).toString('base64')}</auth>`);
    await this.expect(/<success[^>]*(\/>|>[\s\S]*?<\/success>)/, 'SASL success');
    this.buf = '';
    await this.openStream();
    this.send(`<iq type='set' id='bind1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>${resource}</resource></bind></iq>`);
    const jid = await this.expect(/<jid>([^<]+)<\/jid>/, 'the bound JID');
    this.send('<presence/>');
    return jid[1] as string;
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * Logs in as `user` over a raw stream and sends `envelope` with a `from` that is not the
 * account's (`claimed`): ejabberd must answer with the invalid-from stream error (RFC 6120
 * §4.9.3.9) and close the stream, so the stanza is never routed. Resolves once it did.
 */
export async function sendAsSomeoneElse(
  server: { host: string; port: number; domain: string }, user: string, password: string, claimed: string, to: string,
  envelope: { reply_with: string; conversation_id: string },
): Promise<void> {
  const raw = await RawXmpp.plain(server.host, server.port, '127.0.0.1', server.domain);
  try {
    await raw.openStream();
    await raw.login(user, password, 'spoof');
    const body = JSON.stringify(envelope).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    raw.send(`<message from='${claimed}' to='${to}' type='normal' id='${envelope.reply_with}'><thread>${envelope.conversation_id}</thread><body>${body}</body></message>`);
    await raw.expect(/<stream:error>[\s\S]*?invalid-from/, 'the invalid-from stream error', 10000);
  } finally {
    raw.close();
  }
}
