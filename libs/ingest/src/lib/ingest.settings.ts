import { SettingParsers, setting, type SettingDef } from '@strata/core-common';

/** index.default_pipeline: runs when a request names no pipeline (`_none` disables). */
export const DEFAULT_PIPELINE_SETTING: SettingDef<string> = setting({
  key: 'index.default_pipeline',
  scope: 'index',
  dynamic: true,
  defaultValue: '_none',
  parse: SettingParsers.string(),
});

/** index.final_pipeline: always runs last (`_none` disables). */
export const FINAL_PIPELINE_SETTING: SettingDef<string> = setting({
  key: 'index.final_pipeline',
  scope: 'index',
  dynamic: true,
  defaultValue: '_none',
  parse: SettingParsers.string(),
});
