// npm run console: where the console of this PARLEY_HOME listens and the admin token to log in
// with (created on first use in $PARLEY_HOME/secrets/console-token, 0600). `--json` for scripts.
import { Command } from 'commander';
import { loadConfig } from '../shared/config/index.js';
import { consoleEnabled, consoleSettings } from '../shared/console/settings.js';
import { ensureConsoleToken } from '../shared/console/index.js';
import { portOpen } from '../shared/ejabberd/index.js';

const opts = new Command('console').description('Print the console URL and its admin token').option('--json', 'print JSON').parse().opts<{ json?: boolean }>();
const cfg = loadConfig();
const s = consoleSettings(cfg);
const token = ensureConsoleToken(s.tokenFile);
const host = s.bind === '0.0.0.0' || s.bind === '::' ? '127.0.0.1' : s.bind;
const url = `http://${host.includes(':') ? `[${host}]` : host}:${s.port}/`;
const up = await portOpen(s.port, host);
if (opts.json) {
  console.log(JSON.stringify({ url, token, listening: up }));
} else {
  console.log(`console: ${url}${up ? '' : consoleEnabled() ? '  (not listening: start Parley with npm start)' : '  (PARLEY_CONSOLE=0: npm start does not start it)'}`);
  console.log(`token:   ${token}`);
  console.log(`Open the URL and paste the token once (the browser keeps a session cookie); API clients send "Authorization: Bearer <token>". OpenAPI: ${url}api/openapi.json`);
}
