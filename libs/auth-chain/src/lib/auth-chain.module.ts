import { ContainerModule } from 'inversify';
import type { FeatureModule } from '@strata/core-common';

/** The auth-chain feature: contributes nothing yet (a shell the host can load, swap or leave out). */
export const authChainModule = new ContainerModule(() => {
  /* contributions are bound here */
});

export const authChainFeature: FeatureModule = { name: 'auth-chain', module: authChainModule };
