// The skills catalogue as the model's tools (docs/llm.md): every enabled skill that answers
// questions itself becomes one function, its inputSchema the parameters. Left out: the
// delegation skills, skills that call others (plan) or the model (llm): the model's own loop
// already does what they do, and a tool that leads back to the model would loop.
import type { SkillDef } from './catalogue.js';
import { DEFAULT_INPUT_SCHEMA } from './manifest.js';
import type { ToolSpec } from '../llm/index.js';

const DELEGATION = new Set(['delegate_task', 'query_agents', 'broadcast_event']);

export function catalogueTools(skills: readonly SkillDef[]): ToolSpec[] {
  return skills
    .filter((s) => s.enabled && s.manifest.recognise && !DELEGATION.has(s.name))
    .filter((s) => !(s.manifest.uses ?? []).length && !s.manifest.capabilities?.llm && !(s.manifest.requires ?? []).length)
    .map((s) => {
      const example = s.manifest.examples?.[0];
      return {
        type: 'function' as const,
        function: {
          name: s.name,
          description: `${s.manifest.description}${example ? ` Example: ${JSON.stringify(example)}.` : ''}`.slice(0, 1000),
          parameters: (s.manifest.inputSchema ?? DEFAULT_INPUT_SCHEMA) as Record<string, unknown>,
        },
      };
    });
}
