import { Container, ContainerModule } from 'inversify';
import { ExtensionPoints, Tokens, type IngestProcessorFactory, type NodeStatsContributor, type RestHandler, type SettingDef } from '@strata/core-common';
import { EngineTokens, InMemoryMetadataStore, type IndexRequestInterceptor } from '@strata/core-engine';
import { ingestFeature, ingestModule } from './ingest.module.js';
import { IngestService } from './ingest.service.js';
import { IngestDocument } from './ingest-document.js';
import { fixedClock } from './testing/helpers.js';

/** a processor contributed by another feature through the core-common SPI only */
const shout: IngestProcessorFactory = {
  type: 'shout',
  create(config, tag, description) {
    const field = config['field'];
    if (typeof field !== 'string') {
      throw new Error('[field] required property is missing');
    }
    return {
      type: 'shout',
      tag,
      description,
      execute(doc) {
        doc.setFieldValue(field, String(doc.getFieldValue(field)).toUpperCase() + '!');
        return doc;
      },
    };
  },
};

async function container(): Promise<Container> {
  const c = new Container({ defaultScope: 'Singleton' });
  await c.load(
    new ContainerModule(({ bind }) => {
      bind(EngineTokens.MetadataStore).toConstantValue(new InMemoryMetadataStore());
      bind(Tokens.Clock).toConstantValue(fixedClock);
      bind(ExtensionPoints.IngestProcessor).toConstantValue(shout);
    }),
    ingestModule,
  );
  return c;
}

describe('ingestModule', () => {
  it('is the ingest feature', () => {
    expect(ingestFeature.name).toBe('ingest');
    expect(ingestFeature.module).toBe(ingestModule);
  });

  it('contributes REST handlers, the interceptor, settings, node stats and accepts SPI processors from other features', async () => {
    const c = await container();
    const handlers = c.getAll<RestHandler>(ExtensionPoints.RestHandler);
    expect(handlers.map((h) => h.name).sort()).toEqual([
      'ingest_delete_pipeline',
      'ingest_get_pipeline',
      'ingest_processor_grok_get',
      'ingest_put_pipeline',
      'ingest_simulate_pipeline',
    ]);
    const interceptors = c.getAll<IndexRequestInterceptor>(ExtensionPoints.IndexRequestInterceptor);
    expect(interceptors.map((i) => [i.name, i.order])).toEqual([['ingest', 100]]);
    const settings = c.getAll<SettingDef>(ExtensionPoints.Setting);
    expect(settings.map((s) => [s.key, s.scope, s.dynamic, s.defaultValue])).toEqual([
      ['index.default_pipeline', 'index', true, '_none'],
      ['index.final_pipeline', 'index', true, '_none'],
    ]);
    const stats = c.getAll<NodeStatsContributor>(ExtensionPoints.NodeStatsContributor);
    expect(stats.map((s) => s.section)).toEqual(['ingest']);

    const service = c.get(IngestService);
    expect(service.registry.has('shout')).toBe(true);
    expect(service.registry.has('set')).toBe(true);
    await service.put('p', { processors: [{ shout: { field: 'a' } }] });
    const out = service.requirePipeline('p').execute(IngestDocument.create({ a: 'hi' }, { _index: 'i' }, 'ts'), service.executionContext());
    expect(out!.source).toEqual({ a: 'HI!' });
    expect(stats[0].stats({ human: false })).toMatchObject({ total: { count: 0 }, pipelines: { p: { count: 1 } } });
  });
});
