import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, readConfigFile, settingsFromArgv, settingsFromEnv } from './config.js';

describe('config loader', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-conf-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('uses the defaults when nothing is given', async () => {
    expect(await loadConfig([], {}, dir)).toEqual({
      file: undefined,
      configDir: join(dir, 'config'),
      settings: { 'http.port': 9200, 'network.host': '127.0.0.1', 'path.data': './data', 'cluster.name': 'strata' },
    });
  });

  it('applies -E over env over file over defaults', async () => {
    mkdirSync(join(dir, 'config'));
    writeFileSync(join(dir, 'config', 'strata.yml'), 'http:\n  port: 9300\ncluster.name: from-file\nnode.name: file-node\npath:\n  data: /file\n');
    const env = { STRATA_HTTP_PORT: '9400', STRATA_CLUSTER_NAME: 'from-env', PATH: '/bin' };
    const r = await loadConfig(['-E', 'http.port=9500', '-Enode.name=flag-node'], env, dir);
    expect(r.file).toBe(join(dir, 'config', 'strata.yml'));
    expect(r.settings).toEqual({
      'http.port': '9500',
      'network.host': '127.0.0.1',
      'path.data': '/file',
      'cluster.name': 'from-env',
      'node.name': 'flag-node',
    });
  });

  it('reads $STRATA_PATH_CONF and JSON files', async () => {
    const conf = join(dir, 'elsewhere');
    mkdirSync(conf);
    writeFileSync(join(conf, 'strata.json'), '{"http": {"port": 9600}, "logger.level": "warn"}');
    const r = await loadConfig([], { STRATA_PATH_CONF: conf }, dir);
    expect(r.settings['http.port']).toBe(9600);
    expect(r.settings['logger.level']).toBe('warn');
    expect(r.settings['path.conf']).toBeUndefined();
  });

  it('maps ELASTIC_PASSWORD to bootstrap.password (below -E)', async () => {
    expect((await loadConfig([], { ELASTIC_PASSWORD: 's3cret' }, dir)).settings['bootstrap.password']).toBe('s3cret');
    expect((await loadConfig(['-E', 'bootstrap.password=flag'], { ELASTIC_PASSWORD: 's3cret' }, dir)).settings['bootstrap.password']).toBe('flag');
    expect((await loadConfig([], {}, dir)).settings['bootstrap.password']).toBeUndefined();
  });

  it('reports a broken file', async () => {
    writeFileSync(join(dir, 'strata.yml'), 'a: [1,\n');
    await expect(readConfigFile(dir)).rejects.toThrow(/failed to parse config file/);
    writeFileSync(join(dir, 'strata.yml'), '- 1\n- 2\n');
    await expect(readConfigFile(dir)).rejects.toThrow(/must hold an object/);
  });

  it('maps env names: _ → . and __ → _', () => {
    expect(settingsFromEnv({ STRATA_HTTP_MAX__CONTENT__LENGTH: '1mb', STRATA_PATH_DATA: '/d', OTHER: 'x' })).toEqual({
      'http.max_content_length': '1mb',
      'path.data': '/d',
    });
  });

  it('parses -E flags strictly', () => {
    expect(settingsFromArgv(['-E', 'a.b=c=d', '-Ex=1'])).toEqual({ 'a.b': 'c=d', x: '1' });
    expect(() => settingsFromArgv(['--port', '1'])).toThrow('unknown argument [--port]; use -E <key>=<value> to set a setting');
    expect(() => settingsFromArgv(['-E', 'novalue'])).toThrow('setting [novalue] must be in the form <key>=<value>');
    expect(() => settingsFromArgv(['-E'])).toThrow('missing <key>=<value> after -E');
    expect(() => settingsFromArgv(['-E', 'a=1', '-E', 'a=2'])).toThrow('setting [a] already set, saw [1] and [2]');
  });
});
