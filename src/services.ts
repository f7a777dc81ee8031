import type { Logger } from 'pino';
import { Registrar } from './catalog/registrar.ts';
import type { Config } from './config/types.ts';
import { ingestSpans } from './ingest/ingest-service.ts';
import { GroupCommitWriter } from './ingest/writer.ts';
import { EventBus } from './live/bus.ts';
import type { Span } from './model/span.ts';
import { SettingsService } from './settings/settings-service.ts';
import type { Store } from './store/open-store.ts';
import { insertSpans } from './store/spans-repo.ts';

/** Everything the adapters (REST, GraphQL, gRPC, CLI) call. Built once per process. */
export interface Services {
  config: Config;
  store: Store;
  logger: Logger;
  settings: SettingsService;
  writer: GroupCommitWriter;
  registrar: Registrar;
  bus: EventBus;
  ingest(spans: Span[]): Promise<number>;
  /** Flushes acknowledged work; the store is closed by its owner. */
  close(): Promise<void>;
}

export async function createServices(config: Config, store: Store, logger: Logger): Promise<Services> {
  const settings = new SettingsService(store.db);
  await settings.load();
  const writer = new GroupCommitWriter({
    commit: async (spans) => void (await insertSpans(store.db, spans)),
    maxQueuedSpans: config.ingest.maxQueuedSpans,
    maxCommitSpans: config.ingest.maxCommitSpans,
    logger,
  });
  const registrar = new Registrar(store.db, logger);
  const bus = new EventBus();
  const deps = { writer, settings, registrar, bus };
  return {
    config,
    store,
    logger,
    settings,
    writer,
    registrar,
    bus,
    ingest: (spans) => ingestSpans(deps, spans),
    close: () => writer.close(),
  };
}
