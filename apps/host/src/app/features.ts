import type { FeatureModule } from '@strata/core-common';
import { authChainFeature } from '@strata/auth-chain';
import { consoleFeature } from '@strata/console';
import { dataStreamsFeature } from '@strata/data-streams';
import { eqlFeature } from '@strata/eql';
import { ingestFeature } from '@strata/ingest';
import { joinQueriesFeature } from '@strata/join-queries';
import { pagingFeature } from '@strata/paging';
import { requestCacheFeature } from '@strata/request-cache';

/** The default feature list of the host: swap, extend or trim it here. */
export const DEFAULT_FEATURES: readonly FeatureModule[] = [
  authChainFeature,
  ingestFeature,
  eqlFeature,
  requestCacheFeature,
  dataStreamsFeature,
  pagingFeature,
  joinQueriesFeature,
  consoleFeature,
];
