/**
 * CPU accounting from /proc (Linux), so figures can be read per span and a run disturbed by other
 * work on the machine can be recognised: CPU time of the server process, of the PostgreSQL cluster
 * (postmaster and all its children), of this load generator, and of everything else.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // CLK_TCK = 100 on Linux

interface Stat {
  ppid: number;
  /** stime alone (kernel), ms. */
  sysMs: number;
  /** utime + stime, ms. */
  selfMs: number;
  /** cutime + cstime (reaped children), ms. */
  childrenMs: number;
}

function readStat(pid: number): Stat | null {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    // rest[0] = state (field 3), so field n is rest[n - 3]
    return {
      ppid: Number(rest[1]),
      sysMs: Number(rest[12]) * TICK_MS,
      selfMs: (Number(rest[11]) + Number(rest[12])) * TICK_MS,
      childrenMs: (Number(rest[13]) + Number(rest[14])) * TICK_MS,
    };
  } catch {
    return null;
  }
}

/** CPU ms used by one process (all its threads). */
export function processCpuMs(pid: number): number {
  return readStat(pid)?.selfMs ?? 0;
}

/** CPU ms used by a process, its live children and its reaped children (a PostgreSQL postmaster). */
export function treeCpuMs(rootPid: number): number {
  return treeCpu(rootPid).totalMs;
}

/**
 * The same with the kernel part apart (reaped children count in the total only). A Spyglass
 * primary with its workers is such a tree: a dead worker's time stays in the primary's cutime.
 */
export function treeCpu(rootPid: number): { totalMs: number; sysMs: number } {
  const root = readStat(rootPid);
  if (!root) return { totalMs: 0, sysMs: 0 };
  let totalMs = root.selfMs + root.childrenMs;
  let sysMs = root.sysMs;
  for (const pid of childPids(rootPid)) {
    const s = readStat(pid);
    if (!s) continue;
    totalMs += s.selfMs + s.childrenMs;
    sysMs += s.sysMs;
  }
  return { totalMs, sysMs };
}

/** Pids of the live direct children of a process. */
export function childPids(parentPid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === parentPid) continue;
    if (readStat(pid)?.ppid === parentPid) out.push(pid);
  }
  return out;
}

/** Busy CPU ms of the whole machine (all cores), from /proc/stat. */
export function machineBusyMs(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] as string;
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = v;
    return (user + nice + system + irq + softirq + steal) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The postmaster's pid from its data directory (first line of postmaster.pid). */
export function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n', 1)[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export interface CpuSnapshot {
  at: number;
  server: number;
  serverSys: number;
  postgres: number;
  client: number;
  machine: number;
}

/** serverPid -1: no server process (counts 0). The server counts with its workers (child processes). */
export function cpuSnapshot(serverPid: number, pgPid: number | null): CpuSnapshot {
  const u = process.cpuUsage();
  const server = serverPid < 0 ? { totalMs: 0, sysMs: 0 } : treeCpu(serverPid);
  return {
    at: performance.now(),
    server: server.totalMs,
    serverSys: server.sysMs,
    postgres: pgPid === null ? 0 : treeCpuMs(pgPid),
    client: (u.user + u.system) / 1000,
    machine: machineBusyMs(),
  };
}

export interface CpuDelta {
  wallMs: number;
  serverMs: number;
  /** Kernel part of serverMs (syscalls: sockets, files). */
  serverSysMs: number;
  postgresMs: number;
  clientMs: number;
  /** Busy time of everything else on the machine (other tests, builds...). */
  otherMs: number;
}

export function cpuDelta(a: CpuSnapshot, b: CpuSnapshot): CpuDelta {
  const serverMs = b.server - a.server;
  const postgresMs = b.postgres - a.postgres;
  const clientMs = b.client - a.client;
  return {
    wallMs: b.at - a.at,
    serverMs,
    serverSysMs: b.serverSys - a.serverSys,
    postgresMs,
    clientMs,
    otherMs: Math.max(0, b.machine - a.machine - serverMs - postgresMs - clientMs),
  };
}
