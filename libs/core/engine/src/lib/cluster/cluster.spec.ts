import { Container } from 'inversify';
import { EsError, Tokens, type SettingsRegistry } from '@strata/core-common';
import { clusterModule } from '../cluster.module.js';
import { EngineTokens, type MetadataStore } from '../services.js';
import { DefaultMetadataIndexService } from './metadata-index-service.js';
import { DEFAULT_INDICES_OPTIONS, parseExpandWildcards } from '@strata/core-common';
import { DefaultIndexNameExpressionResolver } from './index-name-expression-resolver.js';
import { validateIndexName } from './index-name.js';
import type { EngineEventListener } from '../spi.js';
import { ExtensionPoints } from '@strata/core-common';

async function setup() {
  const c = new Container({ defaultScope: 'Singleton' });
  const events: string[] = [];
  const listener: EngineEventListener = {
    onIndexCreated: (n) => events.push(`created:${n}`),
    onIndexDeleted: (n) => events.push(`deleted:${n}`),
    onMappingUpdate: (n, v) => events.push(`mapping:${n}:${v}`),
  };
  c.bind(ExtensionPoints.EngineEventListener).toConstantValue(listener);
  await c.load(clusterModule);
  return {
    mis: c.get(DefaultMetadataIndexService),
    resolver: c.get(DefaultIndexNameExpressionResolver),
    store: c.get<MetadataStore>(EngineTokens.MetadataStore),
    registry: c.get<SettingsRegistry>(Tokens.SettingsRegistry),
    events,
  };
}

async function rejects(p: Promise<unknown>): Promise<[string, string]> {
  try {
    await p;
  } catch (e) {
    return [(e as EsError).type, (e as EsError).reason];
  }
  throw new Error('expected a rejection');
}
function throws(f: () => unknown): [string, string] {
  try {
    f();
  } catch (e) {
    return [(e as EsError).type, (e as EsError).reason];
  }
  throw new Error('expected an error');
}

describe('index name validation', () => {
  it.each([
    ['Abc', 'must be lowercase'],
    ['_a', "must not start with '_', '-', or '+'"],
    ['-a', "must not start with '_', '-', or '+'"],
    ['a#b', "must not contain '#'"],
    ['a:b', "must not contain ':'"],
    ['a b', 'must not contain the following characters [\\, /, *, ?, ", <, >, |,  , ,]'],
    ['..', "must not be '.' or '..'"],
    ['a'.repeat(256), 'index name is too long, (256 > 255)'],
  ])('%s', (name, why) => {
    expect(throws(() => validateIndexName(name))).toEqual(['invalid_index_name_exception', `Invalid index name [${name}], ${why}`]);
  });
});

describe('MetadataIndexService', () => {
  it('creates an index with settings, mappings and aliases', async () => {
    const { mis, store, events } = await setup();
    const im = await mis.createIndex('logs', {
      settings: { number_of_shards: 2, index: { max_result_window: '500' } },
      mappings: { properties: { a: { type: 'keyword' } } },
      aliases: { all: {}, w: { is_write_index: true } },
    });
    expect(im.numberOfShards).toBe(2);
    expect(im.numberOfReplicas).toBe(1);
    expect(im.settings).toEqual({ 'index.number_of_shards': 2, 'index.max_result_window': 500 });
    expect(im.mappings).toEqual({ properties: { a: { type: 'keyword' } } });
    expect(im.aliases).toEqual({ all: {}, w: { is_write_index: true } });
    expect(im.uuid).toHaveLength(22);
    expect(im.primaryTerms).toEqual([1, 1]);
    expect(store.current().indices['logs'].state).toBe('open');
    expect(events).toEqual(['created:logs']);
  });

  it('rejects duplicates, bad settings and bad mappings like ES', async () => {
    const { mis } = await setup();
    await mis.createIndex('a', {});
    expect((await rejects(mis.createIndex('a', {})))[0]).toBe('resource_already_exists_exception');
    expect(await rejects(mis.createIndex('b', { settings: { foo: 1 } }))).toEqual([
      'illegal_argument_exception',
      'unknown setting [index.foo] please check that any required plugins are installed, or check the breaking changes documentation for removed settings',
    ]);
    expect(await rejects(mis.createIndex('b', { settings: { number_of_shards: 0 } }))).toEqual([
      'illegal_argument_exception', 'Failed to parse value [0] for setting [index.number_of_shards] must be >= 1',
    ]);
    expect(await rejects(mis.createIndex('b', { settings: { 'index.uuid': 'x' } }))).toEqual([
      'illegal_argument_exception', 'private index setting [index.uuid] can not be set explicitly',
    ]);
    expect((await rejects(mis.createIndex('b', { mappings: { properties: { x: { type: 'nope' } } } })))[1]).toBe(
      'Failed to parse mapping: No handler for type [nope] declared on field [x]',
    );
    expect((await rejects(mis.createIndex('B', {})))[0]).toBe('invalid_index_name_exception');
    expect((await rejects(mis.createIndex('c', { settings: { 'analysis.analyzer.x.tokenizer': 'nope' } })))[1]).toBe(
      'Custom Analyzer [x] failed to find tokenizer under name [nope]',
    );
  });

  it('puts mappings (version bump only on change) and updates settings', async () => {
    const { mis, store, events } = await setup();
    await mis.createIndex('a', { mappings: { properties: { x: { type: 'long' } } } });
    await mis.putMapping(['a'], { properties: { y: { type: 'keyword' } } });
    await mis.putMapping(['a'], { properties: { y: { type: 'keyword' } } });
    expect(store.current().indices['a'].mappingVersion).toBe(2);
    expect(events).toEqual(['created:a', 'mapping:a:2']);
    expect(await rejects(mis.putMapping(['a'], { properties: { x: { type: 'text' } } }))).toEqual([
      'illegal_argument_exception', 'mapper [x] cannot be changed from type [long] to [text]',
    ]);
    await mis.updateSettings(['a'], { index: { number_of_replicas: 0 } });
    expect(store.current().indices['a'].numberOfReplicas).toBe(0);
    expect(store.current().indices['a'].settingsVersion).toBe(2);
    const uuid = store.current().indices['a'].uuid;
    expect(await rejects(mis.updateSettings(['a'], { 'index.codec': 'best_compression' }))).toEqual([
      'illegal_argument_exception', `Can't update non dynamic settings [[index.codec]] for open indices [[a/${uuid}]]`,
    ]);
    expect(await rejects(mis.updateSettings(['a'], { number_of_shards: 3 }))).toEqual([
      'illegal_argument_exception', 'final index setting [index.number_of_shards], not updateable',
    ]);
    await mis.updateSettings(['a'], { 'index.number_of_replicas': null });
    expect(store.current().indices['a'].numberOfReplicas).toBe(1);
  });

  it('applies the matching index template (components, template, then request)', async () => {
    const { mis, store } = await setup();
    await store.update((d) => {
      d.custom['component_template'] = { ct: { template: { settings: { number_of_replicas: 0 }, mappings: { properties: { a: { type: 'keyword' } } } } } };
      d.custom['index_template'] = {
        low: { index_patterns: ['logs-*'], priority: 1, template: { settings: { number_of_shards: 5 } } },
        high: { index_patterns: ['logs-*'], priority: 10, composed_of: ['ct'], template: { mappings: { properties: { b: { type: 'long' } } }, aliases: { logs: {} } } },
      };
    });
    const im = await mis.createIndex('logs-1', { mappings: { properties: { c: { type: 'date' } } } });
    expect(im.numberOfShards).toBe(1);
    expect(im.numberOfReplicas).toBe(0);
    expect(im.mappings).toEqual({ properties: { a: { type: 'keyword' }, b: { type: 'long' }, c: { type: 'date' } } });
    expect(im.aliases).toEqual({ logs: {} });
    expect((await mis.createIndex('other', {})).mappings).toEqual({});
  });

  it('aliases and deletes', async () => {
    const { mis, resolver, store, events } = await setup();
    await mis.createIndex('a1', {});
    await mis.createIndex('a2', {});
    await mis.updateAliases(
      [{ type: 'add', indices: ['a*'], aliases: ['al'], body: {} }, { type: 'add', indices: ['a2'], aliases: ['w'], body: { is_write_index: true } }],
      (e) => resolver.concreteIndices(e, DEFAULT_INDICES_OPTIONS),
    );
    expect(resolver.concreteIndices('al', DEFAULT_INDICES_OPTIONS)).toEqual(['a1', 'a2']);
    expect(resolver.writeIndex('w')).toBe('a2');
    expect(throws(() => resolver.writeIndex('al'))[1]).toContain('no write index is defined for alias [al]');
    expect(
      (await rejects(mis.updateAliases([{ type: 'remove', indices: ['a1'], aliases: ['nope'], body: {} }], (e) => e)))[0],
    ).toBe('aliases_not_found_exception');
    await mis.deleteIndices(['a1']);
    expect(Object.keys(store.current().indices)).toEqual(['a2']);
    expect(events).toContain('deleted:a1');
  });
});

describe('IndexNameExpressionResolver', () => {
  it('wildcards, exclusions, hidden, closed, options and errors', async () => {
    const { mis, resolver, store } = await setup();
    for (const n of ['logs-1', 'logs-2', 'other', '.hidden']) await mis.createIndex(n, {});
    await mis.createIndex('hid', { settings: { 'index.hidden': true } });
    await mis.createIndex('closed-1', {});
    await mis.setState(['closed-1'], 'close');
    const o = DEFAULT_INDICES_OPTIONS;
    expect(resolver.concreteIndices('logs-*', o)).toEqual(['logs-1', 'logs-2']);
    expect(resolver.concreteIndices(undefined, o)).toEqual(['logs-1', 'logs-2', 'other']);
    expect(resolver.concreteIndices('_all', o)).toEqual(['logs-1', 'logs-2', 'other']);
    expect(resolver.concreteIndices('*,-logs-2', o)).toEqual(['logs-1', 'other']);
    expect(resolver.concreteIndices('.h*', o)).toEqual(['.hidden']);
    expect(resolver.concreteIndices('*', { ...o, expandWildcards: parseExpandWildcards('open,hidden') })).toEqual(['.hidden', 'hid', 'logs-1', 'logs-2', 'other']);
    expect(resolver.concreteIndices('*', { ...o, expandWildcards: parseExpandWildcards('all') })).toContain('closed-1');
    expect(resolver.concreteIndices('hid', o)).toEqual(['hid']);
    expect(throws(() => resolver.concreteIndices('missing', o))).toEqual(['index_not_found_exception', 'no such index [missing]']);
    expect(resolver.concreteIndices('missing,other', { ...o, ignoreUnavailable: true })).toEqual(['other']);
    expect(throws(() => resolver.concreteIndices('nomatch*', { ...o, allowNoIndices: false }))).toEqual(['index_not_found_exception', 'no such index [nomatch*]']);
    expect(resolver.concreteIndices('nomatch*', o)).toEqual([]);
    expect(throws(() => resolver.concreteIndices('closed-1', o))).toEqual(['index_closed_exception', 'closed']);
    // the index exists, so the error names its real uuid (ES IndexClosedException(Index))
    const closedErr = (() => {
      try {
        resolver.concreteIndices('closed-1', o);
      } catch (e) {
        return e as EsError;
      }
      throw new Error('expected an error');
    })();
    expect(closedErr.metadata).toEqual({ index_uuid: store.current().indices['closed-1']!.uuid, index: 'closed-1' });
    expect(closedErr.metadata['index_uuid']).not.toBe('_na_');
    expect(resolver.resolve('closed-1', o, 'read', { allowClosed: true })).toEqual(['closed-1']);
    expect(resolver.concreteIndices('*', { ...o, expandWildcards: parseExpandWildcards('none') })).toEqual([]);
  });
});

describe('IndexNameResolver contributions', () => {
  it('consults contributed resolvers for names and wildcards', async () => {
    const c = new Container({ defaultScope: 'Singleton' });
    c.bind(ExtensionPoints.IndexNameResolver).toConstantValue({
      order: 200,
      resolve: (name: string, _o: unknown, purpose: 'read' | 'write') => {
        if (name === 'stream') return purpose === 'write' ? ['.ds-stream-2'] : ['.ds-stream-1', '.ds-stream-2'];
        if (name === 'str*') return ['.ds-stream-1', '.ds-stream-2'];
        return undefined;
      },
    });
    await c.load(clusterModule);
    const mis = c.get(DefaultMetadataIndexService);
    const r = c.get(DefaultIndexNameExpressionResolver);
    await mis.createIndex('.ds-stream-1', { settings: { 'index.hidden': true } });
    await mis.createIndex('.ds-stream-2', { settings: { 'index.hidden': true } });
    await mis.createIndex('plain', {});
    expect(r.concreteIndices('stream', DEFAULT_INDICES_OPTIONS)).toEqual(['.ds-stream-1', '.ds-stream-2']);
    expect(r.concreteIndices('stream', DEFAULT_INDICES_OPTIONS, 'write')).toEqual(['.ds-stream-2']);
    expect(r.writeIndex('stream')).toBe('.ds-stream-2');
    expect(r.concreteIndices('str*,plain', DEFAULT_INDICES_OPTIONS)).toEqual(['.ds-stream-1', '.ds-stream-2', 'plain']);
    expect(r.exists('stream')).toBe(true);
    expect(r.exists('nope')).toBe(false);
  });
});

describe('date math index names', () => {
  it('resolves <static{math{format|tz}}> names', async () => {
    const { resolveDateMathIndexName } = await import('./index-name.js');
    const now = Date.UTC(2024, 2, 15, 22, 30);
    expect(resolveDateMathIndexName('<logs-{now/d}>', now)).toBe('logs-2024.03.15');
    expect(resolveDateMathIndexName('<logs-{now/M{yyyy.MM}}>', now)).toBe('logs-2024.03');
    expect(resolveDateMathIndexName('<logs-{now/d{yyyy.MM.dd|+12:00}}>', now)).toBe('logs-2024.03.16');
    expect(resolveDateMathIndexName('<logs-{now/d-1d}>', now)).toBe('logs-2024.03.14');
    expect(resolveDateMathIndexName('<a\\{b\\}-{now/y{yyyy}}>', now)).toBe('a{b}-2024');
    expect(resolveDateMathIndexName('plain', now)).toBe('plain');
    const { mis, resolver } = await setup();
    const im = await mis.createIndex('<d-{now/y{yyyy}}>', {});
    expect(im.name).toBe(`d-${new Date().getUTCFullYear()}`);
    expect(resolver.concreteIndices('<d-{now/y{yyyy}}>', DEFAULT_INDICES_OPTIONS)).toEqual([im.name]);
  });
});

describe('alias filters and routing', () => {
  it('returns the filter of filtered aliases only', async () => {
    const { mis, resolver } = await setup();
    await mis.createIndex('i', { aliases: { f1: { filter: { term: { a: 1 } } }, f2: { filter: { term: { b: 2 } } }, plain: {}, r: { search_routing: '1,2' } } });
    expect(resolver.aliasFilter('i', 'f1')).toEqual({ term: { a: 1 } });
    expect(resolver.aliasFilter('i', 'f1,f2')).toEqual({ bool: { should: [{ term: { a: 1 } }, { term: { b: 2 } }] } });
    expect(resolver.aliasFilter('i', 'f1,plain')).toBeUndefined();
    expect(resolver.aliasFilter('i', 'f1,i')).toBeUndefined();
    expect(resolver.aliasFilter('i', 'i*')).toBeUndefined();
    expect(resolver.aliasSearchRouting('i', 'r')).toEqual(['1', '2']);
  });
});

describe('index blocks', () => {
  it('read_only blocks mapping and settings updates but not block changes', async () => {
    const { mis } = await setup();
    await mis.createIndex('b', {});
    await mis.updateSettings(['b'], { 'index.blocks.read_only': true });
    expect(await rejects(mis.putMapping(['b'], { properties: { a: { type: 'keyword' } } }))).toEqual([
      'cluster_block_exception', 'index [b] blocked by: [FORBIDDEN/5/index read-only (api)];',
    ]);
    expect((await rejects(mis.updateSettings(['b'], { 'index.max_result_window': 5 })))[0]).toBe('cluster_block_exception');
    await mis.updateSettings(['b'], { 'index.blocks.read_only': false });
    await mis.putMapping(['b'], { properties: { a: { type: 'keyword' } } });
  });
});

describe('auto_expand_replicas', () => {
  it('computes replicas for a single node', async () => {
    const { effectiveReplicas } = await import('./metadata-index-service.js');
    expect(effectiveReplicas({ 'index.auto_expand_replicas': '0-1' }, 1)).toBe(0);
    expect(effectiveReplicas({ 'index.auto_expand_replicas': '0-all' }, 1)).toBe(0);
    expect(effectiveReplicas({ 'index.auto_expand_replicas': '1-all' }, 0)).toBe(1);
    expect(effectiveReplicas({}, 2)).toBe(2);
    const { mis } = await setup();
    expect((await mis.createIndex('ae', { settings: { 'index.auto_expand_replicas': '0-1' } })).numberOfReplicas).toBe(0);
  });
});
