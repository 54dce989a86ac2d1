import { createTestHost, type TestHost } from '@strata/core-testing';
import { dataStreamsFeature } from '../data-streams.module.js';

describe('index templates over HTTP', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await createTestHost({ features: [dataStreamsFeature] });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('HEAD then PUT an index template (winston start-up), GET renders it like ES', async () => {
    expect((await host.request('HEAD', '/_index_template/winston')).status).toBe(404);
    const put = await host.request('PUT', '/_index_template/winston', {
      index_patterns: ['logs-winston*'],
      priority: 200,
      template: { settings: { number_of_shards: 1 }, mappings: { properties: { message: { type: 'text' } } } },
      _meta: { by: 'test' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ acknowledged: true });
    expect((await host.request('HEAD', '/_index_template/winston')).status).toBe(200);
    const get = await host.request('GET', '/_index_template/winston');
    expect(get.body).toEqual({
      index_templates: [
        {
          name: 'winston',
          index_template: {
            index_patterns: ['logs-winston*'],
            template: { settings: { index: { number_of_shards: '1' } }, mappings: { properties: { message: { type: 'text' } } } },
            composed_of: [],
            priority: 200,
            _meta: { by: 'test' },
          },
        },
      ],
    });
    // the template applies at index creation
    await host.request('PUT', '/logs-winston-1');
    const idx = await host.request('GET', '/logs-winston-1');
    expect(idx.body['logs-winston-1'].mappings).toEqual({ properties: { message: { type: 'text' } } });
    expect(idx.body['logs-winston-1'].settings.index.number_of_shards).toBe('1');
    expect((await host.request('DELETE', '/_index_template/winston')).body).toEqual({ acknowledged: true });
    const missing = await host.request('GET', '/_index_template/winston');
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe('resource_not_found_exception');
    expect(missing.body.error.reason).toBe('index template matching [winston] not found');
    const del = await host.request('DELETE', '/_index_template/winston');
    expect(del.status).toBe(404);
    expect(del.body.error).toMatchObject({ type: 'index_template_missing_exception', reason: 'index_template [winston] missing' });
  });

  it('composes component templates in order, the index template and then the request, like ES', async () => {
    await host.request('PUT', '/_component_template/ct-a', {
      template: { settings: { number_of_replicas: 0, 'index.refresh_interval': '5s' }, mappings: { properties: { a: { type: 'keyword' }, shared: { type: 'keyword' } } }, aliases: { 'alias-a': {} } },
    });
    await host.request('PUT', '/_component_template/ct-b', {
      template: { settings: { 'index.refresh_interval': '7s' }, mappings: { properties: { b: { type: 'long' }, shared: { type: 'text' } } } },
    });
    const put = await host.request('PUT', '/_index_template/composed', {
      index_patterns: ['comp-*'],
      composed_of: ['ct-a', 'ct-b'],
      template: { settings: { number_of_shards: 2 }, mappings: { properties: { c: { type: 'date' } } } },
    });
    expect(put.status).toBe(200);
    const created = await host.request('PUT', '/comp-1', { settings: { 'index.refresh_interval': '9s' }, mappings: { properties: { d: { type: 'boolean' } } } });
    expect(created.status).toBe(200);
    const idx = (await host.request('GET', '/comp-1')).body['comp-1'];
    expect(idx.settings.index.refresh_interval).toBe('9s');
    expect(idx.settings.index.number_of_shards).toBe('2');
    expect(idx.settings.index.number_of_replicas).toBe('0');
    expect(idx.mappings.properties).toEqual({ a: { type: 'keyword' }, b: { type: 'long' }, c: { type: 'date' }, d: { type: 'boolean' }, shared: { type: 'text' } });
    expect(Object.keys(idx.aliases)).toEqual(['alias-a']);
    // simulate gives the same composition, and names no other template
    const sim = await host.request('POST', '/_index_template/_simulate_index/comp-2');
    expect(sim.status).toBe(200);
    expect(sim.body.template.settings.index).toEqual({ number_of_replicas: '0', refresh_interval: '7s', number_of_shards: '2' });
    expect(sim.body.template.mappings.properties.shared).toEqual({ type: 'text' });
    expect(sim.body.template.aliases).toEqual({ 'alias-a': {} });
    expect(sim.body.overlapping).toEqual([]);
    // a component in use cannot go
    const delc = await host.request('DELETE', '/_component_template/ct-a');
    expect(delc.status).toBe(400);
    expect(delc.body.error.reason).toBe('component templates [ct-a] cannot be removed as they are still in use by index templates [composed]');
  });

  it('refuses overlapping templates of the same priority and missing components', async () => {
    await host.request('PUT', '/_index_template/t1', { index_patterns: ['over-*'], priority: 10 });
    const r = await host.request('PUT', '/_index_template/t2', { index_patterns: ['over-a*', 'other'], priority: 10 });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe('illegal_argument_exception');
    expect(r.body.error.reason).toBe(
      'index template [t2] has index patterns [over-a*, other] matching patterns from existing templates [t1] with patterns (t1 => [over-*]) that have the same priority [10], multiple index templates may not match during index creation, please use a different priority',
    );
    expect((await host.request('PUT', '/_index_template/t2', { index_patterns: ['over-a*'], priority: 11 })).status).toBe(200);
    // the higher priority wins
    const sim = await host.request('POST', '/_index_template/_simulate_index/over-abc');
    expect(sim.body.overlapping).toEqual([{ name: 't1', index_patterns: ['over-*'] }]);
    const missing = await host.request('PUT', '/_index_template/t3', { index_patterns: ['x-*'], composed_of: ['nope'] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.type).toBe('invalid_index_template_exception');
    expect(missing.body.error.reason).toBe('index_template [t3] invalid, cause [index template [t3] specifies component templates [nope] that do not exist]');
    const noPatterns = await host.request('PUT', '/_index_template/t4', { priority: 1 });
    expect(noPatterns.status).toBe(400);
    expect(noPatterns.body.error.type).toBe('action_request_validation_exception');
    const unknown = await host.request('PUT', '/_index_template/t5', { index_patterns: ['y'], bogus: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.type).toBe('x_content_parse_exception');
    expect(unknown.body.error.reason).toBe('[1:25] [index_template] unknown field [bogus]');
    const badMapping = await host.request('PUT', '/_index_template/t6', { index_patterns: ['z'], template: { mappings: { properties: { f: { type: 'nope' } } } } });
    expect(badMapping.status).toBe(400);
    expect(badMapping.body.error.reason).toBe('composable template [t6] template after composition is invalid');
    expect(badMapping.body.error.caused_by.type).toBe('mapper_parsing_exception');
    expect((await host.request('GET', '/_index_template/t6')).status).toBe(404);
  });

  it('legacy _template: stored, applied by order when no composable template matches, warns', async () => {
    const low = await host.request('PUT', '/_template/low', { index_patterns: ['leg-*'], order: 0, settings: { number_of_shards: 3, number_of_replicas: 0 }, mappings: { properties: { f: { type: 'keyword' } } } });
    expect(low.status).toBe(200);
    expect(low.headers['warning']).toContain('Legacy index templates are deprecated');
    await host.request('PUT', '/_template/high', { index_patterns: ['leg-*'], order: 5, settings: { number_of_shards: 2 }, aliases: { '{index}-alias': {} } });
    await host.request('PUT', '/leg-1');
    const idx = (await host.request('GET', '/leg-1')).body['leg-1'];
    expect(idx.settings.index.number_of_shards).toBe('2');
    expect(idx.settings.index.number_of_replicas).toBe('0');
    expect(idx.mappings).toEqual({ properties: { f: { type: 'keyword' } } });
    expect(Object.keys(idx.aliases)).toEqual(['leg-1-alias']);
    const get = await host.request('GET', '/_template/low');
    expect(get.body).toEqual({
      low: { order: 0, index_patterns: ['leg-*'], settings: { index: { number_of_shards: '3', number_of_replicas: '0' } }, mappings: { properties: { f: { type: 'keyword' } } }, aliases: {} },
    });
    expect((await host.request('HEAD', '/_template/high')).status).toBe(200);
    expect((await host.request('GET', '/_template/none')).status).toBe(404);
    // a composable template of the same pattern takes precedence (with ES's warning)
    const v2 = await host.request('PUT', '/_index_template/leg-v2', { index_patterns: ['leg-*'], template: { settings: { number_of_shards: 1 } } });
    expect(v2.headers['warning']).toContain('matching patterns from existing older templates [');
    await host.request('PUT', '/leg-2');
    expect((await host.request('GET', '/leg-2')).body['leg-2'].settings.index.number_of_shards).toBe('1');
    expect((await host.request('DELETE', '/_template/low')).status).toBe(200);
    expect((await host.request('DELETE', '/_template/low')).body.error.type).toBe('index_template_missing_exception');
  });

  it('_simulate returns the composed template of a stored or given template', async () => {
    await host.request('PUT', '/_component_template/sim-ct', { template: { mappings: { properties: { host: { type: 'keyword' } } } } });
    const r = await host.request('POST', '/_index_template/_simulate', { index_patterns: ['sim-*'], composed_of: ['sim-ct'], template: { settings: { number_of_replicas: 0 } } });
    expect(r.status).toBe(200);
    expect(r.body.template).toEqual({ settings: { index: { number_of_replicas: '0' } }, mappings: { properties: { host: { type: 'keyword' } } }, aliases: {} });
    const none = await host.request('POST', '/_index_template/_simulate/unknown-one');
    expect(none.status).toBe(404);
  });
});
