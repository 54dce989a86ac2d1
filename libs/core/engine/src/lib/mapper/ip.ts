/**
 * IP addresses: parsing (v4/v6) to 16 bytes (v4 as IPv4-mapped v6), and the sortable fixed-width encoded
 * term used in the inverted index and keyword doc values: 32 lowercase hex chars. Lexicographic order of
 * the encoding is the numeric order of the address, so range and CIDR queries are term-range scans.
 */
import { Errors } from '@strata/core-common';

function parseV4(s: string, out: Uint8Array, at: number): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (!/^\d{1,3}$/.test(p)) return false;
    const v = Number(p);
    if (v > 255) return false;
    out[at + i] = v;
  }
  return true;
}

const HEX2: string[] = [];
for (let i = 0; i < 256; i++) HEX2.push((i < 16 ? '0' : '') + i.toString(16));
const V4_PREFIX = '00000000000000000000ffff';

/** Fast path for dotted-quad IPv4: the encoded term, or null when not a plain IPv4 literal. */
function encodeV4Fast(s: string): string | null {
  const n = s.length;
  if (n < 7 || n > 15) return null;
  let out = V4_PREFIX;
  let v = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? s.charCodeAt(i) : 46;
    if (c === 46) {
      if (digits === 0 || v > 255 || parts === 4) return null;
      out += HEX2[v];
      parts++;
      v = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits === 3) return null;
      v = v * 10 + (c - 48);
      digits++;
    } else return null;
  }
  return parts === 4 ? out : null;
}

/** 16 bytes, or null when not an IP literal. Accepts an optional `%zone` suffix (ignored) and brackets. */
export function parseIpBytes(input: string): Uint8Array | null {
  let s = input.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const pct = s.indexOf('%');
  if (pct >= 0) s = s.slice(0, pct);
  const out = new Uint8Array(16);
  if (!s.includes(':')) {
    out[10] = 0xff;
    out[11] = 0xff;
    return parseV4(s, out, 12) ? out : null;
  }
  let head = s;
  let tailV4: string | null = null;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    tailV4 = s.slice(lastColon + 1);
    head = s.slice(0, lastColon + 1) + '0:0';
  }
  const dbl = head.indexOf('::');
  if (dbl !== head.lastIndexOf('::')) return null;
  let groups: string[];
  if (dbl >= 0) {
    const left = head.slice(0, dbl) ? head.slice(0, dbl).split(':') : [];
    const right = head.slice(dbl + 2) ? head.slice(dbl + 2).split(':') : [];
    const missing = 8 - left.length - right.length;
    if (missing < 1) return null;
    groups = [...left, ...new Array<string>(missing).fill('0'), ...right];
  } else groups = head.split(':');
  if (groups.length !== 8) return null;
  for (let i = 0; i < 8; i++) {
    const g = groups[i];
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    const v = parseInt(g, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  }
  if (tailV4 !== null && !parseV4(tailV4, out, 12)) return null;
  return out;
}

export function encodeIpBytes(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < 16; i++) s += HEX2[b[i]];
  return s;
}

/** The sortable term of an IP string; throws illegal_argument_exception "'x' is not an IP string literal." */
export function encodeIp(value: string): string {
  const fast = encodeV4Fast(value);
  if (fast !== null) return fast;
  const b = parseIpBytes(value);
  if (!b) throw Errors.illegalArgument(`'${value}' is not an IP string literal.`);
  return encodeIpBytes(b);
}

function isV4Mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** Decodes a 32-hex term back to the canonical string (IPv4 when v4-mapped; RFC 5952 for v6). */
export function decodeIp(term: string): string {
  const b = new Uint8Array(16);
  for (let i = 0; i < 16; i++) b[i] = parseInt(term.substr(i * 2, 2), 16);
  if (isV4Mapped(b)) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const g: number[] = [];
  for (let i = 0; i < 8; i++) g.push((b[i * 2] << 8) | b[i * 2 + 1]);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (bestStart < 0) return hex.join(':');
  return hex.slice(0, bestStart).join(':') + '::' + hex.slice(bestStart + bestLen).join(':');
}

/** CIDR `a.b.c.d/n` or `v6/n` → inclusive [lower, upper] encoded terms. */
export function cidrRange(cidr: string): [string, string] {
  const slash = cidr.indexOf('/');
  if (slash < 0) {
    const t = encodeIp(cidr);
    return [t, t];
  }
  const addr = cidr.slice(0, slash);
  const bits = Number(cidr.slice(slash + 1));
  const b = parseIpBytes(addr);
  const v4 = !addr.includes(':');
  const max = v4 ? 32 : 128;
  if (!b || !Number.isInteger(bits) || bits < 0 || bits > max) {
    throw Errors.illegalArgument(`Expected [ip/prefix] but was [${cidr}]`);
  }
  const prefix = v4 ? bits + 96 : bits;
  const lo = new Uint8Array(b);
  const hi = new Uint8Array(b);
  for (let i = 0; i < 128; i++) {
    if (i < prefix) continue;
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    lo[byte] &= ~mask;
    hi[byte] |= mask;
  }
  return [encodeIpBytes(lo), encodeIpBytes(hi)];
}
