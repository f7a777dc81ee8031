/**
 * The CPU a PostgreSQL cluster's backends of one database have used, read from /proc (Linux):
 * each process's time on a CPU in nanoseconds (/proc/PID/schedstat, its first field), summed over
 * the postmaster's children whose command line names the database. The CPU queue of a busy machine
 * stretches wall times several times over; a backend's CPU time stays what its work costs, so the
 * read benches use it to tell a read's database work (planning a statement afresh, loading
 * catalog entries) from waiting (bench/read-path.ts --pg-cpu). A backend that exits takes its
 * time with it: the sums are over the backends alive at each sample.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PgCpu {
  /** Milliseconds of CPU the database's backends alive now have used. */
  sampleMs(): number;
  /** How many of them there are now. */
  backends(): number;
}

/** A sampler for `database` of the cluster in `dataDir`, or null where /proc cannot tell. */
export function pgCpuSampler(dataDir: string, database: string): PgCpu | null {
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8');
  } catch {
    return null;
  }
  const needle = ` ${database} `;
  const ours = (): number[] => {
    const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    return children.filter((pid) => {
      try {
        // A backend's title: "postgres: USER DATABASE HOST(PORT) STATE".
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false;
      }
    });
  };
  return {
    sampleMs: () => {
      let ns = 0;
      for (const pid of ours()) {
        try {
          ns += Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
        } catch {
          // exited between the listing and the read
        }
      }
      return ns / 1e6;
    },
    backends: () => ours().length,
  };
}
