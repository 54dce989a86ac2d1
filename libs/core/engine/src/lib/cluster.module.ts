/**
 * DI wiring of cluster metadata, settings, analysis and mappings: MetadataStore (file under path.data),
 * SettingsRegistry (from every ExtensionPoints.Setting contribution), AnalysisRegistry, MapperService,
 * IndexNameExpressionResolver, MetadataIndexService and the core index/cluster setting definitions.
 */
import { ContainerModule } from 'inversify';
import { ExtensionPoints, SettingsRegistry, Tokens, type HostConfig, type SettingDef } from '@strata/core-common';
import { EngineTokens } from './services.js';
import { FileMetadataStore, InMemoryMetadataStore } from './cluster/metadata-store.js';
import { DefaultAnalysisRegistry } from './analysis/analysis-registry.js';
import { DefaultMapperService } from './mapper/mapper-service.js';
import { DefaultIndexNameExpressionResolver } from './cluster/index-name-expression-resolver.js';
import { DefaultMetadataIndexService } from './cluster/metadata-index-service.js';
import { CORE_CLUSTER_SETTINGS, CORE_INDEX_SETTINGS } from './cluster/index-settings.js';

export const clusterModule = new ContainerModule((options) => {
  options
    .bind(EngineTokens.MetadataStore)
    .toDynamicValue((ctx) => {
      const cfg = ctx.get<HostConfig>(Tokens.HostConfig, { optional: true });
      const dataPath = cfg?.settings['path.data'];
      return dataPath ? new FileMetadataStore(String(dataPath)) : new InMemoryMetadataStore();
    })
    .inSingletonScope();
  options
    .bind(Tokens.SettingsRegistry)
    .toDynamicValue((ctx) => new SettingsRegistry(ctx.getAll<SettingDef>(ExtensionPoints.Setting, { optional: true }) ?? []))
    .inSingletonScope();
  options.bind(DefaultAnalysisRegistry).toSelf().inSingletonScope();
  options.bind(EngineTokens.AnalysisRegistry).toService(DefaultAnalysisRegistry);
  options.bind(DefaultMapperService).toSelf().inSingletonScope();
  options.bind(EngineTokens.MapperService).toService(DefaultMapperService);
  options.bind(DefaultIndexNameExpressionResolver).toSelf().inSingletonScope();
  options.bind(EngineTokens.IndexNameExpressionResolver).toService(DefaultIndexNameExpressionResolver);
  options.bind(DefaultMetadataIndexService).toSelf().inSingletonScope();
  options.bind(EngineTokens.MetadataIndexService).toService(DefaultMetadataIndexService);
  for (const s of [...CORE_INDEX_SETTINGS, ...CORE_CLUSTER_SETTINGS]) options.bind(ExtensionPoints.Setting).toConstantValue(s);
});
