/**
 * IndexNameResolver contribution: a data stream name (or a wildcard matching stream names) resolves to its
 * backing indices for reads and to its write index for writes, through the core's
 * IndexNameExpressionResolver, so search, _count, EQL, the by-query APIs and authorization all see them.
 */
import { inject, injectable } from 'inversify';
import { EngineTokens, simpleMatch, type DataStreamDescription, type IndexNameResolver, type IndicesOptions, type MetadataStore } from '@strata/core-engine';
import { dataStreams, writeIndexOf } from './data-stream-metadata.js';

@injectable()
export class DataStreamIndexNameResolver implements IndexNameResolver {
  readonly order = 100;

  constructor(@inject(EngineTokens.MetadataStore) private readonly store: MetadataStore) {}

  resolve(name: string, options: IndicesOptions, purpose: 'read' | 'write'): string[] | undefined {
    const md = this.store.current();
    const streams = dataStreams(md);
    if (!name.includes('*')) {
      const ds = streams[name];
      if (!ds) return undefined;
      if (purpose === 'write') return [writeIndexOf(ds)];
      return ds.indices.map((b) => b.index_name).filter((n) => md.indices[n] && (md.indices[n].state === 'open' || options.expandWildcards.closed));
    }
    const ew = options.expandWildcards;
    if (!ew.open && !ew.closed) return [];
    const out: string[] = [];
    for (const ds of Object.values(streams)) {
      if (name !== '*' && !simpleMatch(name, ds.name)) continue;
      if (ds.hidden && !ew.hidden && !(name.startsWith('.') && ds.name.startsWith('.'))) continue;
      for (const b of ds.indices) {
        const im = md.indices[b.index_name];
        if (!im) continue;
        if (im.state === 'open' ? ew.open : ew.closed) out.push(b.index_name);
      }
    }
    return out;
  }

  names(): string[] {
    return Object.keys(dataStreams(this.store.current()));
  }

  dataStreams(): DataStreamDescription[] {
    return Object.values(dataStreams(this.store.current())).map((ds) => ({
      name: ds.name,
      backingIndices: ds.indices.map((b) => b.index_name),
      timestampField: ds.timestamp_field.name,
      hidden: ds.hidden,
    }));
  }

  isDataStream(name: string): boolean {
    return dataStreams(this.store.current())[name] !== undefined;
  }
}
