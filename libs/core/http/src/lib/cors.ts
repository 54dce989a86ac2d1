import { SettingParsers, setting, type SettingDef } from '@strata/core-common';

/** a comma list given as a string or a YAML list */
const list = (raw: unknown): string => (Array.isArray(raw) ? raw.map(String).join(',') : SettingParsers.string()(raw));

/** Elasticsearch's `http.cors.*` node settings (static). */
export const CORS_SETTINGS: readonly SettingDef[] = [
  setting({ key: 'http.cors.enabled', scope: 'node', dynamic: false, defaultValue: false, parse: SettingParsers.boolean('http.cors.enabled') }),
  setting({ key: 'http.cors.allow-origin', scope: 'node', dynamic: false, defaultValue: '', parse: list }),
  setting({ key: 'http.cors.max-age', scope: 'node', dynamic: false, defaultValue: 1728000, parse: SettingParsers.int('http.cors.max-age') }),
  setting({
    key: 'http.cors.allow-methods',
    scope: 'node',
    dynamic: false,
    defaultValue: 'OPTIONS,HEAD,GET,POST,PUT,DELETE',
    parse: list,
  }),
  setting({
    key: 'http.cors.allow-headers',
    scope: 'node',
    dynamic: false,
    defaultValue: 'X-Requested-With,Content-Type,Content-Length,Authorization,Accept,User-Agent,X-Elastic-Client-Meta',
    parse: list,
  }),
  setting({
    key: 'http.cors.allow-credentials',
    scope: 'node',
    dynamic: false,
    defaultValue: false,
    parse: SettingParsers.boolean('http.cors.allow-credentials'),
  }),
  setting({ key: 'http.cors.exposed-headers', scope: 'node', dynamic: false, defaultValue: 'X-elastic-product', parse: list }),
];

export interface CorsConfig {
  enabled: boolean;
  anyOrigin: boolean;
  origins: string[];
  pattern?: RegExp;
  maxAge: number;
  methods: string;
  headers: string;
  credentials: boolean;
  exposed: string;
}

export function corsConfig(settings: Record<string, unknown> | undefined): CorsConfig {
  const get = (key: string): unknown => {
    const def = CORS_SETTINGS.find((d) => d.key === key)!;
    const raw = settings?.[key];
    return raw === undefined ? def.defaultValue : def.parse(raw);
  };
  const origin = String(get('http.cors.allow-origin')).trim();
  const isRegex = origin.length > 1 && origin.startsWith('/') && origin.endsWith('/');
  const split = (v: unknown): string =>
    String(v)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .join(', ');
  return {
    enabled: get('http.cors.enabled') === true,
    anyOrigin: origin === '*',
    origins: isRegex ? [] : origin.split(',').map((s) => s.trim()).filter(Boolean),
    pattern: isRegex ? new RegExp(origin.slice(1, -1)) : undefined,
    maxAge: Number(get('http.cors.max-age')),
    methods: split(get('http.cors.allow-methods')),
    headers: split(get('http.cors.allow-headers')),
    credentials: get('http.cors.allow-credentials') === true,
    exposed: split(get('http.cors.exposed-headers')),
  };
}

export function originAllowed(cfg: CorsConfig, origin: string): boolean {
  if (cfg.anyOrigin) return true;
  if (cfg.pattern) return cfg.pattern.test(origin);
  return cfg.origins.includes(origin);
}
