// Attachments people can open from any device (issue 16): the Presenter stores an invitation's
// .ics with ejabberd's HTTP File Upload service (XEP-0363, mod_http_upload on upload.<domain>):
// a slot request over XMPP, an HTTP PUT over loopback, and the slot's GET URL goes to the person
// as XEP-0066 out-of-band data. That URL is on ejabberd's HTTP listener — the exposed HTTPS port
// (TLS, the operator's certificate) when PARLEY_EXPOSE_ADDRESS is set — so a phone can open it,
// unlike the Presenter's own loopback file server (files.ts), which stays as the fallback.
import http from 'node:http';
import { xml } from '@xmpp/client';
import type { Element } from '@xmpp/xml';

export const NS_UPLOAD = 'urn:xmpp:http:upload:0';
const CONTENT_TYPE = 'text/calendar';
/** XEP-0363 §5: the only headers a client may copy from the slot onto its PUT. */
const PUT_HEADERS = new Set(['authorization', 'cookie', 'expires']);

export interface Uploader {
  /** Stores `text` as `name`; resolves with the URL people fetch it from. */
  put(name: string, text: string): Promise<string>;
}

/** A slot (XEP-0363 §4): where to PUT, where it will be, and headers for the PUT. */
export function slotOf(result: Element): { put: string; get: string; headers: Record<string, string> } {
  const slot = result.getChild('slot', NS_UPLOAD);
  const put = slot?.getChild('put');
  const get = slot?.getChild('get');
  const putUrl = String(put?.attrs.url ?? '');
  const getUrl = String(get?.attrs.url ?? '');
  if (!/^https?:\/\//.test(putUrl) || !/^https?:\/\//.test(getUrl)) throw new Error('upload slot without http(s) put/get URLs');
  const headers: Record<string, string> = {};
  for (const h of put?.getChildren('header') ?? []) {
    const n = String(h.attrs.name ?? '');
    if (PUT_HEADERS.has(n.toLowerCase())) headers[n] = h.getText().replace(/[\r\n]/g, '');
  }
  return { put: putUrl, get: getUrl, headers };
}

/**
 * The PUT, always over loopback (`loopback`: ejabberd's HTTP listener on 127.0.0.1): the slot's
 * put URL is the public one (ejabberd finds the upload handler by the URL's host, so the put and
 * get URLs share it), so the request keeps that host in its Host header but never leaves the
 * machine, and needs no trust in the exposed port's certificate.
 */
function putLocally(slotPut: string, loopback: string, body: Buffer, headers: Record<string, string>, timeoutMs: number): Promise<number> {
  const target = new URL(slotPut);
  const local = new URL(`${target.pathname}${target.search}`, loopback);
  return new Promise((resolve, reject) => {
    const req = http.request(local, { method: 'PUT', timeout: timeoutMs, headers: { ...headers, host: target.host, 'content-type': CONTENT_TYPE, 'content-length': String(body.length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('timeout', () => req.destroy(new Error(`upload PUT: no answer in ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end(body);
  });
}

/** XEP-0363 over `t` (the Presenter's transport) with `service` (upload.<domain>); PUTs go to `loopback`. */
export function httpUploader(t: { iq(el: Element, timeoutMs?: number): Promise<Element> }, service: string, loopback: string, timeoutMs = 5000): Uploader {
  return {
    async put(name, text) {
      const body = Buffer.from(text, 'utf8');
      const slot = slotOf(await t.iq(xml('iq', { type: 'get', to: service },
        xml('request', { xmlns: NS_UPLOAD, filename: name, size: String(body.length), 'content-type': CONTENT_TYPE })), timeoutMs));
      const status = await putLocally(slot.put, loopback, body, slot.headers, timeoutMs);
      if (status !== 200 && status !== 201) throw new Error(`upload PUT answered HTTP ${status}`);
      return slot.get;
    },
  };
}
