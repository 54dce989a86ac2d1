import { ContainerModule } from 'inversify';
import { ExtensionPoints, type FeatureModule, type NodeStatsContributor } from '@strata/core-common';
import { IngestService, IngestTokens } from './ingest.service.js';
import { PipelineIndexInterceptor } from './pipeline.interceptor.js';
import { BUILTIN_PROCESSORS } from './processors/index.js';
import {
  DeletePipelineRestHandler,
  GetPipelineRestHandler,
  GrokPatternsRestHandler,
  PutPipelineRestHandler,
  SimulatePipelineRestHandler,
} from './rest/pipeline.rest-handlers.js';
import { DEFAULT_PIPELINE_SETTING, FINAL_PIPELINE_SETTING } from './ingest.settings.js';

export const ingestModule = new ContainerModule(({ bind }) => {
  bind(IngestService).toSelf().inSingletonScope();
  bind(IngestTokens.IngestService).toService(IngestService);
  for (const f of BUILTIN_PROCESSORS) bind(ExtensionPoints.IngestProcessor).toConstantValue(f);
  bind(ExtensionPoints.RestHandler).to(PutPipelineRestHandler).inSingletonScope();
  bind(ExtensionPoints.RestHandler).to(GetPipelineRestHandler).inSingletonScope();
  bind(ExtensionPoints.RestHandler).to(DeletePipelineRestHandler).inSingletonScope();
  bind(ExtensionPoints.RestHandler).to(SimulatePipelineRestHandler).inSingletonScope();
  bind(ExtensionPoints.RestHandler).to(GrokPatternsRestHandler).inSingletonScope();
  bind(ExtensionPoints.IndexRequestInterceptor).to(PipelineIndexInterceptor).inSingletonScope();
  bind(ExtensionPoints.Setting).toConstantValue(DEFAULT_PIPELINE_SETTING);
  bind(ExtensionPoints.Setting).toConstantValue(FINAL_PIPELINE_SETTING);
  bind(ExtensionPoints.NodeStatsContributor)
    .toDynamicValue((ctx): NodeStatsContributor => {
      const svc = ctx.get(IngestService);
      return { section: 'ingest', stats: () => svc.nodeStats() };
    })
    .inSingletonScope();
});

export const ingestFeature: FeatureModule = { name: 'ingest', module: ingestModule };
