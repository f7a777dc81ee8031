import { UiSessions } from '../auth/ui-sessions.ts';
import { CatalogService } from '../catalog/catalog-service.ts';
import type { Outbound } from '../net/guarded-fetch.ts';
import { ProjectsService } from '../projects/projects-service.ts';
import { SettingsService } from '../settings/settings-service.ts';
import type { LineageCache } from '../store/lineage-cache.ts';
import { UsersService } from '../users/users-service.ts';
import type { Announce, Base, Core } from './core.ts';

/** Instance settings, users and their dashboard sessions, projects and the server catalog. */
export interface Admin {
  settings: SettingsService;
  users: UsersService;
  uiSessions: UiSessions;
  projects: ProjectsService;
  catalog: CatalogService;
}

export interface AdminDeps {
  core: Pick<Core, 'audit' | 'keys'>;
  /** The outbound URL policy the catalog checks server URLs against. */
  outbound: Outbound;
  announce: Announce;
  /** Forgets what this process remembers of a deleted project (after it is deleted). */
  forgetProject: (id: string) => void;
  /** Told of a project's deletion (its lineage rows go), when there is one. */
  lineage?: LineageCache | null;
}

/** Reads the stored settings once (ingest redacts with them from the first span). */
export async function createAdmin({ config, store }: Base, d: AdminDeps): Promise<Admin> {
  const { audit, keys } = d.core;
  const settings = new SettingsService(store.db, audit, () => d.announce('settings'));
  await settings.load();
  const users = new UsersService(store.db, keys, audit);
  return {
    settings,
    users,
    uiSessions: new UiSessions(store.db, users, keys, audit),
    projects: new ProjectsService(
      store.db,
      audit,
      keys,
      (id) => {
        d.forgetProject(id);
        d.announce('project', id);
      },
      d.lineage ?? null,
    ),
    catalog: new CatalogService(store.db, {
      servers: config.servers,
      policy: d.outbound.policy,
      maxServersWithUrl: config.monitor.maxCatalogServersPerProject,
      audit,
    }),
  };
}
