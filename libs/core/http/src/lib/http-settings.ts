import { SettingParsers, setting } from '@strata/core-common';

/** node setting: the largest request body accepted (ES default 100mb); larger → 413 */
export const HTTP_MAX_CONTENT_LENGTH = setting<number>({
  key: 'http.max_content_length',
  scope: 'node',
  dynamic: false,
  defaultValue: 100 * 1024 * 1024,
  defaultRaw: '100mb',
  parse: SettingParsers.bytes('http.max_content_length'),
});
