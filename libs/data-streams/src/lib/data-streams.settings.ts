/** Settings owned by the data-streams feature (ILM and the data stream lifecycle). */
import { SettingParsers, setting, type SettingDef } from '@strata/core-common';

const bool = SettingParsers.boolean;
const str = SettingParsers.string();

export const LIFECYCLE_NAME = 'index.lifecycle.name';
export const ROLLOVER_ALIAS = 'index.lifecycle.rollover_alias';
export const INDEXING_COMPLETE = 'index.lifecycle.indexing_complete';
export const ORIGINATION_DATE = 'index.lifecycle.origination_date';
export const PARSE_ORIGINATION_DATE = 'index.lifecycle.parse_origination_date';
export const PREFER_ILM = 'index.lifecycle.prefer_ilm';
export const POLL_INTERVAL = 'indices.lifecycle.poll_interval';
export const DSL_POLL_INTERVAL = 'data_streams.lifecycle.poll_interval';

export const DATA_STREAMS_SETTINGS: readonly SettingDef[] = [
  setting({ key: LIFECYCLE_NAME, scope: 'index', dynamic: true, defaultValue: '', parse: str }),
  setting({ key: ROLLOVER_ALIAS, scope: 'index', dynamic: true, defaultValue: '', parse: str }),
  setting({ key: INDEXING_COMPLETE, scope: 'index', dynamic: true, defaultValue: false, parse: bool(INDEXING_COMPLETE) }),
  setting({ key: ORIGINATION_DATE, scope: 'index', dynamic: true, defaultValue: -1, parse: SettingParsers.int(ORIGINATION_DATE, -1) }),
  setting({ key: PARSE_ORIGINATION_DATE, scope: 'index', dynamic: true, defaultValue: false, parse: bool(PARSE_ORIGINATION_DATE) }),
  setting({ key: PREFER_ILM, scope: 'index', dynamic: true, defaultValue: true, parse: bool(PREFER_ILM) }),
  setting({ key: 'index.lifecycle.step.wait_time_threshold', scope: 'index', dynamic: true, defaultValue: 43_200_000, defaultRaw: '12h', parse: SettingParsers.time('index.lifecycle.step.wait_time_threshold') }),
  setting({ key: POLL_INTERVAL, scope: 'cluster', dynamic: true, defaultValue: 600_000, defaultRaw: '10m', parse: SettingParsers.time(POLL_INTERVAL) }),
  setting({ key: 'indices.lifecycle.history_index_enabled', scope: 'cluster', dynamic: true, defaultValue: true, parse: bool('indices.lifecycle.history_index_enabled') }),
  setting({ key: DSL_POLL_INTERVAL, scope: 'cluster', dynamic: true, defaultValue: 300_000, defaultRaw: '5m', parse: SettingParsers.time(DSL_POLL_INTERVAL) }),
];
