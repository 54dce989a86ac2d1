/**
 * Settings of the EQL feature: the remote clusters EQL can search (the `eql_sequence` breaker's settings are core's).
 */
import { setting } from '@strata/core-common';

/** `cluster.remote.<alias>.seeds|mode|proxy_address|skip_unavailable`: remote clusters, reached over HTTP */
export const CLUSTER_REMOTE = setting<unknown>({
  key: 'cluster.remote',
  scope: 'cluster',
  dynamic: true,
  prefix: true,
  defaultValue: undefined,
  parse: (raw: unknown): unknown => raw,
});

export const eqlSettings = [CLUSTER_REMOTE];
