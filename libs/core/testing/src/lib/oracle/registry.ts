/**
 * The one place where the oracle's query and aggregation kinds are registered. A feature that adds a
 * query or an aggregation (nested, join, scripts, runtime fields) adds its kind here, or passes it to
 * `runOracle({ queryKinds, aggKinds })` when it lives in a feature lib.
 */
import { CORE_AGG_KINDS } from './aggs.js';
import type { AggKind, QueryKind } from './kinds.js';
import { CORE_QUERY_KINDS } from './queries.js';
import { NESTED_AGG_KINDS, NESTED_QUERY_KINDS } from './nested.js';
import { SCRIPT_QUERY_KINDS } from './scripts.js';

export const QUERY_KINDS: readonly QueryKind[] = [...CORE_QUERY_KINDS, ...NESTED_QUERY_KINDS, ...SCRIPT_QUERY_KINDS];

export const AGG_KINDS: readonly AggKind[] = [...CORE_AGG_KINDS, ...NESTED_AGG_KINDS];
