import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { packagePath } from '../../package-root.ts';
import type { SecurityConfig } from '../../config/types.ts';
import {
  packageKey,
  type AdvisoryDb,
  type Ecosystem,
  type OsvRecord,
  type PackageAdvisory,
} from './osv-types.ts';
import { toOsvRecords } from './osv-validate.ts';

/**
 * The advisory set of CVE lookup (docs/security.md#how-cve-lookup-works-offline): the OSV file shipped with Spyglass, extended by
 * `security.advisories_path` (a JSON file, a directory of OSV JSON, or an OSV export zip such as
 * osv.dev's `npm/all.zip`). A record with the same id replaces the earlier one; withdrawn records
 * are kept out of the index. Everything is read from disk: no network.
 */
export const SHIPPED_ADVISORIES = packagePath('data/advisories/mcp-osv.json');

/** Bounds for reading user-supplied sets, so a wrong path or a zip bomb fails with a message, not an OOM. */
export interface ReadLimits {
  maxEntries: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
}

// osv.dev's npm export holds a few hundred thousand records of a few KB each.
export const DEFAULT_LIMITS: ReadLimits = {
  maxEntries: 500_000,
  maxEntryBytes: 16 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
};

/** `limits` bound what advisories_path may hold; the shipped file is ours and read as is. */
export async function loadAdvisories(
  cfg: Pick<SecurityConfig, 'advisoriesPath'>,
  limits: ReadLimits = DEFAULT_LIMITS,
): Promise<AdvisoryDb> {
  let db = buildAdvisoryDb(await readAdvisoryPath(SHIPPED_ADVISORIES), SHIPPED_ADVISORIES);
  if (cfg.advisoriesPath !== undefined)
    db = extendAdvisoryDb(
      db,
      await readAdvisoryPath(cfg.advisoriesPath, limits),
      cfg.advisoriesPath,
    );
  return db;
}

/** Reads a file, a directory (recursively, `*.json`) or a zip into OSV records; errors name the file. */
export async function readAdvisoryPath(
  path: string,
  limits: ReadLimits = DEFAULT_LIMITS,
): Promise<OsvRecord[]> {
  const info = await stat(path).catch((e: NodeJS.ErrnoException) => {
    throw new Error(
      `advisories: ${path}: ${e.code === 'ENOENT' ? 'no such file or directory' : e.message}`,
    );
  });
  if (!info.isDirectory()) {
    if (info.size > limits.maxTotalBytes)
      throw new Error(
        `advisories: ${path}: ${info.size} bytes is more than the limit of ${limits.maxTotalBytes}`,
      );
    return parseAdvisoryBytes(new Uint8Array(await readFile(path)), path, limits);
  }
  const names = (await readdir(path, { recursive: true }))
    .filter((n) => n.endsWith('.json'))
    .sort();
  if (names.length > limits.maxEntries)
    throw new Error(
      `advisories: ${path}: ${names.length} JSON files is more than the limit of ${limits.maxEntries}`,
    );
  const records: OsvRecord[] = [];
  let total = 0;
  for (const name of names) {
    const file = join(path, name);
    const bytes = await readFile(file);
    total += bytes.length;
    if (bytes.length > limits.maxEntryBytes || total > limits.maxTotalBytes)
      throw new Error(`advisories: ${file}: the directory is larger than the limits allow`);
    records.push(...parseJson(bytes, file));
  }
  return records;
}

/** A zip (by its `PK` signature) or one JSON document; used for files and for refreshed downloads. */
export function parseAdvisoryBytes(
  bytes: Uint8Array,
  source: string,
  limits: ReadLimits = DEFAULT_LIMITS,
): OsvRecord[] {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return parseZip(bytes, source, limits);
  return parseJson(bytes, source);
}

function parseZip(bytes: Uint8Array, source: string, limits: ReadLimits): OsvRecord[] {
  let entries = 0;
  let total = 0;
  let files: Record<string, Uint8Array>;
  try {
    // The filter sees each entry's declared size before it is inflated: refuse before allocating.
    files = unzipSync(bytes, {
      filter: (f) => {
        if (!f.name.endsWith('.json')) return false;
        entries += 1;
        total += f.originalSize;
        if (entries > limits.maxEntries)
          throw new LimitError(`more than ${limits.maxEntries} JSON entries`);
        if (f.originalSize > limits.maxEntryBytes)
          throw new LimitError(
            `entry ${f.name} is ${f.originalSize} bytes, more than ${limits.maxEntryBytes}`,
          );
        if (total > limits.maxTotalBytes)
          throw new LimitError(`more than ${limits.maxTotalBytes} bytes uncompressed`);
        return true;
      },
    });
  } catch (e) {
    const why =
      e instanceof LimitError
        ? `refused: ${e.message}`
        : `not a readable zip (${(e as Error).message})`;
    throw new Error(`advisories: ${source}: ${why}`);
  }
  return Object.keys(files)
    .sort()
    .flatMap((name) => parseJson(files[name] as Uint8Array, `${source}!${name}`));
}

class LimitError extends Error {}

function parseJson(bytes: Uint8Array, source: string): OsvRecord[] {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch (e) {
    throw new Error(`advisories: ${source}: not valid JSON (${(e as Error).message})`);
  }
  return toOsvRecords(doc, source);
}

export function buildAdvisoryDb(records: readonly OsvRecord[], source: string): AdvisoryDb {
  return extendAdvisoryDb(
    { records: new Map(), byPackage: new Map(), count: 0, sources: [] },
    records,
    source,
  );
}

/** A new set: `db` with `records` applied over it (same id replaces), re-indexed. `db` is not changed. */
export function extendAdvisoryDb(
  db: AdvisoryDb,
  records: readonly OsvRecord[],
  source: string,
): AdvisoryDb {
  const all = new Map(db.records);
  for (const r of records) all.set(r.id, r);
  const byPackage = new Map<string, PackageAdvisory[]>();
  let count = 0;
  for (const record of all.values()) {
    if (record.withdrawn) continue;
    let indexed = false;
    for (const affected of record.affected ?? []) {
      const eco = ecosystemOf(affected.package?.ecosystem);
      if (eco === null || !affected.package) continue;
      const key = packageKey(eco, affected.package.name);
      const list = byPackage.get(key) ?? [];
      if (list.length === 0) byPackage.set(key, list);
      list.push({ record, affected });
      indexed = true;
    }
    if (indexed) count += 1;
  }
  return { records: all, byPackage, count, sources: [...db.sources, source] };
}

function ecosystemOf(text: string | undefined): Ecosystem | null {
  return text === 'npm' ? 'npm' : text === 'PyPI' ? 'PyPI' : null;
}
