import { SettingParsers, setting } from '@strata/core-common';

export const MAX_OPEN_SCROLL_CONTEXT = setting({
  key: 'search.max_open_scroll_context',
  scope: 'cluster',
  dynamic: true,
  defaultValue: 500,
  parse: SettingParsers.int('search.max_open_scroll_context', 0),
});

export const DEFAULT_KEEP_ALIVE = setting({
  key: 'search.default_keep_alive',
  scope: 'cluster',
  dynamic: true,
  defaultValue: 5 * 60_000,
  defaultRaw: '5m',
  parse: SettingParsers.time('search.default_keep_alive'),
});

export const MAX_KEEP_ALIVE = setting({
  key: 'search.max_keep_alive',
  scope: 'cluster',
  dynamic: true,
  defaultValue: 24 * 3_600_000,
  defaultRaw: '24h',
  parse: SettingParsers.time('search.max_keep_alive'),
});

export const KEEPALIVE_INTERVAL = setting({
  key: 'search.keep_alive_interval',
  scope: 'node',
  dynamic: false,
  defaultValue: 60_000,
  defaultRaw: '1m',
  parse: SettingParsers.time('search.keep_alive_interval'),
});

export const pagingSettings = [MAX_OPEN_SCROLL_CONTEXT, DEFAULT_KEEP_ALIVE, MAX_KEEP_ALIVE, KEEPALIVE_INTERVAL];
