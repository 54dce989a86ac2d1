/** Network and misc processors: community_id, network_direction, sort, html_strip. */
import { createHash } from 'node:crypto';
import { Errors } from '@strata/core-common';
import { parseIpBytes } from '@strata/core-engine';
import { javaTypeName, type IngestDocument } from '../ingest-document.js';
import { compileTemplate } from '../template.js';
import { defineProcessor, type ProcessorFactory } from '../processor.js';

// ------------------------------------------------------------------------------------------ IP helpers

/**
 * an IPv4 or IPv6 literal as bytes (4 for IPv4, 16 for IPv6, as community_id hashes them); undefined when
 * invalid. Parsing is the engine's (the ip field type's parser).
 */
export function ipBytes(ip: string): Uint8Array | undefined {
  const b = parseIpBytes(ip);
  if (!b) return undefined;
  return ip.includes(':') ? b : b.slice(12);
}

/** `ip` in `cidr` (a network or a single address); IPv4 and IPv4-mapped IPv6 compare alike */
function inCidr(ip: Uint8Array, cidr: string): boolean {
  const slash = cidr.indexOf('/');
  const addr = slash < 0 ? cidr : cidr.slice(0, slash);
  const net = parseIpBytes(addr);
  if (!net) return false;
  const a = ip.length === 4 ? parseIpBytes(ip.join('.'))! : ip;
  const bits = slash < 0 ? 128 : Number(cidr.slice(slash + 1)) + (addr.includes(':') ? 0 : 96);
  for (let i = 0; i < 16; i++) {
    const take = Math.max(0, Math.min(8, bits - i * 8));
    if (take === 0) break;
    const mask = (0xff << (8 - take)) & 0xff;
    if ((a[i]! & mask) !== (net[i]! & mask)) return false;
  }
  return true;
}

const NAMED_NETWORKS: Record<string, (ip: Uint8Array) => boolean> = {
  loopback: (ip) => inCidr(ip, '127.0.0.0/8') || inCidr(ip, '::1/128'),
  unicast: (ip) => !NAMED_NETWORKS['multicast'](ip) && !inCidr(ip, '255.255.255.255/32'),
  global_unicast: (ip) =>
    NAMED_NETWORKS['unicast'](ip) && !NAMED_NETWORKS['loopback'](ip) && !NAMED_NETWORKS['link_local_unicast'](ip) && !NAMED_NETWORKS['unspecified'](ip),
  multicast: (ip) => inCidr(ip, '224.0.0.0/4') || inCidr(ip, 'ff00::/8'),
  interface_local_multicast: (ip) => inCidr(ip, 'ff01::/16'),
  link_local_unicast: (ip) => inCidr(ip, '169.254.0.0/16') || inCidr(ip, 'fe80::/10'),
  link_local_multicast: (ip) => inCidr(ip, '224.0.0.0/24') || inCidr(ip, 'ff02::/16'),
  private: (ip) => inCidr(ip, '10.0.0.0/8') || inCidr(ip, '172.16.0.0/12') || inCidr(ip, '192.168.0.0/16') || inCidr(ip, 'fd00::/8'),
  public: (ip) =>
    !NAMED_NETWORKS['private'](ip) &&
    !NAMED_NETWORKS['loopback'](ip) &&
    !NAMED_NETWORKS['unspecified'](ip) &&
    !NAMED_NETWORKS['link_local_unicast'](ip) &&
    !NAMED_NETWORKS['link_local_multicast'](ip) &&
    !NAMED_NETWORKS['interface_local_multicast'](ip) &&
    !inCidr(ip, '255.255.255.255/32'),
  unspecified: (ip) => ip.every((x) => x === 0),
};

// ------------------------------------------------------------------------------------------ network_direction

export const networkDirectionProcessor: ProcessorFactory = defineProcessor('network_direction', (r) => {
  const sourceIp = r.optionalString('source_ip', 'source.ip')!;
  const destIp = r.optionalString('destination_ip', 'destination.ip')!;
  const target = r.optionalString('target_field', 'network.direction')!;
  const ignoreMissing = r.bool('ignore_missing', true);
  const list = r.optionalList('internal_networks');
  const listField = r.optionalString('internal_networks_field');
  if (list !== undefined && listField !== undefined) {
    throw r.error('internal_networks', 'and [internal_networks_field] cannot both be used in the same processor');
  }
  if (list === undefined && listField === undefined) {
    throw r.error('internal_networks', 'or [internal_networks_field] must be specified');
  }
  const networks = (list ?? []).map((n) => compileTemplate(String(n)));
  const isInternal = (ip: Uint8Array, nets: string[]) =>
    nets.some((n) => (NAMED_NETWORKS[n] ? NAMED_NETWORKS[n](ip) : n.includes('/') || ipBytes(n) ? inCidr(ip, n) : false));
  return {
    execute(doc: IngestDocument) {
      let nets: string[];
      if (listField !== undefined) {
        const v = doc.getFieldValue(listField, ignoreMissing);
        if (v === undefined || v === null) return doc;
        nets = (Array.isArray(v) ? v : [v]).map(String);
      } else nets = networks.map((t) => t.render(doc));
      const s = doc.getFieldValue(sourceIp, ignoreMissing);
      const d = doc.getFieldValue(destIp, ignoreMissing);
      if (s === undefined || s === null || d === undefined || d === null) {
        if (ignoreMissing) return doc;
        throw Errors.illegalArgument('unable to calculate network direction from document');
      }
      const sb = ipBytes(String(s));
      const db = ipBytes(String(d));
      if (!sb || !db) throw Errors.illegalArgument('unable to calculate network direction from document');
      const si = isInternal(sb, nets);
      const di = isInternal(db, nets);
      const dir = si && di ? 'internal' : si ? 'outbound' : di ? 'inbound' : 'external';
      doc.setFieldValue(target, dir);
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ community_id

const TRANSPORTS: Record<string, number> = { icmp: 1, igmp: 2, tcp: 6, udp: 17, gre: 47, 'ipv6-icmp': 58, icmpv6: 58, eigrp: 88, ospf: 89, pim: 103, sctp: 132 };

const ICMP4_PAIRS: Record<number, number> = { 8: 0, 0: 8, 13: 14, 14: 13, 15: 16, 16: 15, 10: 9, 9: 10, 17: 18, 18: 17 };
const ICMP6_PAIRS: Record<number, number> = { 128: 129, 129: 128, 133: 134, 134: 133, 135: 136, 136: 135, 130: 131, 131: 130, 144: 145, 145: 144 };

export const communityIdProcessor: ProcessorFactory = defineProcessor('community_id', (r) => {
  const srcIp = r.optionalString('source_ip', 'source.ip')!;
  const srcPort = r.optionalString('source_port', 'source.port')!;
  const dstIp = r.optionalString('destination_ip', 'destination.ip')!;
  const dstPort = r.optionalString('destination_port', 'destination.port')!;
  const ianaNumber = r.optionalString('iana_number', 'network.iana_number')!;
  const transport = r.optionalString('transport', 'network.transport')!;
  const icmpType = r.optionalString('icmp_type', 'icmp.type')!;
  const icmpCode = r.optionalString('icmp_code', 'icmp.code')!;
  const target = r.optionalString('target_field', 'network.community_id')!;
  const seed = r.optionalInt('seed') ?? 0;
  if (seed < 0 || seed > 65535) throw r.error('seed', 'must be a value between 0 and 65535');
  const ignoreMissing = r.bool('ignore_missing', true);
  return {
    execute(doc: IngestDocument) {
      const get = (f: string) => doc.getFieldValue(f, true);
      const s = get(srcIp);
      const d = get(dstIp);
      if (s === undefined || s === null || d === undefined || d === null) {
        if (ignoreMissing) return doc;
        throw Errors.illegalArgument('unable to calculate community id: source or destination ip missing');
      }
      const sb = ipBytes(String(s));
      const db = ipBytes(String(d));
      if (!sb || !db) throw Errors.illegalArgument(`unable to parse IP address [${!sb ? String(s) : String(d)}]`);
      let proto: number | undefined;
      const iana = get(ianaNumber);
      if (iana !== undefined && iana !== null) proto = Number(iana);
      else {
        const t = get(transport);
        if (t === undefined || t === null) {
          if (ignoreMissing) return doc;
          throw Errors.illegalArgument('unable to calculate community id: transport missing');
        }
        proto = TRANSPORTS[String(t).toLowerCase()] ?? (/^\d+$/.test(String(t)) ? Number(t) : undefined);
        if (proto === undefined) throw Errors.illegalArgument(`could not convert string [${String(t)}] to transport protocol`);
      }
      let sp = 0;
      let dp = 0;
      let oneWay = false;
      if (proto === 1 || proto === 58) {
        const type = Number(get(icmpType));
        const code = Number(get(icmpCode) ?? 0);
        const pairs = proto === 1 ? ICMP4_PAIRS : ICMP6_PAIRS;
        sp = type;
        if (pairs[type] !== undefined) dp = pairs[type];
        else {
          dp = code;
          oneWay = true;
        }
      } else if (proto === 6 || proto === 17 || proto === 132) {
        const a = get(srcPort);
        const b = get(dstPort);
        if (a === undefined || a === null || b === undefined || b === null) {
          if (ignoreMissing) return doc;
          throw Errors.illegalArgument('unable to calculate community id: ports missing');
        }
        sp = Number(a);
        dp = Number(b);
        if (!(sp >= 1 && sp <= 65535) || !(dp >= 1 && dp <= 65535)) {
          throw Errors.illegalArgument(`invalid port [${!(sp >= 1 && sp <= 65535) ? String(a) : String(b)}]`);
        }
      }
      // order the endpoints so the flow hashes the same in both directions
      let first = sb;
      let second = db;
      let p1 = sp;
      let p2 = dp;
      const cmp = compareBytes(sb, db);
      if (!oneWay && (cmp > 0 || (cmp === 0 && sp > dp))) {
        first = db;
        second = sb;
        p1 = dp;
        p2 = sp;
      }
      const buf = Buffer.alloc(2 + first.length + second.length + 2 + 4);
      let o = 0;
      buf.writeUInt16BE(seed, o);
      o += 2;
      buf.set(first, o);
      o += first.length;
      buf.set(second, o);
      o += second.length;
      buf.writeUInt8(proto, o++);
      buf.writeUInt8(0, o++);
      const hasPorts = proto === 1 || proto === 58 || proto === 6 || proto === 17 || proto === 132;
      let hashed = buf;
      if (hasPorts) {
        buf.writeUInt16BE(p1, o);
        buf.writeUInt16BE(p2, o + 2);
      } else hashed = buf.subarray(0, o);
      doc.setFieldValue(target, '1:' + createHash('sha1').update(hashed).digest('base64'));
      return doc;
    },
  };
});

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

// ------------------------------------------------------------------------------------------ sort

export const sortProcessor: ProcessorFactory = defineProcessor('sort', (r) => {
  const field = r.requiredString('field');
  const order = r.optionalString('order', 'asc')!;
  if (order !== 'asc' && order !== 'desc') throw r.error('order', `Sort direction [${order}] not recognized. Valid values are: [asc, desc]`);
  const target = r.optionalString('target_field', field)!;
  return {
    execute(doc: IngestDocument) {
      const v = doc.getFieldValue(field);
      if (v === null) throw Errors.illegalArgument(`field [${field}] is null, cannot sort.`);
      if (!Array.isArray(v)) throw Errors.illegalArgument(`field [${field}] of type [${javaTypeName(v)}] cannot be cast to [java.util.List]`);
      const sorted = [...v].sort((a, b) => {
        if (typeof a === 'number' && typeof b === 'number') return a - b;
        const x = String(a);
        const y = String(b);
        return x < y ? -1 : x > y ? 1 : 0;
      });
      if (order === 'desc') sorted.reverse();
      doc.setFieldValue(target, sorted);
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ html_strip

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function stripHtml(s: string): string {
  return s
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(p|div|li|tr|h[1-6])(\s[^>]*)?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (m, e: string) => {
      if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
      if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
      return ENTITIES[e.toLowerCase()] ?? m;
    });
}

export const htmlStripProcessor: ProcessorFactory = defineProcessor('html_strip', (r) => {
  const field = r.requiredString('field');
  const target = r.optionalString('target_field', field)!;
  const ignoreMissing = r.bool('ignore_missing', false);
  return {
    execute(doc: IngestDocument) {
      const v = doc.getFieldValue(field, ignoreMissing);
      if (v === undefined || v === null) {
        if (ignoreMissing) return doc;
        throw Errors.illegalArgument(`field [${field}] is null, cannot process it.`);
      }
      if (typeof v !== 'string') throw Errors.illegalArgument(`field [${field}] of type [${javaTypeName(v)}] cannot be cast to [java.lang.String]`);
      doc.setFieldValue(target, stripHtml(v));
      return doc;
    },
  };
});
