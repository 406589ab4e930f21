// Inbound envelope validation, in pipeline order (docs/architecture.md "one pipeline"):
// envelope schema → performative → content size (seed contract §1: ≤ 64 kB) → content kind and
// content schema (seed contract §2). Returns a code from shared/acl/errors.ts, never throws.
import type { ErrorObject } from 'ajv';
import { contentByteSize, MAX_CONTENT_BYTES, type ErrorCode } from '../acl/index.js';
import { type ContentKind, type ContentKindResolver, DECLARED_CONTENT_KINDS } from './content-kinds.js';
import { contracts as defaultContracts, type Contracts } from './registry.js';
import type { Envelope, ValidationErrorItem } from './types.gen.js';

export type ValidationCode = Extract<ErrorCode,
  'INVALID_JSON' | 'SCHEMA_VIOLATION' | 'UNKNOWN_PERFORMATIVE' | 'CONTENT_TOO_LARGE'
  | 'UNSUPPORTED_CONTENT' | 'PERFORMATIVE_MISMATCH'>;

export type ValidationResult =
  | { ok: true; envelope: Envelope; kind: ContentKind }
  | {
      ok: false;
      code: ValidationCode;
      detail: string;
      errors: ValidationErrorItem[];
      /** Present when the header was valid and only the content failed: the reply can correlate. */
      envelope?: Envelope;
    };

/** At most this many ajv errors travel back to the peer. */
export const MAX_REPORTED_ERRORS = 10;

/** Compact, machine-readable ajv errors: instancePath, keyword, message. */
export function compactErrors(errors: readonly ErrorObject[] | null | undefined, prefix = ''): ValidationErrorItem[] {
  return (errors ?? []).slice(0, MAX_REPORTED_ERRORS).map((e) => ({
    instancePath: `${prefix}${e.instancePath}`.slice(0, 500),
    keyword: e.keyword,
    message: (e.message ?? 'is invalid').slice(0, 500),
  }));
}

function fail(code: ValidationCode, detail: string, errors: ValidationErrorItem[] = [], envelope?: Envelope): ValidationResult {
  return envelope === undefined ? { ok: false, code, detail, errors } : { ok: false, code, detail, errors, envelope };
}

/**
 * Validates an already-parsed message body against the envelope and content contracts. `kinds`
 * is the declared table in production; only the recipe's test passes another.
 */
export function validateEnvelope(raw: unknown, registry: Contracts = defaultContracts(), kinds: ContentKindResolver = DECLARED_CONTENT_KINDS): ValidationResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return fail('SCHEMA_VIOLATION', 'the message must be a JSON object (seed contract §1)',
      [{ instancePath: '', keyword: 'type', message: 'must be object' }]);
  }
  const checkEnvelope = registry.validator<Envelope>('envelope');
  if (!checkEnvelope(raw)) {
    const errors = checkEnvelope.errors ?? [];
    // An unknown performative is its own code: the peer speaks a dialect we do not.
    if (errors.some((e) => e.instancePath === '/performative' && e.keyword === 'enum')) {
      const p = String((raw as { performative?: unknown }).performative).slice(0, 100);
      return fail('UNKNOWN_PERFORMATIVE', `unknown performative ${JSON.stringify(p)}`, compactErrors(errors));
    }
    return fail('SCHEMA_VIOLATION', 'the envelope does not match contracts/envelope.json', compactErrors(errors));
  }
  const envelope = raw;

  const size = contentByteSize(envelope.content);
  if (size > MAX_CONTENT_BYTES) {
    return fail('CONTENT_TOO_LARGE', `content is ${size} bytes; the limit is ${MAX_CONTENT_BYTES}`,
      [{ instancePath: '/content', keyword: 'maxBytes', message: `must be at most ${MAX_CONTENT_BYTES} bytes` }], envelope);
  }

  const resolved = kinds.resolve(envelope.performative, envelope.content);
  switch (resolved.status) {
    case 'invalid':
      return fail('SCHEMA_VIOLATION', resolved.detail,
        [{ instancePath: '/content/type', keyword: 'type', message: 'must be string' }], envelope);
    case 'unsupported':
      return fail('UNSUPPORTED_CONTENT', resolved.detail, [], envelope);
    case 'mismatch':
      return fail('PERFORMATIVE_MISMATCH', resolved.detail, [], envelope);
    case 'ok':
      break;
  }

  const checkContent = registry.validator(resolved.kind.contract);
  if (!checkContent(envelope.content)) {
    return fail('SCHEMA_VIOLATION', `${resolved.kind.kind} content does not match contracts/${resolved.kind.contract}.json`,
      compactErrors(checkContent.errors, '/content'), envelope);
  }
  return { ok: true, envelope, kind: resolved.kind };
}

/** Parses a message body (stanza <body>) and validates it; bad JSON → INVALID_JSON. */
export function parseEnvelope(body: string, registry: Contracts = defaultContracts()): ValidationResult {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (err) {
    return fail('INVALID_JSON', `the body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500));
  }
  return validateEnvelope(raw, registry);
}
