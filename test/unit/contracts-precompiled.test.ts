// The contracts' validators compiled ahead of time (shared/contracts/precompiled.ts) are a cache:
// used only when built from exactly these contracts, rebuilt when a contract changes, and they
// judge every message exactly as ajv compiling at start-up does.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeEnvelope, newConversationId } from '../../shared/acl/index.js';
import { contracts, findContractsDir, loadContracts, validateEnvelope } from '../../shared/contracts/index.js';

describe('contracts [precompiled] validators compiled ahead of time', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-precompiled-'));
    fs.cpSync(findContractsDir(), path.join(dir, 'contracts'), { recursive: true });
    file = path.join(dir, 'validators.gen.cjs');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the module on the first load and uses it on the next, and only while the contracts match', () => {
    const first = loadContracts(path.join(dir, 'contracts'), { precompiled: file });
    expect(fs.existsSync(file)).to.equal(true);
    expect(first.validator('envelope')({})).to.equal(false);

    // Prove the second load takes the file and not a compile: an envelope check that passes everything.
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('exports["https://parley.local/contracts/envelope.json"] = ', 'exports["https://parley.local/contracts/envelope.json"] = () => true; const unused = '));
    expect(loadContracts(path.join(dir, 'contracts'), { precompiled: file }).validator('envelope')({})).to.equal(true);

    // A changed contract changes the fingerprint: the planted module is ignored and replaced.
    const common = path.join(dir, 'contracts', 'common.json');
    const schema = JSON.parse(fs.readFileSync(common, 'utf8')) as { description?: string };
    fs.writeFileSync(common, JSON.stringify({ ...schema, description: `${schema.description ?? ''} (edited)` }));
    const edited = loadContracts(path.join(dir, 'contracts'), { precompiled: file });
    expect(edited.validator('envelope')({})).to.equal(false);
    expect(fs.readFileSync(file, 'utf8')).not.to.include('() => true');
    expect(loadContracts(path.join(dir, 'contracts'), { precompiled: file }).validator('envelope')({})).to.equal(false);
  });

  it('a module that is not a module (truncated, garbage) is compiled over', () => {
    fs.writeFileSync(file, 'exports.x = ');
    expect(loadContracts(path.join(dir, 'contracts'), { precompiled: file }).validator('envelope')({})).to.equal(false);
    expect(fs.readFileSync(file, 'utf8').length).to.be.greaterThan(10_000);
  });

  it('judges envelopes exactly as validators compiled at start-up: same verdicts, same errors', () => {
    const compiled = loadContracts(); // no cache: ajv compiles every contract now
    const good = makeEnvelope({
      performative: 'REQUEST', sender: 'Coordinator', receiver: 'Specialist', conversation_id: newConversationId(),
      content: { type: 'ASK_EXPERT', args: { question: '2+2?' }, context_ref: { session_id: 'sess-abc123' } },
    });
    const samples: unknown[] = [
      good,
      { ...good, performative: 'SHOUT' },
      { ...good, timestamp: 'yesterday' },
      { ...good, content: { type: 'ASK_EXPERT', args: {} } },
      { ...good, content: { type: 'ASK_EXPERT', args: { question: 7 }, extra: true } },
      { ...good, protocol: 'x'.repeat(10_000) },
      {},
    ];
    for (const raw of samples) {
      expect(validateEnvelope(raw, contracts())).to.deep.equal(validateEnvelope(raw, compiled));
    }
    expect(validateEnvelope(samples[0], contracts()).ok).to.equal(true);
    expect(validateEnvelope(samples[4], contracts())).to.include({ ok: false, code: 'SCHEMA_VIOLATION' });
  });
});
