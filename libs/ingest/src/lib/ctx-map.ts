import type { IngestDocument } from './ingest-document.js';
import { isMetadataKey } from './ingest-document.js';
import { HostMap } from '@strata/core-painless';

/** `ctx` inside conditions and scripts: source fields at the top level, plus metadata and `_ingest`, `_source`. */
export class CtxMap extends HostMap {
  constructor(readonly doc: IngestDocument) {
    super();
  }
  get(key: string): unknown {
    if (key === '_source') return this.doc.source;
    if (key === '_ingest') return this.doc.ingest;
    if (isMetadataKey(key)) return this.doc.meta[key] ?? null;
    return Object.prototype.hasOwnProperty.call(this.doc.source, key) ? this.doc.source[key] : null;
  }
  put(key: string, value: unknown): unknown {
    const prev = this.get(key);
    if (key === '_source' || key === '_ingest') {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        if (key === '_source') this.doc.source = value as Record<string, unknown>;
        else this.doc.ingest = value as Record<string, unknown>;
      }
      return prev;
    }
    if (isMetadataKey(key)) {
      if (value === null || value === undefined) delete this.doc.meta[key];
      else this.doc.meta[key] = value;
    } else if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
      return prev;
    } else this.doc.source[key] = value;
    return prev;
  }
  containsKey(key: string): boolean {
    if (key === '_source' || key === '_ingest') return true;
    if (isMetadataKey(key)) return this.doc.meta[key] !== undefined;
    return Object.prototype.hasOwnProperty.call(this.doc.source, key);
  }
  remove(key: string): unknown {
    const prev = this.get(key);
    if (isMetadataKey(key)) delete this.doc.meta[key];
    else delete this.doc.source[key];
    return prev;
  }
  keys(): string[] {
    return [...Object.keys(this.doc.source), ...Object.keys(this.doc.meta)];
  }
}
