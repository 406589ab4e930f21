// Rooms come from $PARLEY_HOME/rooms.json (issue "Room agents"): adding a room is a line in that
// file, no code. On first start the file is copied from config/rooms.example.json in the repo.
// Constraints (OACoP §8.2) are ISO 8601 durations: minDuration, requiresCleaningGap.
import fs from 'node:fs';
import path from 'node:path';
import { Duration } from 'luxon';
import { repoRoot } from '../../shared/runtime/repo-root.js';

export interface RoomConstraints {
  /** Shortest booking the room takes, in minutes. */
  minDurationMin?: number;
  /** Minutes the room must stay free before and after every booking. */
  cleaningGapMin?: number;
}

export interface RoomDef {
  /** Localpart of <name>@rooms.<domain>; logical name room-<name>. */
  name: string;
  capacity: number;
  description: string;
  constraints: RoomConstraints;
}

// An XMPP localpart we also use in file names (room-<name>.sqlite): lower-case, no separators.
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function roomsFile(home: string): string {
  return path.join(home, 'rooms.json');
}

function minutes(value: unknown, where: string): number | undefined {
  if (value === undefined) return undefined;
  const d = typeof value === 'string' ? Duration.fromISO(value) : undefined;
  if (!d?.isValid || d.as('minutes') < 0) throw new Error(`${where}: ${JSON.stringify(value)} is not an ISO 8601 duration such as PT15M`);
  return d.as('minutes');
}

/** Validates the parsed file; throws a message that names the room and the field. */
export function parseRooms(raw: unknown): RoomDef[] {
  const list = (raw as { rooms?: unknown } | null)?.rooms;
  if (!Array.isArray(list)) throw new Error('rooms.json must be {"rooms": [...]}');
  const out: RoomDef[] = [];
  for (const [i, r] of list.entries()) {
    const o = (r ?? {}) as Record<string, unknown>;
    const where = `rooms[${i}]`;
    if (typeof o.name !== 'string' || !NAME.test(o.name)) throw new Error(`${where}.name must match ${NAME}`);
    if (out.some((x) => x.name === o.name)) throw new Error(`${where}: room ${o.name} is listed twice`);
    if (!Number.isInteger(o.capacity) || (o.capacity as number) < 1) throw new Error(`${where}.capacity must be a positive integer`);
    const c = (o.constraints ?? {}) as Record<string, unknown>;
    const minDurationMin = minutes(c.minDuration, `${where}.constraints.minDuration`);
    const cleaningGapMin = minutes(c.requiresCleaningGap, `${where}.constraints.requiresCleaningGap`);
    out.push({
      name: o.name,
      capacity: o.capacity as number,
      description: typeof o.description === 'string' ? o.description.slice(0, 500) : `Room ${o.name}`,
      constraints: {
        ...(minDurationMin !== undefined ? { minDurationMin } : {}),
        ...(cleaningGapMin !== undefined ? { cleaningGapMin } : {}),
      },
    });
  }
  return out;
}

/** Reads $PARLEY_HOME/rooms.json, creating it from the example on first use. */
export function loadRooms(home: string): RoomDef[] {
  const file = roomsFile(home);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(home, { recursive: true });
    fs.copyFileSync(path.join(repoRoot(), 'config', 'rooms.example.json'), file);
  }
  return parseRooms(JSON.parse(fs.readFileSync(file, 'utf8')));
}
