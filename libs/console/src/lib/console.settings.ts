import { SettingParsers, setting } from '@strata/core-common';

/** node setting: serve the web console at `/_console` (default true; false removes its routes) */
export const CONSOLE_ENABLED = setting<boolean>({
  key: 'console.enabled',
  scope: 'node',
  dynamic: false,
  defaultValue: true,
  parse: SettingParsers.boolean('console.enabled'),
});
