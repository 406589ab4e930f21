// Which content contract applies to an envelope (seed contract §2), derived from the one
// declaration of every message kind (message-kinds.ts).
import { MESSAGE_KINDS, type MessageKind } from './message-kinds.js';
import type { Performative } from './types.gen.js';

export type ContentKind = MessageKind;
export const CONTENT_KINDS: readonly ContentKind[] = MESSAGE_KINDS;

export type ContentKindResult =
  | { readonly status: 'ok'; readonly kind: ContentKind }
  /** content.type names no known kind, or no untyped shape fits: answer UNSUPPORTED_CONTENT. */
  | { readonly status: 'unsupported'; readonly detail: string }
  /** A known kind in a performative it may not travel in: answer PERFORMATIVE_MISMATCH. */
  | { readonly status: 'mismatch'; readonly kind: ContentKind; readonly detail: string }
  /** content.type is present but not a string: answer SCHEMA_VIOLATION. */
  | { readonly status: 'invalid'; readonly detail: string };

/** Content-kind resolution over one table of declarations (contentKinds(MESSAGE_KINDS) in production). */
export interface ContentKindResolver {
  byName(kind: string): ContentKind | undefined;
  resolve(performative: Performative, content: Record<string, unknown>): ContentKindResult;
}

function mismatch(kind: ContentKind, performative: Performative): ContentKindResult {
  const allowed = kind.performatives.join(' | ');
  return { status: 'mismatch', kind, detail: `${kind.kind} travels in ${allowed}, not ${performative}` };
}

/**
 * Derives the resolution from `kinds`: a kind not in the table is UNSUPPORTED_CONTENT (fail
 * closed). Production uses MESSAGE_KINDS only; the recipe's test derives one with its own row.
 */
export function contentKinds(kinds: readonly MessageKind[]): ContentKindResolver {
  const byKind = new Map(kinds.map((k) => [k.kind, k]));
  // Keyed shapes first so QUERY-REF {need} is tried before any catch-all for the same performative.
  const untyped = kinds.filter((k) => k.untyped !== undefined)
    .sort((a, b) => Number(b.untyped?.key !== undefined) - Number(a.untyped?.key !== undefined));
  return {
    byName: (kind) => byKind.get(kind),
    /** Decides the content kind by content.type when present, else by performative and shape. */
    resolve(performative, content) {
      if ('type' in content) {
        const type = content.type;
        if (typeof type !== 'string') return { status: 'invalid', detail: 'content.type must be a string' };
        const kind = byKind.get(type);
        if (kind === undefined) return { status: 'unsupported', detail: `unknown content type ${JSON.stringify(type.slice(0, 100))}` };
        return kind.performatives.includes(performative) ? { status: 'ok', kind } : mismatch(kind, performative);
      }
      const fits = (k: ContentKind): boolean => k.untyped?.key === undefined || k.untyped.key in content;
      const match = untyped.find((k) => k.untyped?.performative === performative && fits(k));
      if (match !== undefined) return { status: 'ok', kind: match };
      // A recognisable keyed shape in the wrong performative, e.g. REQUEST {candidates: […]}.
      const misplaced = untyped.find((k) => k.untyped?.key !== undefined && k.untyped.key in content);
      if (misplaced !== undefined) return mismatch(misplaced, performative);
      return { status: 'unsupported', detail: `no content type given and no ${performative} content shape fits` };
    },
  };
}

/** The declared kinds' resolution: the only one agents use. */
export const DECLARED_CONTENT_KINDS: ContentKindResolver = contentKinds(CONTENT_KINDS);

export function contentKindByName(kind: string): ContentKind | undefined {
  return DECLARED_CONTENT_KINDS.byName(kind);
}

/** Decides the content kind by content.type when present, else by performative and shape. */
export function resolveContentKind(performative: Performative, content: Record<string, unknown>): ContentKindResult {
  return DECLARED_CONTENT_KINDS.resolve(performative, content);
}
