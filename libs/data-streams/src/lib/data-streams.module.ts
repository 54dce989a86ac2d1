import { ContainerModule } from 'inversify';
import { ExtensionPoints, type FeatureModule, type XPackFeature } from '@strata/core-common';
import { TemplateService } from './templates/template-service.js';
import { TEMPLATE_REST_HANDLERS } from './templates/templates.rest-handlers.js';
import { DataStreamService } from './streams/data-stream-service.js';
import { DataStreamIndexNameResolver } from './streams/data-stream.resolver.js';
import { DataStreamIndexInterceptor } from './streams/data-stream.interceptor.js';
import { DataStreamMetadataParticipant } from './streams/data-stream.participant.js';
import { DATA_STREAM_REST_HANDLERS } from './streams/data-streams.rest-handlers.js';
import { RolloverService } from './rollover/rollover-service.js';
import { DATA_STREAMS_SETTINGS } from './data-streams.settings.js';
import { IlmService } from './ilm/ilm-service.js';
import { IlmRunner } from './ilm/ilm-runner.js';
import { ILM_REST_HANDLERS } from './ilm/ilm.rest-handlers.js';
import { DataStreamLifecycleRunner, ExplainDataLifecycleRestHandler } from './lifecycle/data-stream-lifecycle.js';

/**
 * The data-streams feature: index templates (composable, component, legacy), data streams and rollover,
 * index lifecycle management and the data stream lifecycle.
 */
export const dataStreamsModule = new ContainerModule(({ bind }) => {
  bind(TemplateService).toSelf().inSingletonScope();
  bind(DataStreamService).toSelf().inSingletonScope();
  bind(RolloverService).toSelf().inSingletonScope();
  bind(ExtensionPoints.IndexNameResolver).to(DataStreamIndexNameResolver).inSingletonScope();
  for (const name of ['data_streams', 'ilm']) bind(ExtensionPoints.XPackFeature).toConstantValue({ name, enabled: () => true } satisfies XPackFeature);
  bind(ExtensionPoints.IndexRequestInterceptor).to(DataStreamIndexInterceptor).inSingletonScope();
  bind(ExtensionPoints.MetadataParticipant).to(DataStreamMetadataParticipant).inSingletonScope();
  bind(IlmService).toSelf().inSingletonScope();
  bind(IlmRunner).toSelf().inSingletonScope();
  bind(ExtensionPoints.LifecycleComponent).toService(IlmRunner);
  bind(DataStreamLifecycleRunner).toSelf().inSingletonScope();
  bind(ExtensionPoints.LifecycleComponent).toService(DataStreamLifecycleRunner);
  for (const h of [...TEMPLATE_REST_HANDLERS, ...DATA_STREAM_REST_HANDLERS, ...ILM_REST_HANDLERS, ExplainDataLifecycleRestHandler]) {
    bind(ExtensionPoints.RestHandler).to(h).inSingletonScope();
  }
  for (const s of DATA_STREAMS_SETTINGS) bind(ExtensionPoints.Setting).toConstantValue(s);
});

export const dataStreamsFeature: FeatureModule = { name: 'data-streams', module: dataStreamsModule };
