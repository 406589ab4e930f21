// npm run stop NAME: stops a supervised agent (a spawned specialist, or any other) and keeps it
// down; `npm start`'s supervisor does the stopping (shared/ops/agents.ts, the same code as
// the console's POST /api/agents/{name}/stop).
import { Command } from 'commander';
import { loadConfig } from '../shared/config/index.js';
import { stopAgent } from '../shared/ops/index.js';

const cfg = loadConfig();
new Command('stop')
  .description('Stop a supervised agent (e.g. a specialist started with npm run spawn) and keep it down')
  .argument('<name>', 'the agent name as npm run status shows it (e.g. specialist-words)')
  .action(async (name: string) => {
    const a = await stopAgent(cfg, name);
    console.log(`${a.name} stopped (was pid ${a.pid ?? '-'}; status ${a.status}); the Registry drops it when its lease ends`);
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`stop: ${err.message}`);
    process.exit(1);
  });
