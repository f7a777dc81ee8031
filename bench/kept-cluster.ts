/**
 * A PostgreSQL cluster whose data directory outlives the run (bench/read-path.ts --data-dir): the
 * first run creates it and loads the spans, later runs start it on the loaded data and only read.
 * The cluster is stopped at the end of every run; the directory stays until removed by hand. The
 * same settings as the other read benches' clusters (test/helpers/pg-cluster.ts).
 */
import { startPgCluster } from '../test/helpers/pg-cluster.ts';

export interface KeptCluster {
  url: string;
  dataDir: string;
  /** False: the directory was created by this run (the database is empty). */
  existed: boolean;
  stop(): Promise<void>;
}

/** Starts the cluster in `dir` (creating it when absent) and returns database `name`'s URL. */
export async function startKeptCluster(dir: string, name: string): Promise<KeptCluster> {
  const cluster = await startPgCluster({ dir });
  const { dataDir, existed, port } = cluster;
  try {
    if (!existed) await cluster.createDatabase(name);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${name}`,
    dataDir,
    existed,
    stop: () => cluster.stop(),
  };
}
