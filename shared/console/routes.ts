// The console's JSON API (issue 13). Handlers only translate HTTP to the service layer
// (shared/ops/), which the CLIs call too; request bodies and queries are validated by fastify's
// ajv against the console-*.json contracts before a handler runs.
import type { FastifyInstance } from 'fastify';
import type { ParleyConfig } from '../config/index.js';
import type { MessageQuery, SkillUpload } from '../ops/index.js';
import { OpsError } from '../ops/errors.js';
import { contractId } from '../contracts/index.js';
import type { TelemetryFeed } from './feed.js';

// The service layer (the agent runtime, the skills catalogue with ajv, the sessions store, the
// trace analysis) is loaded by the first request that needs it, not at start-up, when every agent
// is starting on the same cores (issue 15); deps.prepareOps runs once before its first use. A
// failed import is retried by the next request.
type Ops = typeof import('../ops/index.js');
const loaded = new WeakMap<RouteDeps, Promise<Ops>>();
function ops(deps: RouteDeps): Promise<Ops> {
  let p = loaded.get(deps);
  if (!p) {
    p = import('../ops/index.js').then(async (o) => {
      await deps.prepareOps?.();
      return o;
    });
    p.catch(() => loaded.delete(deps));
    loaded.set(deps, p);
  }
  return p;
}

const ref = (name: string) => ({ $ref: contractId(name) });
const err = { '4xx': ref('console-error') };
const nameParam = { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 200 } } };
const idParam = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 200 } } };
const conversationsQuery = {
  type: 'object', additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 }, before: { type: 'number' }, people: { type: 'boolean', default: false } },
};

export interface RouteDeps {
  cfg: ParleyConfig;
  feed: TelemetryFeed;
  /** Runs once before the service layer is first used (the console process installs its RoleBook). */
  prepareOps?: () => Promise<void>;
}

/** The agents with their load from the last minute of telemetry; cached briefly (ejabberd is asked each time). */
export function agentsWithLoad(deps: RouteDeps) {
  let cache: { at: number; value: Promise<unknown> } | undefined;
  return () => {
    if (cache && Date.now() - cache.at < 500) return cache.value;
    const value = ops(deps).then((o) => o.agentSnapshot(deps.cfg)).then((snap) => {
      const rates = deps.feed.rates();
      return {
        supervisor: snap.supervisor,
        agents: snap.agents.map((a) => ({ ...a, load: rates.get(a.name) ?? { in_per_min: 0, out_per_min: 0, active_conversations: 0 } })),
        edges: deps.feed.edges(),
      };
    });
    cache = { at: Date.now(), value };
    return value;
  };
}

export function registerApi(app: FastifyInstance, deps: RouteDeps): void {
  const { cfg } = deps;
  const agents = agentsWithLoad(deps);
  app.get('/api/config', { schema: { summary: 'What the dashboard needs: the XMPP domain, the WebSocket endpoint and the Presenter', tags: ['console'] } }, () => ({
    domain: cfg.domain, websocket: `ws://127.0.0.1:${cfg.httpPort}/ws`, presenter: `presenter@${cfg.domain}`,
  }));

  app.get('/api/agents', { schema: { summary: 'Every agent: role, JID, DID, skills, supervisor state, presence, DF registration, load; edges = who sent to whom in the last minute', tags: ['agents'], response: { 200: { type: 'object', properties: { supervisor: { type: 'boolean' }, agents: { type: 'array', items: ref('console-agent') }, edges: { type: 'array', items: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' }, count: { type: 'integer' } } } } } } } } }, agents);
  app.post<{ Body: { name: string; role?: string; skills?: string[] } }>('/api/agents/spawn', { schema: { summary: 'Start one more specialist; answers once the Registry accepted it', tags: ['agents'], body: ref('console-spawn'), response: err } }, async (req, reply) => {
    const r = await (await ops(deps)).spawnSpecialist(cfg, { name: req.body.name, skills: req.body.skills ?? [], ...(req.body.role ? { role: req.body.role } : {}) });
    return reply.code(201).send(r);
  });
  app.post<{ Params: { name: string } }>('/api/agents/:name/stop', { schema: { summary: 'Stop a supervised agent and keep it down', tags: ['agents'], params: nameParam, response: err } }, async (req) => ({ agent: await (await ops(deps)).stopAgent(cfg, req.params.name) }));

  app.get('/api/skills', { schema: { summary: 'Every skill with its status, and every skill that was skipped and why', tags: ['skills'] } }, async () => (await ops(deps)).listSkills(cfg));
  app.get<{ Params: { name: string } }>('/api/skills/:name', { schema: { summary: 'One skill with its manifest and skill.json text', tags: ['skills'], params: nameParam, response: err } }, async (req) => (await ops(deps)).showSkill(cfg, req.params.name));
  app.post<{ Body: SkillUpload }>('/api/skills', { schema: { summary: 'Upload a skill (validated completely before anything is written)', tags: ['skills'], body: ref('console-skill-upload'), response: err } }, async (req, reply) => reply.code(201).send({ skill: await (await ops(deps)).installUpload(cfg, req.body) }));
  app.put<{ Params: { name: string }; Body: { skill_json: string } }>('/api/skills/:name', { schema: { summary: "Replace a user skill's skill.json (validated first)", tags: ['skills'], params: nameParam, body: ref('console-skill-update'), response: err } }, async (req) => ({ skill: (await ops(deps)).updateSkillJson(cfg, req.params.name, req.body.skill_json) }));
  app.delete<{ Params: { name: string } }>('/api/skills/:name', { schema: { summary: 'Delete a user skill', tags: ['skills'], params: nameParam, response: err } }, async (req) => {
    (await ops(deps)).removeSkill(cfg, req.params.name);
    return { removed: req.params.name };
  });
  app.post<{ Params: { name: string }; Body: { enabled?: boolean } | undefined }>('/api/skills/:name/toggle', { schema: { summary: 'Enable or disable a skill (absent: flip)', tags: ['skills'], params: nameParam, body: ref('console-skill-toggle'), response: err } }, async (req) => {
    const o = await ops(deps);
    const now = o.listSkills(cfg).skills.find((s) => s.name === req.params.name);
    if (!now) throw new OpsError(404, 'NO_SUCH_SKILL', `no skill named ${JSON.stringify(req.params.name)}`);
    return { skill: o.setSkillEnabled(cfg, req.params.name, req.body?.enabled ?? !now.enabled) };
  });

  app.get<{ Querystring: MessageQuery }>('/api/messages', { schema: { summary: 'Every envelope every agent sent or received, oldest first; filters and cursor paging', tags: ['messages'], querystring: ref('console-message-query'), response: err } }, async (req) => (await ops(deps)).queryMessages(cfg, { ...req.query, limit: req.query.limit ?? 100 }));
  app.get<{ Querystring: { limit?: number; before?: number; people?: boolean } }>('/api/conversations', { schema: { summary: 'Conversations, newest first, with person, outcome, duration and hops (people=true: only those a person took part in)', tags: ['messages'], querystring: conversationsQuery } }, async (req) => ({ conversations: (await ops(deps)).listConversations(cfg, { limit: req.query.limit ?? 50, people: req.query.people === true, ...(req.query.before !== undefined ? { before: req.query.before } : {}) }) }));
  app.get<{ Params: { id: string } }>('/api/conversations/:id', { schema: { summary: 'One conversation: envelopes in order, hop timings, signature checks, the trace invariants and its Mermaid sequence diagram', tags: ['messages'], params: idParam, response: err } }, async (req) => (await ops(deps)).analyseConversation(cfg, req.params.id));

  app.get('/api/sessions', { schema: { summary: 'Coordination Sessions', tags: ['data'] } }, async () => ({ sessions: (await ops(deps)).listSessions(cfg) }));
  app.get<{ Params: { id: string } }>('/api/sessions/:id', { schema: { summary: "A session: state, participants, turns and its hash chain's verdict", tags: ['data'], params: idParam, response: err } }, async (req) => (await ops(deps)).showSession(cfg, req.params.id));
  app.get('/api/meetings', { schema: { summary: "The Coordinator's meetings", tags: ['data'] } }, async () => ({ meetings: (await ops(deps)).meetings(cfg) }));
  app.get('/api/tasks', { schema: { summary: "The Coordinator's delegated tasks", tags: ['data'] } }, async () => ({ tasks: (await ops(deps)).tasks(cfg) }));
  app.get('/api/bookings', { schema: { summary: "Every calendar's booking threads", tags: ['data'] } }, async () => ({ bookings: (await ops(deps)).bookings(cfg) }));
  app.get('/api/directory', { schema: { summary: "The DF's registrations", tags: ['data'] } }, async () => ({ registrations: (await ops(deps)).directory(cfg) }));
}
