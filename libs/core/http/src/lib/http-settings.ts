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

/** node setting: the largest request line + headers accepted (ES default 16kb); larger → 400 too_long_http_header_exception */
export const HTTP_MAX_HEADER_SIZE = setting<number>({
  key: 'http.max_header_size',
  scope: 'node',
  dynamic: false,
  defaultValue: 16 * 1024,
  defaultRaw: '16kb',
  parse: SettingParsers.bytes('http.max_header_size'),
});

/** node setting: the longest request line accepted (ES default 4kb); longer → 400 too_long_http_line_exception */
export const HTTP_MAX_INITIAL_LINE_LENGTH = setting<number>({
  key: 'http.max_initial_line_length',
  scope: 'node',
  dynamic: false,
  defaultValue: 4 * 1024,
  defaultRaw: '4kb',
  parse: SettingParsers.bytes('http.max_initial_line_length'),
});
