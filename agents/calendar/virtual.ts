// People's calendars as virtual agents of one calendar host (issue 14 §3; host.ts runs them).
// Each person keeps what a calendar process has: their own JID person@calendars.<domain>, did:key
// (in the host's key ring secrets/keys/vcal-<host>.ring.json), enrolment as a calendar, CalendarStore file
// (data/calendar-<person>.sqlite, the same file a calendar process would use), settings and
// privacy rules (calendars/<person>.json, re-read on change), DF registration and conversations.
// What they share keeps a person cheap: one component connection, one exchange machine, one
// telemetry file, one replay-ledger file and one exchange-store file (views scoped by JID), and
// a pool of open stores: a store is opened on its person's first request and closed again when
// many others were used since (three file descriptors each: database, WAL, shared memory).
import { randomInt } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';
import { calendarDbFile, defaultCalendarConfig, ensureCalendarConfig } from '../../shared/calendar/config.js';
import { type Ledger, CalendarStore } from '../../shared/calendar/index.js';
import type { ParleyConfig } from '../../shared/config/index.js';
import {
  EnrolmentAuthority, type Identity, loadOrCreateRing, joinedOperatorDid, type TrustStore,
} from '../../shared/identity/index.js';
import type { Logger } from '../../shared/log/index.js';
import {
  type Agent, restoreExchanges, calendarsDomain, offlineWindowFromEnv, Signing, type SqliteTelemetry,
} from '../../shared/runtime/index.js';
import { type ComponentHost, LeaseGroup } from '../../shared/runtime/component-host.js';
import { registerWithDf, RegistrationGate, type DfRegistration } from '../../shared/runtime/registration.js';
import { ExchangeStore, ReplayLedger } from '../../shared/store/index.js';
import { CalendarContext, type CalendarDeps } from '../../shared/oacop/index.js';
import { packageVersion } from '../../shared/runtime/repo-root.js';
import { calendarMachine, calendarProfile, type Served, serveOacop, watchedConfig } from './wiring.js';

/** Stores open at once: 128 × 3 descriptors stays well under the usual limit of 1,024. */
export const OPEN_STORES = 128;


/** CalendarStores opened on use, the least recently used closed beyond `max`. */
export class StorePool {
  private readonly open = new Map<string, CalendarStore>();

  constructor(private readonly opener: (person: string) => CalendarStore, private readonly max = OPEN_STORES) {}

  /** The person's store (opened now if it is not). A request's handler runs synchronously, so it never sees its store closed. */
  get(person: string): CalendarStore {
    let store = this.open.get(person);
    if (store) {
      this.open.delete(person); // re-inserted last: the Map's order is the recency order
    } else {
      store = this.opener(person);
      for (const [oldest, s] of this.open) {
        if (this.open.size < this.max) break;
        s.close();
        this.open.delete(oldest);
      }
    }
    this.open.set(person, store);
    return store;
  }

  get size(): number {
    return this.open.size;
  }

  close(): void {
    for (const s of this.open.values()) s.close();
    this.open.clear();
  }
}

export interface VirtualCalendarsOptions {
  config: ParleyConfig;
  host: ComponentHost;
  logger: Logger;
  telemetry: SqliteTelemetry;
  /** The calendar ledger (oacop-rfc §6.2 proofOfBurn), one file for the installation. */
  ledger: Ledger;
  trust: TrustStore;
  /** Shared files (views per calendar); absent: signing off, or PARLEY_DURABLE=0. */
  replay?: ReplayLedger;
  exchanges?: ExchangeStore;
  handleMs: number;
  heartbeatMs: number;
  stores?: StorePool;
  /**
   * Generated people (`--count`, scale tests): default settings kept in memory, no
   * calendars/<person>.json written (the supervisor would otherwise run their calendars too).
   */
  generated?: boolean;
  /** The key ring holding the calendars' keys (secrets/keys/<keyRing>.json, identity/keystore.ts loadOrCreateRing). */
  keyRing: string;
  /** REGISTERs outstanding at once (the gate's limit; more when they travel in REGISTER_MANY batches). */
  registeringAtOnce?: number;
}

interface Entry extends Served {
  person: string;
  agent: Agent;
  exchanges?: ExchangeStore;
  registration?: DfRegistration;
}

export class VirtualCalendars {
  private readonly byName = new Map<string, Entry>();
  private readonly machine: AnyStateMachine;
  private readonly stores: StorePool;
  private readonly rng = () => randomInt(0, 2 ** 32) / 2 ** 32;
  /** Turns to register (first time, and again after the Registry lost the lease): 64 at once, unless batched. */
  readonly gate: RegistrationGate;
  /** One HEARTBEAT a interval renews every calendar's lease (shared/runtime/lease-group.ts). */
  readonly group: LeaseGroup;
  private readonly version = packageVersion();

  constructor(private readonly o: VirtualCalendarsOptions) {
    this.group = new LeaseGroup(o.heartbeatMs);
    this.gate = new RegistrationGate(o.registeringAtOnce);
    this.machine = calendarMachine((receiver) => this.byName.get(receiver));
    this.stores = o.stores ?? new StorePool((person) => new CalendarStore(calendarDbFile(o.config, person)));
  }

  jidOf(person: string): string {
    return `${person}@${calendarsDomain(this.o.config.domain)}`;
  }

  /** The calendar agent of `jid` (the REGISTER_MANY batcher sends a batch as one of them). */
  agentOf(jid: string): Agent | undefined {
    return this.byName.get(jid.toLowerCase())?.agent;
  }

  has(person: string): boolean {
    return this.byName.has(this.jidOf(person));
  }

  get agents(): Agent[] {
    return [...this.byName.values()].map((e) => e.agent);
  }

  get openStores(): number {
    return this.stores.size;
  }

  /**
   * Builds the calendars of `people` not served yet (not started): settings, keys, the operator's
   * enrolment in one write (on the operator's host only, as `createAgent` enrols a calendar
   * process), Agents with their handlers, and their exchanges restored from before a restart.
   */
  add(people: readonly string[]): Agent[] {
    const { config } = this.o;
    const names = [...new Set(people)].filter((p) => !this.has(p));
    if (names.length === 0) return [];
    for (const person of names) if (!this.o.generated) ensureCalendarConfig(config, person, `${person}@${config.domain}`);
    // One key ring for the host's calendars (as the specialist host's): a key file per person cost
    // ≈ 0.2 ms of file creation each, a third of a 10,000-calendar host's start (bench
    // calendars-scale --cpu-prof). A person's own vcal-<person>.json, if any, still wins.
    const identities = loadOrCreateRing(config.home, this.o.keyRing, names.map((person) => `vcal-${person}`));
    const fresh = names.map((person, i) => ({ person, jid: this.jidOf(person), identity: identities[i] as Identity }));
    const authority = new EnrolmentAuthority(config.home);
    if (authority.operatorDid() !== undefined || !joinedOperatorDid(config.home)) {
      const { revoked, enrolled } = authority.ensureEnrolledMany(fresh.map((m) => ({ jid: m.jid, did: m.identity.did })), 'calendar');
      if (revoked.length > 0) this.o.logger.error({ revoked }, 'revoked calendars: the Registry refuses them until the operator enrols them again');
      if (enrolled > 0) this.o.logger.info({ enrolled }, 'enrolled');
    }
    return fresh.map((m) => {
      const signing = this.o.replay ? new Signing({
        identity: m.identity, trust: this.o.trust, domain: config.domain, ledger: new ReplayLedger({ share: this.o.replay, scope: m.jid }), ...offlineWindowFromEnv(process.env),
      }) : undefined;
      const exchanges = this.o.exchanges ? new ExchangeStore({ share: this.o.exchanges, scope: m.jid }) : undefined;
      const agent = this.o.host.host(m.jid, {
        telemetry: this.o.telemetry.view(m.jid), logger: this.o.logger.child({ agent: m.person }),
        ...(signing ? { signing } : {}), ...(exchanges ? { persist: exchanges } : {}),
      });
      const person = m.person;
      const stores = this.stores;
      const ctx = new CalendarContext({
        // A getter: the pool opens the store on the first request and may close it between requests.
        get store() {
          return stores.get(person);
        },
        ledger: this.o.ledger, config: this.settingsOf(person),
        trustedSenders: [`coordinator@${config.domain}`], localDomain: config.domain, rng: this.rng, now: Date.now,
      });
      const entry: Entry = { person, agent, ctx, store: () => stores.get(person), ...(exchanges ? { exchanges } : {}) };
      this.byName.set(agent.name, entry);
      serveOacop(agent, this.machine, this.o.handleMs);
      if (exchanges) restoreExchanges(agent, exchanges);
      return agent;
    });
  }

  private settingsOf(person: string): CalendarDeps['config'] {
    if (!this.o.generated) return watchedConfig(this.o.config, person);
    const settings = defaultCalendarConfig(person, `${person}@${this.o.config.domain}`, 'UTC');
    return () => settings;
  }

  /**
   * Registers `agents` with the DF (each keeps its lease), at most `gate.limit` REGISTERs
   * outstanding for the whole host, now and whenever the Registry lost their leases (its restart).
   * `onFirst` once per agent, at its first REGISTERED.
   */
  register(agents: readonly Agent[], onFirst: (agent: Agent, leaseMs: number) => void): void {
    for (const agent of agents) {
      const entry = this.byName.get(agent.name);
      if (!entry || entry.registration) continue;
      entry.registration = registerWithDf(agent, calendarProfile(agent, entry.person, this.o.config.domain, this.version), {
        heartbeatMs: this.o.heartbeatMs,
        gate: this.gate,
        group: this.group,
        onRegistered: (e) => {
          if (e.count === 1) onFirst(agent, e.lease_ms);
        },
      });
    }
  }

  /** DEREGISTER every calendar (answered or after 2 s), then mark each exchange view cleanly stopped and close the stores. */
  async deregisterAll(): Promise<number> {
    this.group.close();
    const answered = await Promise.all([...this.byName.values()].map((e) => e.registration?.deregister() ?? true));
    return answered.filter((ok) => !ok).length;
  }

  /** After the component stopped (its socket flushed): nothing to resend at the next start. */
  close(): void {
    for (const e of this.byName.values()) e.exchanges?.markCleanStop();
    this.stores.close();
  }
}
