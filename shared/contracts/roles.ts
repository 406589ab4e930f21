// Every role an authenticated address can have, listed once (issue 10 §2 "Role names are listed
// once"): the core agents' own accounts, enrolled agents (specialists, calendars), rooms (the rooms
// component), the operator's admin account, a person (any other account of this domain), and
// foreign (anything else). shared/runtime/names.ts decides which one an address is.
// Adding a role: docs/runtime.md "Adding a role".
export const ROLES = ['presenter', 'coordinator', 'registry', 'kb', 'sessions', 'specialist', 'calendar', 'room', 'admin', 'person', 'foreign'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The core agents: one process and one account each, the account named like the role
 * (`sessions@<domain>`), with the logical name their envelopes carry (seed contract §1). Provisioning
 * makes their accounts and pins their keys, the supervisor starts them in this order
 * (shared/supervisor/spec.ts), names.ts resolves them, ejabberd's `agents` ACL lists them.
 */
export const CORE_AGENTS = { registry: 'Registry', kb: 'KB', sessions: 'Sessions', coordinator: 'Coordinator', presenter: 'Presenter' } as const satisfies Partial<Record<Role, string>>;
export type CoreRole = keyof typeof CORE_AGENTS;
export const CORE_ROLES = Object.keys(CORE_AGENTS) as CoreRole[];

/** Roles the operator enrols; the core agents are pinned by provisioning, rooms by the component secret. */
export const ENROLLED_ROLES = ['specialist', 'calendar'] as const satisfies readonly Role[];
/** Roles that register with the DF and take work (ASK_EXPERT, OACoP); the Registry vouches for their bindings. */
export const WORKER_ROLES = ['specialist', 'calendar', 'room'] as const satisfies readonly Role[];
/** Addresses that are no agent: people (un-enrolled accounts included), the admin, other domains. */
export const NOT_AGENT_ROLES = ['person', 'admin', 'foreign'] as const satisfies readonly Role[];
