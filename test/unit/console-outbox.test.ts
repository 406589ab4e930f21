// The console's live stream under a full-speed flow (issue 13: the console costs the hot path
// ≤ 5 %): each client gets at most 100 rows per 250 ms batch, the newest, and a count of the rest.
import { expect } from 'chai';
import { MAX_ROWS_PER_FLUSH, Outbox } from '../../shared/console/events.js';
import type { TraceRecord } from '../../shared/trace/types.js';

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
});
