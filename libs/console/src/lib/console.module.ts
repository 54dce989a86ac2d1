import { ContainerModule } from 'inversify';
import { ExtensionPoints, type FeatureModule } from '@strata/core-common';
import { ConsoleAssetsRestHandler, ConsoleSpecRestHandler } from './console.rest-handlers.js';
import { CONSOLE_ENABLED } from './console.settings.js';

/**
 * The web console: a Dev Tools-like editor, EQL timelines, a pipeline debugger, the live view of open
 * search contexts and an indices overview, served at `/_console` from files inlined in the build.
 */
export const consoleModule = new ContainerModule(({ bind }) => {
  bind(ExtensionPoints.Setting).toConstantValue(CONSOLE_ENABLED);
  bind(ExtensionPoints.RestHandler).to(ConsoleAssetsRestHandler).inSingletonScope();
  bind(ExtensionPoints.RestHandler).to(ConsoleSpecRestHandler).inSingletonScope();
});

export const consoleFeature: FeatureModule = { name: 'console', module: consoleModule };
