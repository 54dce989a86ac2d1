import { ContainerModule } from 'inversify';
import type { FeatureModule } from '@strata/core-common';

/** The join-queries feature: contributes nothing yet (a shell the host can load, swap or leave out). */
export const joinQueriesModule = new ContainerModule(() => {
  /* contributions are bound here */
});

export const joinQueriesFeature: FeatureModule = { name: 'join-queries', module: joinQueriesModule };
