import { ContainerModule } from 'inversify';
import type { FeatureModule } from '@strata/core-common';

/** The eql feature: contributes nothing yet (a shell the host can load, swap or leave out). */
export const eqlModule = new ContainerModule(() => {
  /* contributions are bound here */
});

export const eqlFeature: FeatureModule = { name: 'eql', module: eqlModule };
