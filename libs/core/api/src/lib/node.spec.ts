import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerModule } from 'inversify';
import { ExtensionPoints, Tokens, type Clock, type IdGenerator, type LifecycleComponent } from '@strata/core-common';
import { createNode, parsePortRange, SILENT_LOGGER, TimeBasedIdGenerator } from './node.js';
import { NODE_INFO, type NodeInfo } from './cluster/node-info.js';

describe('createNode', () => {
  let dataPath: string;
  beforeEach(() => {
    dataPath = mkdtempSync(join(tmpdir(), 'strata-node-'));
  });
  afterEach(() => rmSync(dataPath, { recursive: true, force: true }));

  it('starts lifecycle components in order and stops them in reverse, once', async () => {
    const events: string[] = [];
    const comp = (name: string): LifecycleComponent => ({
      name,
      start: () => void events.push(`start ${name}`),
      stop: () => void events.push(`stop ${name}`),
    });
    const node = await createNode({
      settings: { 'path.data': dataPath },
      logger: SILENT_LOGGER,
      features: [
        {
          name: 'f',
          module: new ContainerModule(({ bind }) => {
            bind(ExtensionPoints.LifecycleComponent).toConstantValue(comp('a'));
            bind(ExtensionPoints.LifecycleComponent).toConstantValue(comp('b'));
          }),
        },
      ],
    });
    await node.start();
    await node.close();
    await node.close();
    expect(events).toEqual(['start a', 'start b', 'stop b', 'stop a']);
  });

  it('fills defaults, resolves path.data, persists the node id', async () => {
    const node = await createNode({ settings: { 'path.data': dataPath }, logger: SILENT_LOGGER });
    expect(node.settings['http.port']).toBe(9200);
    expect(node.settings['cluster.name']).toBe('strata');
    expect(node.settings['path.data']).toBe(dataPath);
    expect(node.settings['xpack.security.enabled']).toBeUndefined();
    const id = node.container.get<NodeInfo>(NODE_INFO).id;
    expect(readFileSync(join(dataPath, '_state', 'node.id'), 'utf8').trim()).toBe(id);
    await node.close();
    const again = await createNode({ settings: { 'path.data': dataPath }, logger: SILENT_LOGGER });
    expect(again.container.get<NodeInfo>(NODE_INFO).id).toBe(id);
    await again.close();
  });

  it('lets overrides rebind the clock and id generator', async () => {
    const clock: Clock = { now: () => 42, nanoTime: () => 42n };
    const ids: IdGenerator = { next: () => 'fixed' };
    const node = await createNode({
      settings: { 'path.data': dataPath },
      logger: SILENT_LOGGER,
      overrides: [
        new ContainerModule(({ rebind }) => {
          rebind(Tokens.Clock).toConstantValue(clock);
          rebind(Tokens.IdGenerator).toConstantValue(ids);
        }),
      ],
    });
    expect(node.container.get<Clock>(Tokens.Clock).now()).toBe(42);
    expect(node.container.get<IdGenerator>(Tokens.IdGenerator).next()).toBe('fixed');
    await node.close();
  });

  it('accepts the usual Elasticsearch docker settings', async () => {
    const node = await createNode({
      settings: {
        'path.data': dataPath,
        'discovery.type': 'single-node',
        'xpack.security.enabled': 'false',
        'bootstrap.memory_lock': 'true',
        'logger.level': 'silent',
      },
      logger: SILENT_LOGGER,
    });
    await node.close();
    await expect(createNode({ settings: { 'path.data': dataPath, 'discovery.type': 'zen' }, logger: SILENT_LOGGER })).rejects.toThrow(
      /invalid value for setting \[discovery.type\]/,
    );
  });

  it('rejects duplicate routes at boot', async () => {
    const h = { name: 'x', routes: [{ method: 'GET' as const, path: '/', action: 'cluster:monitor/x' }], handle: () => ({ status: 200 }) };
    await expect(
      createNode({
        settings: { 'path.data': dataPath },
        logger: SILENT_LOGGER,
        features: [{ name: 'dup', module: new ContainerModule(({ bind }) => void bind(ExtensionPoints.RestHandler).toConstantValue(h)) }],
      }),
    ).rejects.toThrow(/route \[GET \/\] of handler \[x\] already has a value \(handler \[main_action\]\)|already has a value/);
  });
});

describe('parsePortRange', () => {
  it('parses ports and ranges', () => {
    expect(parsePortRange('9200', 'http.port')).toBe(9200);
    expect(parsePortRange(0, 'http.port')).toBe(0);
    expect(parsePortRange('9200-9300', 'http.port')).toEqual([9200, 9300]);
    expect(() => parsePortRange('9300-9200', 'http.port')).toThrow(/expected a port or a port range/);
    expect(() => parsePortRange('abc', 'http.port')).toThrow(/expected a port or a port range/);
    expect(() => parsePortRange('70000', 'http.port')).toThrow(/expected a port or a port range/);
  });
});

describe('TimeBasedIdGenerator', () => {
  it('makes 20-char url-safe unique ids', () => {
    const g = new TimeBasedIdGenerator();
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const id = g.next();
      expect(id).toMatch(/^[A-Za-z0-9_-]{20}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(3000);
  });
});
