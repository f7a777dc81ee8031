import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { coerce, isMapping, type Node } from './coerce.ts';
import { readEnv, type Env } from './env.ts';
import { ConfigSchema, type FileConfig } from './schema.ts';
import { crossProblems } from './cross-rules.ts';
import { toConfig } from './to-config.ts';
import { validate } from './validate.ts';
import type { Config } from './types.ts';

export type { Config, ServerConfig } from './types.ts';
export type { Env } from './env.ts';

/** Every problem found, reported at once rather than one per start attempt. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Layers: the schema's defaults, then the YAML file (SPYGLASS_CONFIG or ./spyglass.yaml), then the
 * environment (docs/configuration.md). Never exits the process: the caller decides what to do
 * with a ConfigError.
 */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const configPath = findConfigFile(env, cwd, problems);
  let text: string | undefined;
  if (configPath) {
    try {
      text = readFileSync(configPath, 'utf8');
    } catch (err) {
      problems.push(`${configPath}: ${(err as Error).message}`);
    }
  }
  return parseConfig(env, text, { cwd, configPath, problems });
}

export interface ParseOptions {
  /** Relative paths (data_dir) resolve against it. */
  cwd?: string;
  /** Where `text` came from: names the file in problems; security.advisories_path is relative to it. */
  configPath?: string;
  /** Problems found before (reading the file), reported with the rest. */
  problems?: string[];
}

/**
 * The configuration from an environment and the text of a config file (YAML or JSON), touching
 * nothing else: every problem (YAML syntax, unknown keys, types and ranges, rules between
 * settings) is in the one ConfigError.
 */
export function parseConfig(env: Env, text?: string, opts: ParseOptions = {}): Config {
  const cwd = opts.cwd ?? process.cwd();
  const problems = [...(opts.problems ?? [])];
  const fileLabel = opts.configPath ?? 'config';
  const raws = new Map<string, unknown>();
  const root = ConfigSchema as unknown as Node;
  const file = coerce(root, readYaml(text, fileLabel, problems), [], raws) as Record<
    string,
    unknown
  >;
  const fromEnv = readEnv(env);
  const merged = coerce(root, fromEnv.values, [], raws) as Record<string, unknown>;
  const value = mergeSections(structuredClone(file), merged);
  const checked = validate(value, { names: fromEnv.names, raws, file: fileLabel });
  problems.push(...checked.problems);
  if (!checked.usable) throw new ConfigError(problems);
  const fileAlerts = file.alerts as Record<string, unknown> | undefined;
  const config = toConfig(value as FileConfig, {
    cwd,
    configPath: opts.configPath,
    names: fromEnv.names,
    fileChatWebhook: fileAlerts?.chat_webhook as string | undefined,
    nodeEnv: env.NODE_ENV,
  });
  problems.push(...crossProblems(config, fromEnv.names));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The environment's settings over the file's, section by section. */
function mergeSections(
  file: Record<string, unknown>,
  env: Record<string, unknown>,
): Record<string, unknown> {
  for (const [key, v] of Object.entries(env)) {
    const into = file[key];
    // A file section that is not a mapping stays, to be reported.
    if (!isMapping(v)) file[key] = v;
    else if (into === undefined || isMapping(into)) file[key] = { ...(into ?? {}), ...v };
  }
  return file;
}

function findConfigFile(env: Env, cwd: string, problems: string[]): string | undefined {
  if (env.SPYGLASS_CONFIG) {
    const path = resolve(cwd, env.SPYGLASS_CONFIG);
    if (!existsSync(path)) problems.push(`SPYGLASS_CONFIG names ${path}, which does not exist`);
    return existsSync(path) ? path : undefined;
  }
  const fallback = resolve(cwd, 'spyglass.yaml');
  return existsSync(fallback) ? fallback : undefined;
}

function readYaml(text: string | undefined, label: string, problems: string[]): unknown {
  if (text === undefined) return {};
  try {
    const parsed: unknown = parseYaml(text);
    if (parsed === null || parsed === undefined) return {};
    if (isMapping(parsed)) return parsed;
    problems.push(`${label}: the top level must be a mapping`);
  } catch (err) {
    problems.push(`${label}: ${(err as Error).message}`);
  }
  return {};
}
