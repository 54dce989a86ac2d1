import { ipBytes, stripHtml } from './network.processors.js';
import { create, run, thrown } from '../testing/helpers.js';

describe('community_id', () => {
  it('matches the Community ID v1 reference value and is direction-independent', () => {
    const fwd = run({ community_id: {} }, { source: { ip: '128.232.110.120', port: 34855 }, destination: { ip: '66.35.250.204', port: 80 }, network: { transport: 'TCP' } })!;
    expect(fwd.getFieldValue('network.community_id')).toBe('1:LQU9qZlK+B5F3KDmev6m5PMibrg=');
    const rev = run({ community_id: {} }, { destination: { ip: '128.232.110.120', port: 34855 }, source: { ip: '66.35.250.204', port: 80 }, network: { transport: 'tcp' } })!;
    expect(rev.getFieldValue('network.community_id')).toBe('1:LQU9qZlK+B5F3KDmev6m5PMibrg=');
  });
  it('seed changes the hash; missing fields are ignored by default', () => {
    const a = run({ community_id: { seed: 123 } }, { source: { ip: '1.2.3.4', port: 1 }, destination: { ip: '5.6.7.8', port: 2 }, network: { iana_number: 6 } })!;
    expect(a.getFieldValue('network.community_id')).not.toBe('1:LQU9qZlK+B5F3KDmev6m5PMibrg=');
    expect(run({ community_id: {} }, { a: 1 })!.source).toEqual({ a: 1 });
    expect(thrown(() => create({ community_id: { seed: 70000 } })).type).toBe('parse_exception');
  });
});

describe('network_direction', () => {
  it.each([
    ['10.0.0.1', '10.0.0.2', 'internal'],
    ['10.0.0.1', '8.8.8.8', 'outbound'],
    ['8.8.8.8', '192.168.1.1', 'inbound'],
    ['8.8.8.8', '1.1.1.1', 'external'],
  ])('%s → %s is %s', (s, d, dir) => {
    const out = run({ network_direction: { internal_networks: ['private', '127.0.0.0/8'] } }, { source: { ip: s }, destination: { ip: d } })!;
    expect(out.getFieldValue('network.direction')).toBe(dir);
  });
  it('requires a network list', () => {
    expect(thrown(() => create({ network_direction: {} })).reason).toBe('[internal_networks] or [internal_networks_field] must be specified');
  });
});

describe('sort and html_strip', () => {
  it('sorts numbers and strings', () => {
    expect(run({ sort: { field: 'a' } }, { a: [3, 1, 2] })!.source['a']).toEqual([1, 2, 3]);
    expect(run({ sort: { field: 'a', order: 'desc', target_field: 'b' } }, { a: ['b', 'c', 'a'] })!.source['b']).toEqual(['c', 'b', 'a']);
  });
  it('strips tags and decodes entities', () => {
    expect(stripHtml('<p>Hello&nbsp;<b>world</b> &amp; &#65;</p>')).toBe('\nHello\u00a0world & A\n');
    expect(run({ html_strip: { field: 'h' } }, { h: '<i>x</i>' })!.source['h']).toBe('x');
  });
  it('parses IPv6 literals', () => {
    expect(Array.from(ipBytes('::ffff:1.2.3.4')!)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4]);
    expect(ipBytes('1::2::3')).toBeUndefined();
  });
});
