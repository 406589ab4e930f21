// npm run ledger -- credit DID AMOUNT | burn DID AMOUNT | list
// The operator's side of the local OAPP ledger (oacop-rfc §6.2): credit an identity, burn for it
// (prints the txId to put into proofOfBurn), and list balances and burns.
import { Command, InvalidArgumentError } from 'commander';
import { ledgerDbFile } from '../shared/calendar/config.js';
import { Ledger } from '../shared/calendar/index.js';
import { loadConfig } from '../shared/config/index.js';

const cfg = loadConfig();
const program = new Command('ledger').description('Credit, burn and list OAP credits (proofOfBurn)');

const amount = (v: string): number => {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive whole number');
  return n;
};

function withLedger<T>(fn: (l: Ledger) => T): T {
  const l = new Ledger(ledgerDbFile(cfg));
  try {
    return fn(l);
  } finally {
    l.close();
  }
}

program.command('credit <did> <amount>').description('add credits to a DID (or JID)')
  .action((did: string, n: string) => {
    const balance = withLedger((l) => l.credit(did, amount(n)));
    console.log(`${did}: balance ${balance}`);
  });

program.command('burn <did> <amount>').description('burn credits; prints the txId for proofOfBurn')
  .action((did: string, n: string) => {
    console.log(withLedger((l) => l.burn(did, amount(n))));
  });

program.command('list').description('balances and burns')
  .action(() => {
    const { accounts, burns } = withLedger((l) => l.list());
    for (const a of accounts) console.log(`${a.did}\tbalance ${a.balance}`);
    for (const b of burns) console.log(`${b.txId}\t${b.did}\t${b.amount}\t${b.consumedAt ? `used ${b.consumedAt} by ${b.consumedBy ?? '?'}` : 'unused'}`);
  });

program.parseAsync().catch((err: Error) => {
  console.error(`ledger: ${err.message}`);
  process.exit(1);
});
