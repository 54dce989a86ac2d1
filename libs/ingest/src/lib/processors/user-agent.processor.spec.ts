import { parseUserAgent } from './user-agent.processor.js';
import { create, run, thrown } from '../testing/helpers.js';

describe('user_agent', () => {
  it.each([
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_10_5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/51.0.2704.103 Safari/537.36',
      { name: 'Chrome', version: '51.0.2704.103', os: { name: 'Mac OS X', version: '10.10.5', full: 'Mac OS X 10.10.5' }, device: { name: 'Mac' } },
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
      { name: 'Firefox', version: '121.0', os: { name: 'Windows', version: '10', full: 'Windows 10' }, device: { name: 'Other' } },
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
      { name: 'Mobile Safari', version: '17.2', os: { name: 'iOS', version: '17.2', full: 'iOS 17.2' }, device: { name: 'iPhone' } },
    ],
    [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      { name: 'Googlebot', version: '2.1', device: { name: 'Spider' } },
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91',
      { name: 'Edge', version: '120.0.2210.91', os: { name: 'Windows', version: '10', full: 'Windows 10' }, device: { name: 'Other' } },
    ],
    ['curl/8.4.0', { name: 'curl', version: '8.4.0', device: { name: 'Other' } }],
  ])('%s', (ua, expected) => {
    const info = parseUserAgent(ua);
    const { deviceType: _t, ...rest } = info;
    expect(rest).toEqual(expected);
  });

  it('writes user_agent.* with the selected properties', () => {
    const ua = 'Mozilla/5.0 (Linux; Android 10; SM-G973F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/83.0.4103.106 Mobile Safari/537.36';
    const d = run({ user_agent: { field: 'ua', extract_device_type: true } }, { ua })!;
    expect(d.source['user_agent']).toEqual({
      name: 'Chrome Mobile',
      original: ua,
      version: '83.0.4103.106',
      os: { name: 'Android', version: '10', full: 'Android 10' },
      device: { name: 'SM-G973F', type: 'Phone' },
    });
    const p = run({ user_agent: { field: 'ua', properties: ['name'], target_field: 'x' } }, { ua })!;
    expect(p.source['x']).toEqual({ name: 'Chrome Mobile' });
    expect(thrown(() => create({ user_agent: { field: 'ua', properties: ['bogus'] } })).type).toBe('parse_exception');
    expect(run({ user_agent: { field: 'ua', ignore_missing: true } }, {})!.source).toEqual({});
  });
});
