import { expect } from 'chai';
import { BUSY_FLUSH_MS, BUSY_ROWS_PER_S, FLUSH_MS, MAX_ROWS_PER_FLUSH, Outbox } from '../../shared/console/index.js';
import type { TraceRecord } from '../../shared/trace/index.js';

const row = (seq: number) => ({ seq, at: seq, agent: 'Coordinator', direction: 'out' }) as unknown as TraceRecord;

describe('Console [stream] a client gets a bounded batch of the newest rows and a count of the rest', () => {
  it('sends the newest MAX_ROWS_PER_FLUSH rows and `skipped` with the count (with rows the feed did not read); nothing when idle', () => {
    const sent: Array<{ event: string; data: unknown }> = [];
    const box = new Outbox((event, data) => sent.push({ event, data }) > 0);
    try {
      box.push(Array.from({ length: 700 }, (_, i) => row(i)));
      box.push(Array.from({ length: 300 }, (_, i) => row(700 + i)), 4000);
      box.flush();
      expect(sent.map((s) => s.event)).to.deep.equal(['skipped', 'envelopes']);
      expect(sent[0]?.data).to.deep.equal({ rows: 4000 + 1000 - MAX_ROWS_PER_FLUSH });
      const rows = sent[1]?.data as TraceRecord[];
      expect(rows.map((r) => r.seq)).to.deep.equal(Array.from({ length: MAX_ROWS_PER_FLUSH }, (_, i) => 1000 - MAX_ROWS_PER_FLUSH + i));
      sent.length = 0;
      box.flush();
      expect(sent, 'an idle batch sends nothing').to.deep.equal([]);
      box.push([row(5000)]);
      box.flush();
      expect(sent).to.deep.equal([{ event: 'envelopes', data: [row(5000)] }]);
    } finally {
      box.close();
    }
  });

  it('sends the first rows after a quiet spell at once, then at most one batch per FLUSH_MS', async () => {
    let now = 1_000_000;
    const sent: number[] = [];
    let wake: (() => void) | undefined;
    const box = new Outbox((event) => {
      if (event === 'envelopes') sent.push(now);
      wake?.();
      return true;
    }, () => now);
    const nextSend = () => new Promise<void>((resolve) => (wake = resolve));
    try {
      let sending = nextSend();
      box.push([row(1)]);
      await sending; // a zero-delay timer: the next turn, not FLUSH_MS later
      expect(sent).to.deep.equal([1_000_000]);
      now += 10;
      sending = nextSend();
      box.push([row(2)]);
      // Within FLUSH_MS of the last batch: held back. Move the clock and let the timer's wait pass
      // by flushing as the timer would (the wait it armed is FLUSH_MS - 10 ms).
      expect(sent).to.have.length(1);
      now += FLUSH_MS - 10;
      box.flush();
      await sending;
      expect(sent).to.deep.equal([1_000_000, 1_000_000 + FLUSH_MS]);
    } finally {
      box.close();
    }
  });

  it('above BUSY_ROWS_PER_S (a sample anyway) waits BUSY_FLUSH_MS between batches, and FLUSH_MS again once the flow is quiet', () => {
    let now = 1_000_000;
    const box = new Outbox(() => true, () => now);
    const armed: number[] = [];
    const realSetTimeout = globalThis.setTimeout;
    // The wait each push arms, read from the timer it sets (the batches themselves are flushed by hand).
    globalThis.setTimeout = ((fn: () => void, ms: number) => {
      armed.push(ms);
      return realSetTimeout(() => undefined, 0);
    }) as typeof setTimeout;
    try {
      const second = (rowsPerS: number) => {
        for (let t = 0; t < 5; t++) {
          now += 200;
          box.push([row(now)], rowsPerS / 5 - 1);
          box.flush();
        }
      };
      second(10); // quiet
      second(10);
      armed.length = 0;
      now += 200;
      box.push([row(now)]);
      expect(armed.at(-1), 'quiet: FLUSH_MS after the last batch').to.equal(FLUSH_MS - 200);
      box.flush();
      second(2 * BUSY_ROWS_PER_S);
      second(2 * BUSY_ROWS_PER_S);
      armed.length = 0;
      now += 200;
      box.push([row(now)], 50);
      expect(armed.at(-1), 'busy: BUSY_FLUSH_MS after the last batch').to.equal(BUSY_FLUSH_MS - 200);
      box.flush();
      second(10);
      second(10);
      armed.length = 0;
      now += 200;
      box.push([row(now)]);
      expect(armed.at(-1), 'quiet again').to.equal(FLUSH_MS - 200);
    } finally {
      globalThis.setTimeout = realSetTimeout;
      box.close();
    }
  });
});
