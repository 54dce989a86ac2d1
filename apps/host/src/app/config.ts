import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { flattenSettings } from '@strata/core-common';

/** Node settings when nothing else is given. */
export const DEFAULT_SETTINGS: Readonly<Record<string, unknown>> = {
  'http.port': 9200,
  'network.host': '127.0.0.1',
  'path.data': './data',
  'cluster.name': 'strata',
};

const CONFIG_FILES = ['strata.yml', 'strata.yaml', 'strata.json'];

/** The config directory: `$STRATA_PATH_CONF`, else `./config`. */
export function configDir(env: NodeJS.ProcessEnv, cwd: string): string {
  return env['STRATA_PATH_CONF'] || join(cwd, 'config');
}

/** Reads `strata.yml` (YAML or JSON; nested or dotted keys) from the config dir, if present. */
export async function readConfigFile(dir: string): Promise<{ file?: string; settings: Record<string, unknown> }> {
  for (const name of CONFIG_FILES) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    let parsed: unknown;
    try {
      // yaml is loaded only when a config file exists (start-up time)
      parsed = name.endsWith('.json') ? JSON.parse(text) : (await import('yaml')).parse(text);
    } catch (e) {
      throw new Error(`failed to parse config file [${file}]: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (parsed === null || parsed === undefined) return { file, settings: {} };
    if (typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error(`config file [${file}] must hold an object of settings`);
    }
    return { file, settings: flattenSettings(parsed) };
  }
  return { settings: {} };
}

/**
 * Settings from the environment: `STRATA_HTTP_PORT=9201` → `http.port`. A single `_` separates key
 * parts (→ `.`), a double `__` stands for a literal underscore (`STRATA_HTTP_MAX__CONTENT__LENGTH` →
 * `http.max_content_length`). `STRATA_PATH_CONF` names the config dir and is not a setting.
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('STRATA_') || name === 'STRATA_PATH_CONF' || value === undefined) continue;
    const key = name
      .slice('STRATA_'.length)
      .toLowerCase()
      .split('__')
      .map((part) => part.replace(/_/g, '.'))
      .join('_');
    if (key) out[key] = value;
  }
  return out;
}

/** `-E key=value` / `-Ekey=value` flags. Anything else is an error (like Elasticsearch's launcher). */
export function settingsFromArgv(argv: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    let kv: string | undefined;
    if (a === '-E') kv = argv[++i];
    else if (a.startsWith('-E')) kv = a.slice(2);
    else throw new Error(`unknown argument [${a}]; use -E <key>=<value> to set a setting`);
    if (kv === undefined) throw new Error('missing <key>=<value> after -E');
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new Error(`setting [${kv}] must be in the form <key>=<value>`);
    const key = kv.slice(0, eq).trim();
    if (key in out) throw new Error(`setting [${key}] already set, saw [${String(out[key])}] and [${kv.slice(eq + 1)}]`);
    out[key] = kv.slice(eq + 1);
  }
  return out;
}

export interface LoadedConfig {
  settings: Record<string, unknown>;
  /** the config file that was read, if any */
  file?: string;
  /** the configuration directory (strata.yml and the security files) */
  configDir: string;
}

/**
 * `ELASTIC_PASSWORD` (as in Elasticsearch's docker image) sets the elastic superuser's bootstrap password,
 * the `bootstrap.password` setting.
 */
export function bootstrapFromEnv(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const pw = env['ELASTIC_PASSWORD'];
  return pw ? { 'bootstrap.password': pw } : {};
}

/** Precedence, lowest first: defaults → config file → environment (`ELASTIC_PASSWORD`, `STRATA_*`) → `-E` flags. */
export async function loadConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<LoadedConfig> {
  const dir = configDir(env, cwd);
  const file = await readConfigFile(dir);
  return {
    file: file.file,
    configDir: dir,
    settings: { ...DEFAULT_SETTINGS, ...file.settings, ...bootstrapFromEnv(env), ...settingsFromEnv(env), ...settingsFromArgv(argv) },
  };
}
