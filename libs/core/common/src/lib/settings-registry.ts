import { Errors } from './errors.js';
import { flattenSettings, type SettingDef, type SettingScope } from './settings.js';

export type SettingsMap = Record<string, unknown>;

/**
 * Holds every registered setting definition, validates values against them, and notifies
 * subscribers of dynamic updates. Built once at boot from all ExtensionPoints.Setting contributions.
 */
export class SettingsRegistry {
  private readonly defs = new Map<string, SettingDef>();
  private readonly prefixDefs: SettingDef[] = [];
  private readonly listeners = new Map<string, Array<(value: unknown, scopeKey: string | undefined) => void>>();

  constructor(defs: readonly SettingDef[] = []) {
    for (const d of defs) this.register(d);
  }

  register(def: SettingDef): void {
    if (this.defs.has(def.key)) throw new Error(`setting [${def.key}] is already registered`);
    this.defs.set(def.key, def);
    if (def.prefix) this.prefixDefs.push(def);
  }

  get(key: string): SettingDef | undefined {
    const d = this.defs.get(key);
    if (d) return d;
    return this.prefixDefs.find((p) => key.startsWith(p.key + '.') || key === p.key);
  }

  all(scope?: SettingScope): SettingDef[] {
    return [...this.defs.values()].filter((d) => !scope || d.scope === scope);
  }

  /** Normalises `number_of_shards` → `index.number_of_shards` and flattens nested JSON. */
  normalizeIndexSettings(raw: unknown): SettingsMap {
    if (raw === undefined || raw === null) return {};
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      throw Errors.illegalArgument('settings must be an object');
    }
    const flat = flattenSettings(raw);
    const out: SettingsMap = {};
    for (const [k, v] of Object.entries(flat)) {
      out[k.startsWith('index.') ? k : `index.${k}`] = v;
    }
    return out;
  }

  /**
   * Validates and parses settings of a scope. Unknown keys → illegal_argument_exception
   * "unknown setting [x] please check that any required plugins are installed, or check the breaking changes documentation for removed settings".
   * A null value means "reset to default" and is kept as null.
   */
  validate(scope: SettingScope, settings: SettingsMap, opts: { update?: boolean; existing?: SettingsMap } = {}): SettingsMap {
    const out: SettingsMap = {};
    for (const [key, value] of Object.entries(settings)) {
      const def = this.get(key);
      if (!def || def.scope !== scope) {
        throw Errors.illegalArgument(
          `unknown setting [${key}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`,
        );
      }
      if (opts.update && !def.dynamic) {
        const current = opts.existing?.[key];
        const parsedNew = value === null ? def.defaultValue : def.parse(value);
        if (current !== undefined && JSON.stringify(current) === JSON.stringify(parsedNew)) {
          out[key] = parsedNew;
          continue;
        }
        if (def.finalSetting) {
          throw Errors.illegalArgument(`final ${scope === 'index' ? 'index' : scope} setting [${key}], not updateable`);
        }
        throw Errors.illegalArgument(`Can't update non dynamic settings [[${key}]] for open indices`);
      }
      out[key] = value === null ? null : def.parse(value);
    }
    return out;
  }

  /** The effective value: explicit, else the default. */
  value<T>(key: string, settings: SettingsMap | undefined): T {
    const v = settings?.[key];
    if (v !== undefined && v !== null) return v as T;
    const def = this.get(key);
    return (def?.defaultValue ?? undefined) as T;
  }

  onUpdate(key: string, fn: (value: unknown, scopeKey: string | undefined) => void): void {
    const arr = this.listeners.get(key) ?? [];
    arr.push(fn);
    this.listeners.set(key, arr);
  }

  notify(key: string, value: unknown, scopeKey?: string): void {
    for (const fn of this.listeners.get(key) ?? []) fn(value, scopeKey);
  }
}
