// The `enrol` service of docker-compose.yml (issue "Beyond one machine" §4): hands each replica of
// the `specialist` service one single-use join token, so that `docker compose up --scale
// specialist=N` needs no hand-copied token and no shared secrets volume. Each POST /token makes a
// new account specialist-c<random> and issues its token exactly as the operator would
// (`node dist/scripts/enrol-cli.js issue NAME --role specialist --ttl MIN`, run here with the
// operator's state directory); the specialist redeems it with `npm run join` like any other host.
//
// Trust (README "docker compose"): whoever can reach this port can enrol one specialist per token,
// up to --max in this process's life. It listens only on the compose project's network (it is not
// published), where only containers the operator started run — someone who can start containers
// there can already do anything on the host. Every issuance is logged (account, never the token),
// and `npm run enrol -- list|revoke` works on them like on any other enrolment.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { repoRoot } from '../shared/runtime/repo-root.js';

const run = promisify(execFile);
const int = (min: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`expected a whole number ≥ ${min}, got ${JSON.stringify(v)}`);
  return n;
};
const opts = new Command('enrol-dispenser')
  .description('Issue one single-use specialist join token per POST /token (docker-compose.yml only)')
  .option('--bind <address>', 'listen address (the compose network; never publish this port)', '0.0.0.0')
  .option('--port <port>', 'listen port', int(1), 15291)
  .option('--max <n>', 'tokens this process issues at most', int(1), 64)
  .option('--ttl <minutes>', 'token lifetime', int(1), 5)
  .parse()
  .opts<{ bind: string; port: number; max: number; ttl: number }>();

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify({ time: new Date().toISOString(), ...fields }));
let issued = 0;
let queue: Promise<unknown> = Promise.resolve();

/** One token, made one at a time (the enrolment record is a file the CLI rewrites). */
async function issue(): Promise<{ name: string; token: string }> {
  const name = `specialist-c${crypto.randomBytes(4).toString('hex')}`;
  const cli = path.join(repoRoot(), 'dist', 'scripts', 'enrol-cli.js');
  const { stdout } = await run(process.execPath, [cli, 'issue', name, '--role', 'specialist', '--ttl', String(opts.ttl)], { timeout: 60_000 });
  const token = stdout.split('\n').find((l) => l.startsWith('parley-join.v1.'));
  // Without a running ejabberd the CLI makes no account, and the token carries no password.
  if (!token || stdout.includes('ejabberd is not running')) throw new Error('ejabberd is not running: no account was made');
  return { name, token };
}

const server = http.createServer((req, res) => {
  const reply = (code: number, body: string) => {
    res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`${body}\n`);
  };
  if (req.url !== '/token') return reply(404, 'not found: POST /token');
  if (req.method !== 'POST') return reply(405, 'method not allowed: POST /token');
  if (issued >= opts.max) {
    log({ msg: 'refused', reason: 'max reached', max: opts.max });
    return reply(429, `this dispenser has issued its ${opts.max} tokens (--max); restart it or issue one with npm run enrol`);
  }
  issued += 1;
  const job = queue.then(issue);
  queue = job.catch(() => undefined);
  job.then(
    ({ name, token }) => {
      log({ msg: 'issued', account: name, ttl_min: opts.ttl, issued, max: opts.max });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name, token }));
    },
    (err: Error) => {
      issued -= 1;
      log({ msg: 'issue failed', reason: err.message.split('\n')[0] });
      reply(503, `could not issue a token: ${err.message.split('\n')[0]}`);
    },
  );
});
server.listen(opts.port, opts.bind, () => log({ msg: 'online', bind: opts.bind, port: opts.port, max: opts.max }));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
