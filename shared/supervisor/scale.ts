// Automatic spawning (issue "Skills, roles and spawning"): when every candidate for a question
// refused as busy, the Coordinator asks the supervisor (POST /scale {busy}) for one more
// specialist like them. The supervisor knows the role of every specialist it runs and the role's
// maxConcurrent: it starts `<role>-x<n>` with the same skills, or says why it will not.
import type { Role } from '../skills/index.js';
import type { ChildInfo } from './child.js';
import type { SpecialistDef } from './spec.js';

export type ScalePlan =
  | { action: 'spawn'; def: SpecialistDef; role: Role }
  /** An extra of that role is already starting: wait for it instead of starting another. */
  | { action: 'wait'; name: string }
  | { action: 'refuse'; code: 'NO_FITTING_ROLE' | 'AT_LIMIT'; detail: string };

const live = (c: ChildInfo) => c.kind === 'specialist' && c.status !== 'stopped' && c.status !== 'stopping';

export function planScale(children: readonly ChildInfo[], roles: ReadonlyMap<string, Role>, busy: readonly string[], idleAfterMs: number): ScalePlan {
  const atLimit: string[] = [];
  for (const name of busy) {
    const busyChild = children.find((c) => c.name === name && c.kind === 'specialist' && c.role);
    const role = busyChild?.role ? roles.get(busyChild.role) : undefined;
    if (!busyChild || !role) continue;
    const starting = children.find((c) => live(c) && c.extra && c.role === role.name && c.status === 'starting');
    if (starting) return { action: 'wait', name: starting.name };
    const running = children.filter((c) => live(c) && c.role === role.name).length;
    if (running >= role.maxConcurrent) {
      atLimit.push(`${role.name} (${running}/${role.maxConcurrent})`);
      continue;
    }
    let n = 1;
    while (children.some((c) => c.name === `specialist-${role.name}-x${n}`)) n += 1;
    return { action: 'spawn', role, def: { name: `${role.name}-x${n}`, experts: busyChild.experts ?? [], role: role.name, idleAfterMs, extra: true } };
  }
  if (atLimit.length > 0) return { action: 'refuse', code: 'AT_LIMIT', detail: `every fitting role runs its maxConcurrent specialists: ${atLimit.join(', ')}` };
  return { action: 'refuse', code: 'NO_FITTING_ROLE', detail: `none of ${busy.join(', ') || '(nobody)'} is a specialist this supervisor runs with a known role` };
}
