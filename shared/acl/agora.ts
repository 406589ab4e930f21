// Agora v1.0 (§3-5) inside FIPA-ACL: payloads travel as content of contract-net performatives
// (SC00029) and Agora's ERROR codes map onto the one error catalogue (errors.ts). The table in
// docs/acl_contract.md ("Agora ↔ FIPA") is agoraTable() verbatim (a unit test keeps them equal).
import type { AgoraErrorContent } from '../contracts/index.js';
import { type AgoraCode, ERRORS, type ErrorCode } from './errors.js';

/** The capability URI of ASK_EXPERT in Agora terms (§4 REQUEST.resource). */
export const ASK_EXPERT_RESOURCE = 'parley:ask-expert:v1';

/** Agora §5 status names. */
export const AGORA_STATUS: Record<AgoraCode, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 404: 'Not Found',
  408: 'Timeout', 429: 'Too Many Requests', 500: 'Internal Error', 503: 'Unavailable',
};

/** REFUSE/FAILURE content carrying an Agora ERROR; the FIPA reason is the catalogue code. */
export function agoraError(code: ErrorCode, message?: string, requestId?: string): AgoraErrorContent {
  return {
    type: 'AGORA_ERROR',
    ...(requestId !== undefined ? { request_id: requestId } : {}),
    code: ERRORS[code].agora,
    message: (message ?? ERRORS[code].description).slice(0, 2000),
    reason: code,
  };
}

/** Catalogue codes per Agora status, in catalogue order. */
export function reasonsFor(code: AgoraCode): ErrorCode[] {
  return (Object.keys(ERRORS) as ErrorCode[]).filter((c) => ERRORS[c].agora === code);
}

/** The one mapping table, Agora code → FIPA performative and reasons (markdown). */
export function agoraTable(): string {
  const rows = ['| Agora | status | FIPA performative: reasons |', '|---|---|---|'];
  for (const code of Object.keys(AGORA_STATUS).map(Number) as AgoraCode[]) {
    const byPerf = new Map<string, string[]>();
    for (const r of reasonsFor(code)) byPerf.set(ERRORS[r].performative, [...(byPerf.get(ERRORS[r].performative) ?? []), r]);
    const cells = [...byPerf].map(([p, rs]) => `${p}: ${rs.map((r) => `\`${r}\``).join(', ')}`).join('; ');
    rows.push(`| ${code} | ${AGORA_STATUS[code]} | ${cells} |`);
  }
  return rows.join('\n');
}
