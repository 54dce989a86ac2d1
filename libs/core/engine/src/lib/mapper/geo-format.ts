/**
 * Formats of geo_point / geo_shape values in the `fields` API: `geojson` (default), `wkt`, and
 * `mvt(zoom/x/y@extent)` (a base64 Mapbox Vector Tile of the field's geometries in that tile, encoded with
 * vt-pbf; zoom 0–29, extent default 4096).
 */
import vtpbf from 'vt-pbf';
import { Errors } from '@strata/core-common';

export interface Geometry {
  type: 'Point' | 'MultiPoint' | 'LineString' | 'MultiLineString' | 'Polygon' | 'MultiPolygon' | 'GeometryCollection' | 'Envelope';
  coordinates?: unknown;
  geometries?: Geometry[];
}

type Pos = [number, number];

const GEOHASH = '0123456789bcdefghjkmnpqrstuvwxyz';

function geohashDecode(hash: string): Pos | null {
  let even = true;
  const lat: [number, number] = [-90, 90];
  const lon: [number, number] = [-180, 180];
  for (const c of hash.toLowerCase()) {
    const v = GEOHASH.indexOf(c);
    if (v < 0) return null;
    for (let bit = 4; bit >= 0; bit--) {
      const b = (v >> bit) & 1;
      const r = even ? lon : lat;
      const mid = (r[0] + r[1]) / 2;
      if (b) r[0] = mid;
      else r[1] = mid;
      even = !even;
    }
  }
  return [(lon[0] + lon[1]) / 2, (lat[0] + lat[1]) / 2];
}

/** a geo_point source value ({lat, lon}, [lon, lat], "lat,lon", WKT POINT, geohash) as [lon, lat] */
export function parseGeoPoint(v: unknown): Pos | null {
  if (Array.isArray(v) && v.length >= 2 && typeof v[0] === 'number' && typeof v[1] === 'number') return [v[0], v[1]];
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (o['type'] === 'Point' && Array.isArray(o['coordinates'])) return parseGeoPoint(o['coordinates']);
    const lat = Number(o['lat']);
    const lon = Number(o['lon']);
    return Number.isFinite(lat) && Number.isFinite(lon) ? [lon, lat] : null;
  }
  if (typeof v === 'string') {
    const s = v.trim();
    const wkt = /^POINT\s*\(\s*(-?[\d.eE+-]+)\s+(-?[\d.eE+-]+)(?:\s+-?[\d.eE+-]+)?\s*\)$/i.exec(s);
    if (wkt) return [Number(wkt[1]), Number(wkt[2])];
    const ll = /^\s*(-?[\d.eE+-]+)\s*,\s*(-?[\d.eE+-]+)\s*(?:,\s*-?[\d.eE+-]+)?$/.exec(s);
    if (ll) return [Number(ll[2]), Number(ll[1])];
    return geohashDecode(s);
  }
  return null;
}

/** the geo_point values of a raw source value (a point, or an array of points) */
export function geoPointValues(raw: unknown): Pos[] {
  if (raw === null || raw === undefined) return [];
  const single = parseGeoPoint(raw);
  if (single && !(Array.isArray(raw) && raw.some((x) => typeof x !== 'number'))) return [single];
  if (Array.isArray(raw)) return raw.flatMap((x) => geoPointValues(x));
  return [];
}

// ------------------------------------------------------------------ WKT

function parseWkt(text: string): Geometry | null {
  let i = 0;
  const s = text.trim();
  const ws = () => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  const word = (): string => {
    ws();
    const m = /^[A-Za-z]+/.exec(s.substring(i));
    if (!m) throw new Error('word expected');
    i += m[0].length;
    return m[0].toUpperCase();
  };
  const expect = (c: string) => {
    ws();
    if (s[i] !== c) throw new Error(`${c} expected`);
    i++;
  };
  const peek = (): string => {
    ws();
    return s[i] ?? '';
  };
  const num = (): number => {
    ws();
    const m = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(s.substring(i));
    if (!m) throw new Error('number expected');
    i += m[0].length;
    return Number(m[0]);
  };
  const point = (): Pos => {
    const x = num();
    const y = num();
    if (/[-+\d.]/.test(peek())) num();
    return [x, y];
  };
  const list = <T>(item: () => T): T[] => {
    expect('(');
    const out = [item()];
    while (peek() === ',') {
      i++;
      out.push(item());
    }
    expect(')');
    return out;
  };
  const empty = (): boolean => {
    ws();
    if (/^EMPTY/i.test(s.substring(i))) {
      i += 5;
      return true;
    }
    return false;
  };
  const geometry = (): Geometry => {
    const t = word();
    switch (t) {
      case 'POINT':
        return empty() ? { type: 'MultiPoint', coordinates: [] } : { type: 'Point', coordinates: list(point)[0] };
      case 'MULTIPOINT':
        return { type: 'MultiPoint', coordinates: empty() ? [] : list(() => (peek() === '(' ? list(point)[0]! : point())) };
      case 'LINESTRING':
        return { type: 'LineString', coordinates: empty() ? [] : list(point) };
      case 'MULTILINESTRING':
        return { type: 'MultiLineString', coordinates: empty() ? [] : list(() => list(point)) };
      case 'POLYGON':
        return { type: 'Polygon', coordinates: empty() ? [] : list(() => list(point)) };
      case 'MULTIPOLYGON':
        return { type: 'MultiPolygon', coordinates: empty() ? [] : list(() => list(() => list(point))) };
      case 'GEOMETRYCOLLECTION':
        return { type: 'GeometryCollection', geometries: empty() ? [] : list(geometry) };
      case 'BBOX': {
        const [minX, maxX, maxY, minY] = list(num) as [number, number, number, number];
        return { type: 'Envelope', coordinates: [[minX, maxY], [maxX, minY]] };
      }
      default:
        throw new Error(`unknown type ${t}`);
    }
  };
  try {
    const g = geometry();
    ws();
    return i === s.length ? g : null;
  } catch {
    return null;
  }
}

/** a geo_shape source value (GeoJSON or WKT) as a GeoJSON geometry */
export function parseGeoShape(v: unknown): Geometry | null {
  if (typeof v === 'string') return parseWkt(v);
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const type = String(o['type'] ?? '').toLowerCase();
    const names: Record<string, Geometry['type']> = {
      point: 'Point',
      multipoint: 'MultiPoint',
      linestring: 'LineString',
      multilinestring: 'MultiLineString',
      polygon: 'Polygon',
      multipolygon: 'MultiPolygon',
      geometrycollection: 'GeometryCollection',
      envelope: 'Envelope',
    };
    const t = names[type];
    if (!t) return null;
    if (t === 'GeometryCollection') return { type: t, geometries: ((o['geometries'] as unknown[]) ?? []).map(parseGeoShape).filter((g): g is Geometry => g !== null) };
    return { type: t, coordinates: o['coordinates'] };
  }
  return null;
}

/** Java's Double.toString for WKT coordinates */
function jnum(d: number): string {
  if (Number.isInteger(d) && Math.abs(d) < 1e7) return `${d}.0`;
  const a = Math.abs(d);
  if (a >= 1e-3 && a < 1e7) return String(d);
  const [mant, e] = d.toExponential().split('e') as [string, string];
  const m = mant.includes('.') ? mant : `${mant}.0`;
  return `${m}E${Number(e)}`;
}

export function toWkt(g: Geometry): string {
  const pt = (p: unknown) => {
    const [x, y] = p as number[];
    return `${jnum(x!)} ${jnum(y!)}`;
  };
  const line = (ps: unknown) => `(${(ps as unknown[]).map(pt).join(', ')})`;
  const poly = (rs: unknown) => `(${(rs as unknown[]).map(line).join(', ')})`;
  const c = g.coordinates as unknown[];
  switch (g.type) {
    case 'Point':
      return `POINT (${pt(c)})`;
    case 'MultiPoint':
      return c.length ? `MULTIPOINT (${c.map(pt).join(', ')})` : 'MULTIPOINT EMPTY';
    case 'LineString':
      return `LINESTRING ${line(c)}`;
    case 'MultiLineString':
      return `MULTILINESTRING (${c.map(line).join(', ')})`;
    case 'Polygon':
      return `POLYGON ${poly(c)}`;
    case 'MultiPolygon':
      return `MULTIPOLYGON (${c.map(poly).join(', ')})`;
    case 'GeometryCollection':
      return `GEOMETRYCOLLECTION (${(g.geometries ?? []).map(toWkt).join(', ')})`;
    case 'Envelope': {
      const [[minX, maxY], [maxX, minY]] = c as number[][] as [[number, number], [number, number]];
      return `BBOX (${jnum(minX)}, ${jnum(maxX)}, ${jnum(maxY)}, ${jnum(minY)})`;
    }
  }
}

export function toGeoJson(g: Geometry): Record<string, unknown> {
  if (g.type === 'GeometryCollection') return { type: g.type, geometries: (g.geometries ?? []).map(toGeoJson) };
  if (g.type === 'Envelope') return { type: 'envelope', coordinates: g.coordinates };
  return { type: g.type, coordinates: g.coordinates };
}

// ------------------------------------------------------------------ formats

export type GeoFormat = { kind: 'geojson' } | { kind: 'wkt' } | { kind: 'mvt'; z: number; x: number; y: number; extent: number };

export function parseGeoFormat(format: string | undefined): GeoFormat {
  if (format === undefined || format === 'geojson') return { kind: 'geojson' };
  if (format === 'wkt') return { kind: 'wkt' };
  const m = /^mvt\((\d+)\/(\d+)\/(\d+)(?:@(\d+))?\)$/.exec(format);
  if (!m) throw Errors.illegalArgument(`Unrecognized geometry format [${format}].`);
  const z = Number(m[1]);
  const x = Number(m[2]);
  const y = Number(m[3]);
  const extent = m[4] === undefined ? 4096 : Number(m[4]);
  if (z > 29) throw Errors.illegalArgument(`Invalid geotile_grid precision of ${z}. Must be between 0 and 29.`);
  const n = 2 ** z;
  if (x >= n) throw Errors.illegalArgument(`Zoom/X/Y combination is not valid: ${z}/${x}/${y}`);
  if (y >= n) throw Errors.illegalArgument(`Zoom/X/Y combination is not valid: ${z}/${x}/${y}`);
  if (extent <= 0) throw Errors.illegalArgument(`extent must be a positive integer, got [${extent}]`);
  return { kind: 'mvt', z, x, y, extent };
}

function project(lon: number, lat: number, f: Extract<GeoFormat, { kind: 'mvt' }>): [number, number] {
  const n = 2 ** f.z;
  const clampedLat = Math.max(-85.05112878, Math.min(85.05112878, lat));
  const xt = ((lon + 180) / 360) * n;
  const rad = (clampedLat * Math.PI) / 180;
  const yt = ((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n;
  return [Math.round((xt - f.x) * f.extent), Math.round((yt - f.y) * f.extent)];
}

/** the geometries as one vector tile (layer named after the field), base64; tile coordinates outside the tile are kept (no clipping) */
export function toMvt(field: string, geoms: Geometry[], f: Extract<GeoFormat, { kind: 'mvt' }>): string {
  const features: Array<{ type: 1 | 2 | 3; geometry: Array<[number, number]> | Array<Array<[number, number]>>; tags: Record<string, unknown> }> = [];
  const inTile = ([px, py]: [number, number]) => px >= 0 && px <= f.extent && py >= 0 && py <= f.extent;
  const ring = (ps: unknown) => (ps as number[][]).map((p) => project(p[0]!, p[1]!, f));
  const add = (g: Geometry): void => {
    const c = g.coordinates as unknown[];
    switch (g.type) {
      case 'Point': {
        const p = project((c as number[])[0]!, (c as number[])[1]!, f);
        if (inTile(p)) features.push({ type: 1, geometry: [p], tags: {} });
        break;
      }
      case 'MultiPoint': {
        const ps = ring(c).filter(inTile);
        if (ps.length) features.push({ type: 1, geometry: ps, tags: {} });
        break;
      }
      case 'LineString':
        features.push({ type: 2, geometry: [ring(c)], tags: {} });
        break;
      case 'MultiLineString':
        features.push({ type: 2, geometry: c.map(ring), tags: {} });
        break;
      case 'Polygon':
        features.push({ type: 3, geometry: c.map(ring), tags: {} });
        break;
      case 'MultiPolygon':
        for (const poly of c) features.push({ type: 3, geometry: (poly as unknown[]).map(ring), tags: {} });
        break;
      case 'Envelope': {
        const [[minX, maxY], [maxX, minY]] = c as number[][] as [[number, number], [number, number]];
        features.push({ type: 3, geometry: [ring([[minX, minY], [maxX, minY], [maxX, maxY], [minX, maxY], [minX, minY]])], tags: {} });
        break;
      }
      case 'GeometryCollection':
        for (const x of g.geometries ?? []) add(x);
        break;
    }
  };
  for (const g of geoms) add(g);
  const bytes = vtpbf.fromGeojsonVt({ [field]: { features } }, { version: 2, extent: f.extent });
  return Buffer.from(bytes).toString('base64');
}

/** the `fields` values of a geo field in the requested format */
export function formatGeoValues(type: 'geo_point' | 'geo_shape', field: string, raw: unknown[], format: string | undefined): unknown[] {
  const f = parseGeoFormat(format);
  const geoms: Geometry[] =
    type === 'geo_point'
      ? raw.flatMap((r) => geoPointValues(r)).map((p) => ({ type: 'Point' as const, coordinates: p }))
      : raw.flatMap((r) => (Array.isArray(r) && r.every((x) => typeof x !== 'number') ? r : [r])).map(parseGeoShape).filter((g): g is Geometry => g !== null);
  if (geoms.length === 0) return [];
  if (f.kind === 'mvt') return [toMvt(field, geoms, f)];
  return geoms.map((g) => (f.kind === 'wkt' ? toWkt(g) : toGeoJson(g)));
}

