import { ContainerModule } from 'inversify';
import type { FeatureModule } from '@strata/core-common';

/** The data-streams feature: contributes nothing yet (a shell the host can load, swap or leave out). */
export const dataStreamsModule = new ContainerModule(() => {
  /* contributions are bound here */
});

export const dataStreamsFeature: FeatureModule = { name: 'data-streams', module: dataStreamsModule };
