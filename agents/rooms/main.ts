// The Room agents (OACoP §8.2): `node dist/agents/rooms/main.js`, one XEP-0114 component process
// serving every room JID <name>@rooms.<domain> from $PARLEY_HOME/rooms.json. Each room is its own
// agent (ComponentHost): own pipeline identity room-<name>, router, telemetry, calendar
// (data/room-<name>.sqlite), DID, and Registry entry (capability ROOM, profile.room). Wiring only.
import { componentEndpoints, componentSecret } from '../../shared/ejabberd/index.js';
import path from 'node:path';
import { randomInt, randomUUID } from 'node:crypto';
import { fromPromise } from 'xstate';
import { ledgerDbFile } from '../../shared/calendar/config.js';
import { Ledger, CalendarStore } from '../../shared/calendar/index.js';
import { loadTunables, loadConfig, paths, envNumber, envString } from '../../shared/config/index.js';
import { ensureAgentIdentity } from '../../shared/identity/agent-identity.js';
import { pinnedDidsFile, installationRoster, TrustStore } from '../../shared/identity/index.js';
import { createLogger } from '../../shared/log/index.js';
import {
  offlineWindowFromEnv, onProcessEnd, replayLedgerFile, roomsDomain, Signing, signingEnabled, SqliteTelemetry, startUp,
  telemetryFile, useRoleBook,
} from '../../shared/runtime/index.js';
import { ComponentHost } from '../../shared/runtime/component-host.js';
import { registerWithDf } from '../../shared/runtime/registration.js';
import { ReplayLedger } from '../../shared/store/index.js';
import { componentTransport } from '../../shared/transport/component.js';
import { calendarExchangeMachine, type HandleInput } from '../../shared/oacop/index.js';
import { packageVersion } from '../../shared/runtime/repo-root.js';
import { loadRooms, type RoomDef } from './config.js';
import { RoomContext } from './context.js';
import { handleRoom, ROOM_KINDS, type RoomKind } from './service.js';
import { announce, tellSupervisor } from '../../shared/supervisor/ipc.js';

const config = loadConfig();
// Rooms are the component's (its secret); the senders' roles come from the operator's enrolments.
const roster = installationRoster(config.home);
useRoleBook(roster);
const tunables = loadTunables(process.env, config.domain);
const logger = createLogger('rooms');
const rooms = loadRooms(config.home);
const domain = roomsDomain(config.domain);
const handleMs = envNumber('PARLEY_CALENDAR_HANDLE_MS');

const transport = componentTransport({ domain, password: componentSecret(config), host: '127.0.0.1', port: config.componentPort, endpoints: componentEndpoints(config), returnHomeMs: envNumber('PARLEY_RETURN_HOME_MS'), logger });
const host = new ComponentHost({ transport, domain: config.domain, logger, peerResource: envString('PARLEY_RESOURCE') });
const ledger = new Ledger(ledgerDbFile(config));
const stores: CalendarStore[] = [];

const iso = (min: number | undefined) => (min === undefined ? undefined : `PT${min}M`);

function profileOf(room: RoomDef, jid: string, did: string) {
  const minDuration = iso(room.constraints.minDurationMin);
  const requiresCleaningGap = iso(room.constraints.cleaningGapMin);
  return {
    jid, name: `room-${room.name}`, version: packageVersion(), capabilities: ['ROOM'], description: room.description,
    topics: [room.name, 'room'], did,
    room: { capacity: room.capacity, constraints: { ...(minDuration ? { minDuration } : {}), ...(requiresCleaningGap ? { requiresCleaningGap } : {}) } },
  };
}

type HostedAgent = ReturnType<ComponentHost['host']>;
const hosted: Array<{ key: string; agent: HostedAgent; profile: ReturnType<typeof profileOf> }> = [];
for (const room of rooms) {
  const jid = `${room.name}@${domain}`;
  const name = `room-${room.name}`;
  // Each room signs with its own key (secrets/keys/room-<name>.json), its DID pinned for its JID.
  const identity = ensureAgentIdentity(config.home, name, jid);
  const signing = signingEnabled() ? new Signing({
    identity, trust: new TrustStore(pinnedDidsFile(config.home), { enrolled: (jid) => roster.didOf(jid) }), domain: config.domain,
    ledger: new ReplayLedger(replayLedgerFile(config, name)), ...offlineWindowFromEnv(process.env),
  }) : undefined;
  const agent = host.host(jid, {
    telemetry: new SqliteTelemetry(telemetryFile(config, name), name), logger: logger.child({ room: room.name }), ...(signing ? { signing } : {}),
  });
  const store = new CalendarStore(path.join(paths(config).data, `${name}.sqlite`));
  stores.push(store);
  const ctx = new RoomContext(room, { store, ledger, rng: () => randomInt(0, 2 ** 32) / 2 ** 32, now: Date.now });
  const machine = calendarExchangeMachine.provide({
    actors: { handle: fromPromise<ReturnType<typeof handleRoom>, HandleInput>(async ({ input }) => handleRoom(ctx, input.kind as RoomKind, input.request, input.from)) },
  });
  for (const kind of ROOM_KINDS) agent.router.on(kind, (request, from) => ({ machine, input: { request, from, self: agent.name, kind, handleMs } }));
  hosted.push({ key: `reg-${name}-${randomUUID()}`, agent, profile: profileOf(room, jid, identity.did) });
}

// No top-level await: the bundled agent is a CommonJS script, whose compiled code V8 can cache
// (scripts/bundle.ts, shared/supervisor/bundle-run.cts).
startUp(async () => {
  await host.start();
  announce(logger, { domain, rooms: rooms.map((r) => r.name) }, 'online');

  // Each room keeps its own registration with the DF (docs/runtime.md §5).
  let registered = 0;
  const registrations = hosted.map((r) => ({
    ...r,
    registration: registerWithDf(r.agent, r.profile, {
      heartbeatMs: tunables.heartbeatMs,
      key: r.key,
      onRegistered: (e) => {
        logger.info({ room: r.agent.name, ...e }, 'registered');
        if (e.count === 1 && (registered += 1) === hosted.length) {
          logger.info({ rooms: registered }, 'rooms registered');
          tellSupervisor({ type: 'ready', moment: 'rooms registered' });
        }
      },
    }),
  }));
  // The supervisor waits for this line (shared/supervisor/spec.ts roomsSpec).
  if (hosted.length === 0) {
    logger.info({ rooms: 0 }, 'rooms registered');
    tellSupervisor({ type: 'ready', moment: 'rooms registered' });
  }

  let stopping = false;
  async function shutdown(signal: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    await Promise.all(registrations.map(async (r) => {
      if (!(await r.registration.deregister())) logger.warn({ room: r.agent.name }, 'deregister: no answer');
    }));
    await host.stop().catch(() => undefined);
    for (const s of stores) s.close();
    ledger.close();
    process.exit(0);
  }
  onProcessEnd(logger, shutdown);
}, logger);
