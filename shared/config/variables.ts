// Every PARLEY_* environment variable, declared once (issue "One house a newcomer can read" §2):
// its kind, its default and what it does. Code reads them only through shared/config/env.ts,
// which validates against this table (a bad value is a clear error at start, never a NaN delay);
// the README's configuration tables are generated from it (`npm run gen:config-docs`) and a unit
// test fails when code, table and README disagree.

export type VarKind = 'ms' | 'number' | 'port' | 'flag' | 'string' | 'enum' | 'list' | 'path' | 'url';

export interface VarSpec {
  kind: VarKind;
  /** The value when unset (flags: on/off); absent when none or computed (see `shown`). */
  default?: number | string | boolean;
  /** How the README shows a computed default. */
  shown?: string;
  /** 'enum': the allowed values. */
  values?: readonly string[];
  /** Lower bound for numbers (default 0 for counts; ms and ports must be positive unless min 0). */
  min?: number;
  integer?: boolean;
  doc: string;
  /** Set by Parley itself for its children, or by tests and the bench: README's second table. */
  internal?: true;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const EJABBERD_LOG_LEVELS = ['none', 'emergency', 'alert', 'critical', 'error', 'warning', 'notice', 'info', 'debug'] as const;

export const VARIABLES = {
  // The instance
  PARLEY_HOME: { kind: 'path', default: './.parley', doc: 'state: ejabberd config/spool/logs, secrets (0600), SQLite data, telemetry, agent logs' },
  PARLEY_DOMAIN: { kind: 'string', default: 'localhost', doc: 'XMPP domain; rooms live on `rooms.<domain>`' },
  PARLEY_C2S_PORT: { kind: 'port', default: 15222, doc: 'client port on 127.0.0.1 (away from a system ejabberd)' },
  PARLEY_COMPONENT_PORT: { kind: 'port', default: 15275, doc: 'XEP-0114 component port on 127.0.0.1 (`rooms.<domain>`)' },
  PARLEY_AGENTS_COMPONENT_PORT: { kind: 'port', shown: '15276 (component port + 1 when that moved)', doc: 'XEP-0114 component port on 127.0.0.1 for `agents.<domain>` (specialist hosts): its own listener, since ejabberd routes every host of a listener to whichever component logs in on it' },
  PARLEY_AGENTS_SHARDS: { kind: 'number', default: 1, min: 1, integer: true, doc: "host processes that share `agents.<domain>` (ejabberd's `domain_balancing`, `bare_destination`, `component_number` = this): each runs the same virtual agents (`--shard LABEL`) and serves those ejabberd routes to it; at most 1,000 (ejabberd's limit); `1`: one process per host name, no balancing (docs/architecture.md \"Scale-out\")" },
  PARLEY_CALENDARS_COMPONENT_PORT: { kind: 'port', shown: '15277 (component port + 2 when that moved)', doc: 'XEP-0114 component port on 127.0.0.1 for `calendars.<domain>` (the calendar host, `PARLEY_CALENDAR_HOST=1`): its own listener, like the agents one' },
  PARLEY_BIND_ADDRESS: { kind: 'enum', default: '127.0.0.1', values: ['127.0.0.1', '0.0.0.0'], doc: "ejabberd's client (c2s) listener address: `0.0.0.0` only inside a container (docker-compose.yml), where the other containers connect; the component port and HTTP API stay on 127.0.0.1" },
  PARLEY_XMPP_HOST: { kind: 'string', default: '127.0.0.1', doc: "where agents connect to ejabberd's client port: loopback, or the operator's host for agents that joined from another one (`npm run join`)" },
  PARLEY_HTTP_PORT: { kind: 'port', default: 15280, doc: "ejabberd's HTTP API on 127.0.0.1 (admin only)" },
  PARLEY_DIST_PORT: { kind: 'port', shown: '15370 (c2s port + 148 when that moved)', doc: 'Erlang distribution (no epmd)' },
  PARLEY_EJABBERD_NODES: { kind: 'number', default: 1, min: 1, integer: true, doc: 'ejabberd nodes joined in one cluster (`join_cluster`, Mnesia replication); node *i* listens on every port + (i − 1) × the port step, agents fail over between them (docs/cluster.md)' },
  PARLEY_RETURN_HOME_MS: { kind: 'number', default: 30000, min: 0, integer: true, doc: 'in a cluster, an agent that failed over checks about this often (ms) whether its own node is back, and moves there after a quiet quarter of it, by XEP-0198 resumption; a component connection (rooms, an unsharded specialist host, the calendar host) moves to node 1 make-before-break; `0`: they stay (docs/cluster.md)' },
  PARLEY_EJABBERD_PORT_STEP: { kind: 'number', default: 100, min: 1, integer: true, doc: "how far apart the cluster nodes' client, component and HTTP ports are" },
  PARLEY_CLUSTER_HOSTS: { kind: 'enum', default: 'auto', values: ['auto', 'netns', 'loopback'], doc: "how the cluster's nodes are kept apart as separate hosts: `auto` puts node *i* > 1 in a network namespace of its own where the sandbox permits (root, iproute2), else on a loopback address; `netns` fails rather than fall back; `loopback` never makes namespaces (docs/cluster.md)" },
  PARLEY_MAM: { kind: 'flag', default: false, doc: '`1` turns on message archiving (slow under agent load)' },
  PARLEY_OFFLINE_LIMIT: { kind: 'number', default: 100000, min: 1, integer: true, doc: "messages ejabberd keeps per offline account" },
  PARLEY_EJABBERD_LOGLEVEL: { kind: 'enum', default: 'warning', values: EJABBERD_LOG_LEVELS, doc: "ejabberd's log level" },
  PARLEY_EJABBERDCTL: { kind: 'path', default: '/usr/sbin/ejabberdctl', doc: "Debian's ejabberdctl" },
  PARLEY_LOG_LEVEL: { kind: 'enum', default: 'info', values: LOG_LEVELS, doc: "agents' log level (pino)" },
  PARLEY_EXPOSE_ADDRESS: { kind: 'string', shown: 'none (loopback only)', doc: "an IP address to expose people's client port on, TLS required (e.g. `0.0.0.0`); the agents stay on loopback" },
  PARLEY_EXPOSE_C2S_PORT: { kind: 'port', default: 5222, doc: 'exposed client port, STARTTLS required' },
  PARLEY_EXPOSE_TLS_PORT: { kind: 'port', default: 5223, doc: 'exposed client port, direct TLS (XEP-0368)' },
  PARLEY_EXPOSE_WS_PORT: { kind: 'port', default: 5443, doc: 'exposed XMPP over WebSocket (`wss://…/ws`), for the web chat on another device' },
  PARLEY_TLS_CERT: { kind: 'path', shown: 'generated', doc: "the operator's certificate chain (PEM) for the exposed ports; unset: a self-signed one is generated (fingerprint: `npm run ejabberd -- admin`)" },
  PARLEY_TLS_KEY: { kind: 'path', shown: 'generated', doc: 'its private key (PEM)' },
  PARLEY_RESOURCE: { kind: 'string', default: 'parley', doc: "the agents' fixed XMPP resource: a restarted agent takes over its old session and the messages queued for it" },
  // The seed contract's exchange
  PARLEY_AGREE_TIMEOUT_MS: { kind: 'ms', default: 3000, doc: 'seed contract §3: AGREE within this long' },
  PARLEY_RESULT_TIMEOUT_MS: { kind: 'ms', default: 30000, doc: 'seed contract §3: RESULT within this long' },
  PARLEY_REGISTRY_TIMEOUT_MS: { kind: 'ms', default: 3000, doc: "how long the Coordinator waits for the DF's candidates" },
  PARLEY_KB_TIMEOUT_MS: { kind: 'ms', default: 2000, doc: 'how long the Coordinator waits for the KB before KB_UNAVAILABLE' },
  PARLEY_LEASE_MS: { kind: 'ms', default: 15000, doc: 'Registry lease: a specialist silent this long is dropped' },
  PARLEY_HEARTBEAT_MS: { kind: 'ms', shown: 'lease / 3', doc: 'heartbeat period of registered agents' },
  PARLEY_OACOP_TIMEOUT_MS: { kind: 'ms', default: 5000, doc: 'how long the Coordinator waits for a calendar or room agent' },
  // Specialists and scaling
  PARLEY_SPECIALISTS: { kind: 'string', default: 'math:arithmetic,time:time,words@researcher:define+text_stats', doc: 'the specialists `npm start` runs: `name[@role]:skill+skill,…` (words: definitions from WordNet and text statistics)' },
  PARLEY_SPECIALIST_CONCURRENCY: { kind: 'number', default: 8, min: 1, integer: true, doc: 'skill jobs running at once per specialist' },
  PARLEY_SPECIALIST_AGREE_AFTER_MS: { kind: 'number', default: 250, min: 0, integer: true, doc: 'issue 15: how long a specialist holds its AGREE for a skill still running; an answer ready sooner goes out alone (FIPA SC00026: the agree is optional when the action is quick), two signed envelopes fewer per quick question. `0`: AGREE at once. Keep it below the Coordinator\'s AGREE timeout' },
  PARLEY_SPECIALIST_QUEUE: { kind: 'number', shown: '2 × concurrency', min: 0, integer: true, doc: 'jobs a specialist accepts beyond that, waiting for a worker; past it: REFUSE `busy` (also `--queue`)' },
  PARLEY_SPECIALIST_COMPUTE_MS: { kind: 'ms', default: 10000, doc: 'a skill job running longer ends in FAILURE TIMEOUT (also `--compute-timeout-ms`)' },
  PARLEY_SPECIALIST_COST: { kind: 'string', shown: '1', doc: 'offer cost, or per expert `2,time=0.5` (also `--cost`)' },
  PARLEY_SPECIALIST_ETA_MS: { kind: 'string', shown: '100', doc: 'offer eta, or per expert (also `--eta-ms`)' },
  PARLEY_SPECIALIST_OFFER_TTL_MS: { kind: 'string', shown: '5000', doc: 'how long an offer may be accepted, or per expert (also `--ttl-ms`)' },
  PARLEY_REGISTER_BATCH: { kind: 'flag', default: true, doc: "`0`: a host's virtual agents register one REGISTER each, not in REGISTER_MANY batches of their signed REGISTERs (issue 14 §3)" },
  PARLEY_VIRTUAL_AGENT_SLOTS: { kind: 'number', default: 2, min: 1, integer: true, doc: 'jobs one virtual specialist of a host (`npm run spawn -- specialist --count N --host NAME`) accepts at once; the host shares one skill pool' },
  PARLEY_SPECIALIST_MAX_OFFERS: { kind: 'number', shown: '16 × concurrency', min: 1, integer: true, doc: 'open offers a specialist holds at once' },
  PARLEY_A2A_TIMEOUT_MS: { kind: 'ms', default: 20000, doc: "how long a specialist's delegation through the Coordinator may take" },
  PARLEY_SKILLS_WATCH: { kind: 'flag', default: true, doc: '`0`: specialists do not reload skills when their files change' },
  PARLEY_AUTOSCALE: { kind: 'flag', default: true, doc: '`0`: the Coordinator never asks the supervisor for more specialists when all are busy' },
  PARLEY_SPAWN_IDLE_MS: { kind: 'ms', default: 60000, doc: 'an automatically started specialist stops after this long without work' },
  PARLEY_SCALE_TIMEOUT_MS: { kind: 'ms', default: 20000, doc: 'how long the Coordinator waits for a scaled-up specialist' },
  PARLEY_STOP_GRACE_MS: { kind: 'ms', default: 5000, doc: 'how long the supervisor waits for a stopping agent before SIGKILL; an agent whose own shutdown takes longer exits (code 1)' },
  PARLEY_CANDIDATE_CACHE_MS: { kind: 'ms', default: 250, min: 0, doc: "how long the Coordinator reuses the DF's candidates for a need before one question asks again (the others keep the list meanwhile); the Registry's DF_CHANGED clears them at once (`0`: ask every time)" },
  PARLEY_BUSY_RETRY_MS: { kind: 'ms', default: 20, min: 0, doc: 'every candidate busy and no scale-up: the first wait before asking again (`0` = NO_CANDIDATE at once)' },
  PARLEY_BUSY_RETRY_MAX_MS: { kind: 'ms', default: 1000, min: 0, doc: 'the longest such wait (doubling, jittered), within the RESULT timeout in all' },
  // Agora negotiation
  PARLEY_NEGOTIATE: { kind: 'enum', default: 'auto', values: ['auto', 'always', 'never'], doc: 'Agora negotiated flow: `auto` when the DF lists ≥ 2 specialists, `always`, `never`' },
  PARLEY_CFP_TIMEOUT_MS: { kind: 'ms', shown: 'the AGREE timeout', doc: 'how long offers are collected' },
  PARLEY_AGORA_MAX_COST: { kind: 'number', shown: 'none', min: 0, doc: 'the budget (`max_cost`) of every negotiated request' },
  PARLEY_CFP_MAX_CANDIDATES: { kind: 'number', default: 8, min: 1, integer: true, doc: "CFPs per negotiated question: the DF's first N candidates (least recently used first), not all of a host's hundreds of virtual agents" },
  PARLEY_OFFER_MARGIN_MS: { kind: 'ms', default: 20, min: 0, doc: "an offer counts as expired this long before its ttl ends (the ACCEPT's trip)" },
  PARLEY_WINNER_MEMORY: { kind: 'flag', default: false, doc: '`1`, `auto` negotiation: while the winning offer is valid, questions of the same shape go straight to the winner (`npm run bench` turns it on)' },
  // LLM-backed specialists (optional, off by default; docs/llm.md)
  PARLEY_LLM_URL: { kind: 'url', shown: 'off', doc: 'an OpenAI-compatible chat-completions endpoint (e.g. `http://127.0.0.1:11434/v1` for Ollama): turns on the `llm` skill and lets `plan` ask the model to split requests' },
  PARLEY_LLM_MODEL: { kind: 'string', shown: 'required with the URL', doc: 'the model name sent with every request (e.g. `llama3.1:8b`); shown in the trace of every answer it gave' },
  PARLEY_LLM_KEY: { kind: 'string', shown: 'none', doc: 'the API key (Bearer), if the endpoint wants one: stored in `$PARLEY_HOME/secrets/llm.key` (0600) at first start, never logged, never within a skill\'s reach' },
  PARLEY_LLM_TIMEOUT_MS: { kind: 'ms', default: 20000, doc: 'the longest wait for the model server\'s first byte or between two chunks of its answer (`LLM_TIMEOUT`)' },
  PARLEY_LLM_STREAM: { kind: 'flag', default: true, doc: '`0`: ask for the whole answer at once instead of a stream (`stream: true`)' },
  // People
  PARLEY_PRESENTER_ALLOW: { kind: 'list', shown: 'the domain', doc: 'who may chat with the Presenter (domains or bare JIDs, comma-separated)' },
  PARLEY_PRESENTER_IDLE_MS: { kind: 'ms', default: 1800000, doc: "a person's conversation id is renewed after this much silence" },
  PARLEY_PRESENTER_TIMEOUT_MS: { kind: 'ms', default: 120000, doc: 'how long a person waits before "no answer"' },
  PARLEY_PRESENTER_PROGRESS_MS: { kind: 'ms', default: 5000, doc: 'a person waiting this long is told the work is under way' },
  PARLEY_CHAT_RATE_PER_S: { kind: 'number', default: 5, min: 0.01, doc: "a person's lines per second the Presenter takes (token bucket); beyond it lines are set aside and the person is told to slow down" },
  PARLEY_CHAT_BURST: { kind: 'number', default: 20, min: 1, integer: true, doc: 'how many lines a person may send at once before that rate applies' },
  PARLEY_CHAT_IN_FLIGHT: { kind: 'number', default: 20, min: 1, integer: true, doc: "one person's questions under way at once; the rest wait in that person's queue" },
  PARLEY_CHAT_QUEUE: { kind: 'number', default: 20, min: 0, integer: true, doc: "lines of one person waiting for their turn; beyond it lines are set aside (the person is told)" },
  PARLEY_CHAT_IN_FLIGHT_TOTAL: { kind: 'number', default: 200, min: 1, integer: true, doc: "everyone's questions under way at once, started round-robin between people" },
  PARLEY_FILES_PORT: { kind: 'number', default: 0, min: 0, integer: true, doc: "loopback port of the Presenter's own attachment (.ics) server, used when ejabberd's HTTP upload fails; `0`: any free port" },
  PARLEY_CALENDAR_HOST: { kind: 'flag', default: false, doc: "`1`: `npm start` serves every person's calendar as a virtual agent `person@calendars.<domain>` of one calendar host process (`agents/calendar/host.ts`, on `PARLEY_CALENDARS_COMPONENT_PORT`) instead of one calendar process per person" },
  PARLEY_CALENDAR_HANDLE_MS: { kind: 'ms', default: 10000, doc: 'how long a calendar or room agent may take for one request' },
  // Coordination Sessions (OAP)
  PARLEY_SESSION_QUOTA: { kind: 'number', default: 20, min: 1, integer: true, doc: 'open Coordination Sessions per convener (a person\'s chat sessions: per person)' },
  PARLEY_SESSIONS_TIMEOUT_MS: { kind: 'ms', default: 15000, doc: 'how long the Coordinator waits for the sessions agent to answer a person\'s `session …` line (a restart fits); a line it could not apply by then is not applied later' },
  PARLEY_SESSION_MAX_PARTICIPANTS: { kind: 'number', default: 16, min: 1, integer: true, doc: 'participants per session' },
  PARLEY_SESSION_MAX_HOURS: { kind: 'number', default: 720, min: 1, integer: true, doc: "a session's longest lifetime" },
  // Trust and durability
  PARLEY_SIGNING: { kind: 'flag', default: true, doc: '`0` turns envelope signing and verification off (benchmark comparisons only)' },
  PARLEY_ED25519: { kind: 'enum', default: 'auto', values: ['auto', 'node'], doc: "the Ed25519 code envelopes are signed and verified with: `auto` libsodium (sodium-native's prebuilt binding, ≈ 1.7× node:crypto here) where it loads, else node:crypto; `node` node:crypto (OpenSSL) always (benchmark comparisons)" },
  PARLEY_HOST_SEMI_SPACE_MB: { kind: 'number', default: 4, min: 0, integer: true, doc: "the largest V8 young-generation semi-space (MB) of a host of virtual agents (specialist and calendar hosts): smaller keeps RSS per agent down (44 kB at 1,000 agents with 4, 62–65 kB with V8's own 16); `0`: V8's default" },
  PARLEY_SM_ACK_DELAY_MS: { kind: 'ms', default: 20, min: 0, doc: "how long an agent waits before it answers ejabberd's XEP-0198 ack request (<r/>), so that one answer covers the stanzas of that window instead of one write per stanza; the answer counts only what was handled (`0`: at once)" },
  PARLEY_GROUP_COMMIT: { kind: 'flag', default: true, doc: '`0`: one SQLite transaction per inbound envelope instead of one per burst of stanzas, acknowledged and answered after its commit (benchmark comparisons; docs/runtime.md "Group commit")' },
  PARLEY_DURABLE: { kind: 'flag', default: true, doc: '`0` turns off the Presenter\'s and Coordinator\'s SQLite snapshots (benchmark comparisons only)' },
  PARLEY_RATE_LIMIT_PER_S: { kind: 'number', default: 2000, min: 0, doc: 'envelopes per second per sender DID, every agent; over it: REFUSE `RATE_LIMITED` (`0` = off)' },
  PARLEY_RATE_LIMIT_BURST: { kind: 'number', shown: '2 × rate', min: 1, doc: 'the burst of that token bucket' },
  PARLEY_OFFLINE_MAX_AGE_MS: { kind: 'ms', default: 3600000, min: 0, doc: 'the oldest envelope an agent accepts after it was away (signed during its absence, held by ejabberd); never judged by a delay stamp' },
  PARLEY_OFFLINE_GRACE_MS: { kind: 'ms', default: 120000, min: 0, doc: 'how long after an agent is back such held envelopes are still accepted' },
  PARLEY_OPERATOR_DID: { kind: 'string', shown: 'none', doc: "the operator's DID on a host without the operator key (agents that joined from elsewhere)" },
  // The console
  PARLEY_CONSOLE: { kind: 'flag', default: true, doc: '`0`: `npm start` runs no console' },
  PARLEY_CONSOLE_PORT: { kind: 'port', shown: '15290 (c2s port + 68 when that moved)', doc: "the console's HTTP port" },
  PARLEY_CONSOLE_BIND: { kind: 'string', default: '127.0.0.1', doc: "the console's bind address" },
  PARLEY_CONSOLE_NICE: { kind: 'number', default: 10, min: -20, integer: true, doc: "the console process's nice value once it is online (it never slows the agents)" },
  PARLEY_CONSOLE_SESSION_TTL_MS: { kind: 'ms', default: 43200000, doc: 'how long a browser login lasts' },
  PARLEY_CONSOLE_RETENTION_DAYS: { kind: 'number', default: 7, min: 0, doc: 'telemetry older than this is deleted (`0` keeps all)' },
  PARLEY_OTLP_URL: { kind: 'url', shown: 'off', doc: 'OTLP/HTTP traces endpoint (e.g. `http://127.0.0.1:4318/v1/traces`): every conversation as an OpenTelemetry trace' },
  // Set by Parley for its children, or by the tests and the bench
  PARLEY_CHILD_CA_CERTS: { kind: 'path', internal: true, doc: "`npm start` (scripts/start.sh) moves `NODE_EXTRA_CA_CERTS` here, so the supervisor starts without decoding it (≈ 85 ms of CPU); the supervisor hands it back, as `NODE_EXTRA_CA_CERTS`, to the children that may open TLS" },
  PARLEY_SPECIALIST_NAME: { kind: 'string', default: 'general', internal: true, doc: "a specialist process's name (`--name`)" },
  PARLEY_SPECIALIST_ROLE: { kind: 'string', internal: true, doc: "a specialist process's role (`--role`)" },
  PARLEY_SPECIALIST_SKILLS: { kind: 'string', internal: true, doc: "a specialist process's skills (`--skills`)" },
  PARLEY_SPECIALIST_EXPERTS: { kind: 'string', internal: true, doc: 'alias of PARLEY_SPECIALIST_SKILLS' },
  PARLEY_CALENDAR_PERSON: { kind: 'string', internal: true, doc: "a calendar process's person (`--person`)" },
  PARLEY_AGENT_BUNDLES: { kind: 'flag', default: true, doc: "`0`: the supervisor starts dist/agents/<role>/main.js even where `npm run bundle` left a fresh single-file agent in dist/bundle/, and `npm start` runs the supervisor from its modules, not its bundle" },
  PARLEY_SUPERVISOR_AGENT_SCRIPT: { kind: 'path', internal: true, doc: 'tests: the script the supervisor runs for every agent' },
  PARLEY_WORDNET_DICT: { kind: 'path', internal: true, doc: "tests: the `define` skill's WordNet directory" },
  PARLEY_BENCH_AGENT_NODE_ARGS: { kind: 'string', internal: true, doc: "bench: extra node arguments for the agents (e.g. `--cpu-prof`)" },
  PARLEY_BENCH_CALENDARS: { kind: 'number', internal: true, min: 2, integer: true, doc: 'bench: virtual calendars of the calendars-scale host (default 1000)' },
  PARLEY_BENCH_AGENTS: { kind: 'number', internal: true, min: 2, integer: true, doc: 'bench: virtual specialists of the agents-scale host (default 1000)' },
  PARLEY_BENCH_QUESTIONS: { kind: 'number', internal: true, min: 0, integer: true, doc: 'bench agents-scale: questions asked of the virtual agents in turn, 100 in flight (default 2000; `0` skips them)' },
  PARLEY_BENCH_BROWSER: { kind: 'flag', internal: true, default: true, doc: 'bench: `0` runs the console without a browser watching (to tell their costs apart)' },
  PARLEY_BENCH_PEOPLE: { kind: 'number', internal: true, min: 1, integer: true, doc: 'bench: people asking at once' },
  PARLEY_BENCH_SPECIALISTS: { kind: 'string', internal: true, doc: 'bench: the specialists of the full flow' },
  PARLEY_CRASH_MATRIX: { kind: 'flag', default: false, internal: true, doc: 'tests: `1` runs every row of the crash matrix (`npm run test:crash`); otherwise the suite runs a few' },
  PARLEY_CRASH_ONLY: { kind: 'list', internal: true, doc: 'tests: the crash matrix cases to run' },
  PARLEY_KEEP_TEST_HOME: { kind: 'flag', default: false, internal: true, doc: "tests: keep the test instances' state directories" },
} as const satisfies Record<string, VarSpec>;

export type VarName = keyof typeof VARIABLES;

export function isDeclared(name: string): name is VarName {
  return Object.prototype.hasOwnProperty.call(VARIABLES, name);
}
