/** The script service aggregation parsers compile with (bucket_script, bucket_selector, moving_fn, scripted_metric). */
import type { ScriptService } from '@strata/core-common';
import { DEFAULT_SCRIPT_SERVICE } from '../../script/search-scripts.js';

/** set for the duration of one (synchronous) parseAggregations call */
let parsingScripts: ScriptService | undefined;

export function withAggregationScripts<T>(scripts: ScriptService | undefined, fn: () => T): T {
  const prev = parsingScripts;
  parsingScripts = scripts;
  try {
    return fn();
  } finally {
    parsingScripts = prev;
  }
}

export function aggregationScripts(): ScriptService {
  return parsingScripts ?? DEFAULT_SCRIPT_SERVICE;
}
