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

/** node setting: compress responses when the client accepts gzip/deflate (ES default true) */
export const HTTP_COMPRESSION = setting<boolean>({
  key: 'http.compression',
  scope: 'node',
  dynamic: false,
  defaultValue: true,
  parse: SettingParsers.boolean('http.compression'),
});

/** node setting: the zlib level of compressed responses (ES default 3) */
export const HTTP_COMPRESSION_LEVEL = setting<number>({
  key: 'http.compression_level',
  scope: 'node',
  dynamic: false,
  defaultValue: 3,
  parse: SettingParsers.int('http.compression_level', 1, 9),
});
