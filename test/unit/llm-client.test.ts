// The OpenAI-compatible client (shared/llm/client.ts) against a scripted server: plain answers,
// tool calls, HTTP errors, malformed JSON, a server that never answers and a slow stream. No
// message ever carries the key.
import { expect } from 'chai';
import { chatCompletion, endpoint, LlmError, type LlmSettings } from '../../shared/llm/index.js';
import { reply, ScriptedLlm } from '../support/llm-server.js';

const KEY = 'sk-test-0123456789-secret';

async function llmError(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(LlmError);
    expect((err as Error).message).to.not.contain(KEY);
    return err as LlmError;
  }
  throw new Error('expected an LlmError');
}

describe('LLM [client] OpenAI-compatible chat completions over node fetch', function () {
  this.timeout(20000);
  const server = new ScriptedLlm();
  let s: LlmSettings;
  const ask = (content = 'hi') => chatCompletion(s, { messages: [{ role: 'user', content }] });
  before(async () => {
    await server.start();
    s = { url: server.url, model: 'test-model', key: KEY, timeoutMs: 500, stream: false };
  });
  after(() => server.close());

  it('posts to {url}/chat/completions with the model, the messages, the tools and the key as Bearer', async () => {
    server.push(reply.answer('hello there', 'served-model'));
    const tools = [{ type: 'function' as const, function: { name: 'arithmetic', description: 'math', parameters: { type: 'object' } } }];
    const a = await chatCompletion(s, { messages: [{ role: 'user', content: 'hi' }], tools });
    expect(a).to.deep.include({ model: 'served-model', finish_reason: 'stop' });
    expect(a.message).to.deep.equal({ role: 'assistant', content: 'hello there' });
    const r = server.received.at(-1);
    expect(r?.path).to.equal('/v1/chat/completions');
    expect(r?.headers.authorization).to.equal(`Bearer ${KEY}`);
    expect(r?.body).to.deep.include({ model: 'test-model', stream: false, tools });
    expect(endpoint('http://h/v1/chat/completions')).to.equal('http://h/v1/chat/completions');
  });

  it('reads tool calls (arguments as a JSON string)', async () => {
    server.push(reply.toolCalls([{ name: 'arithmetic', args: { question: '17*23' } }]));
    const a = await ask();
    expect(a.message.content).to.equal(null);
    expect(a.message.tool_calls?.map((c) => c.function)).to.deep.equal([{ name: 'arithmetic', arguments: '{"question":"17*23"}' }]);
  });

  it('HTTP 500 and 401 are LLM_HTTP with the server\'s reason, never the key (even when the server echoes it)', async () => {
    server.push(reply.error(500, 'model crashed'));
    const e500 = await llmError(ask());
    expect(e500.code).to.equal('LLM_HTTP');
    expect(e500.message).to.match(/HTTP 500: model crashed/);
    server.push(reply.error(401, `invalid key ${KEY}`));
    const e401 = await llmError(ask());
    expect(e401.message).to.match(/HTTP 401 \(check the key: .*\): invalid key \*\*\*/);
  });

  it('malformed JSON and an answer that is no completion are LLM_BAD_RESPONSE', async () => {
    server.push(reply.malformed());
    expect((await llmError(ask())).message).to.match(/^LLM_BAD_RESPONSE: .*malformed JSON/);
    server.push({ kind: 'json', body: { choices: [] } });
    expect((await llmError(ask())).message).to.match(/^LLM_BAD_RESPONSE: .*no choices\[0\]\.message/);
  });

  it('a server that never answers is LLM_TIMEOUT after the timeout', async () => {
    server.push(reply.hang());
    const t0 = Date.now();
    const e = await llmError(ask());
    expect(e.code).to.equal('LLM_TIMEOUT');
    expect(Date.now() - t0).to.be.within(450, 3000);
  });

  it('a slow stream (chunks every 150 ms, 1 s in all) finishes: the timeout is between chunks, not in all', async () => {
    server.push(reply.slowStream('The answer is 391.', 6, 150, 'stream-model'));
    const t0 = Date.now();
    const a = await chatCompletion({ ...s, stream: true }, { messages: [{ role: 'user', content: 'x' }] });
    expect(Date.now() - t0).to.be.above(s.timeoutMs);
    expect(a).to.deep.include({ model: 'stream-model', finish_reason: 'stop' });
    expect(a.message.content).to.equal('The answer is 391.');
    expect(server.received.at(-1)?.body.stream).to.equal(true);
  });

  it('a stream that stalls mid-way is LLM_TIMEOUT', async () => {
    server.push(reply.slowStream('abc', 3, 2000));
    expect((await llmError(chatCompletion({ ...s, stream: true }, { messages: [{ role: 'user', content: 'x' }] }))).code).to.equal('LLM_TIMEOUT');
  });

  it('streamed tool calls are put together from their pieces', async () => {
    const chunk = (delta: object) => ({ model: 'm', choices: [{ index: 0, delta, finish_reason: null }] });
    server.push({ kind: 'sse', delayMs: 5, chunks: [
      chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'arithmetic', arguments: '{"quest' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ion":"2+2"}' } }] }),
    ] });
    const a = await chatCompletion({ ...s, stream: true }, { messages: [{ role: 'user', content: 'x' }] });
    expect(a.message.tool_calls).to.deep.equal([{ id: 'c1', type: 'function', function: { name: 'arithmetic', arguments: '{"question":"2+2"}' } }]);
  });

  it('nobody listening is LLM_UNREACHABLE', async () => {
    const e = await llmError(chatCompletion({ ...s, url: 'http://127.0.0.1:1/v1' }, { messages: [{ role: 'user', content: 'x' }] }));
    expect(e.code).to.equal('LLM_UNREACHABLE');
  });
});
