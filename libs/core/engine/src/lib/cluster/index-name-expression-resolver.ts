/**
 * Resolves index expressions (comma lists, wildcards, `-exclusions`, `_all`, aliases, hidden indices,
 * contributions of IndexNameResolver such as data streams) to concrete index names, like Elasticsearch's
 * IndexNameExpressionResolver.
 */
import { inject, injectable, multiInject, optional } from 'inversify';
import { DEFAULT_INDICES_OPTIONS, EsError, Errors, ExtensionPoints, Tokens, currentIndicesAccess, systemClock, type Clock, wildcardRegExp } from '@strata/core-common';
import { resolveDateMathIndexName } from './index-name.js';
import type { ClusterMetadata, IndexMetadata, MetadataStore } from './metadata.js';
import { EngineTokens, type IndexNameExpressionResolver } from '../services.js';
import type { IndexNameResolver, IndicesOptions } from '../spi.js';

export function isHiddenIndex(im: IndexMetadata): boolean {
  const h = im.settings['index.hidden'];
  return h === true || h === 'true';
}

export interface ResolveOptions {
  /** include explicitly named closed indices instead of failing (admin APIs: get/delete/settings/open) */
  allowClosed?: boolean;
  /**
   * false: data streams are not targets (the delete-index API): a named stream is not found, a wildcard
   * does not expand through streams (their backing indices still match by their own names)
   */
  includeDataStreams?: boolean;
}

@injectable()
export class DefaultIndexNameExpressionResolver implements IndexNameExpressionResolver {
  private readonly resolvers: IndexNameResolver[];

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @multiInject(ExtensionPoints.IndexNameResolver) @optional() resolvers: IndexNameResolver[] = [],
    @inject(Tokens.Clock) @optional() private readonly clock: Clock = systemClock,
  ) {
    this.resolvers = [...(resolvers ?? [])].sort((a, b) => a.order - b.order);
    this.clock = clock ?? systemClock;
  }

  concreteIndices(expression: string | string[] | undefined, options: IndicesOptions, purpose: 'read' | 'write' = 'read'): string[] {
    return this.resolve(expression, options, purpose, {});
  }

  /** Like concreteIndices, with admin options (closed indices). */
  resolve(expression: string | string[] | undefined, options: IndicesOptions, purpose: 'read' | 'write', ropts: ResolveOptions): string[] {
    const md = this.store.current();
    let parts: string[];
    if (expression === undefined) parts = [];
    else if (Array.isArray(expression)) parts = expression.flatMap((e) => e.split(','));
    else parts = expression.split(',');
    parts = parts.map((p) => p.trim()).filter((p) => p.length > 0);
    if (parts.some((p) => p.startsWith('<') || p.startsWith('-<'))) {
      const now = this.clock.now();
      parts = parts.map((p) => (p.startsWith('-<') ? '-' + resolveDateMathIndexName(p.slice(1), now) : resolveDateMathIndexName(p, now)));
    }
    if (parts.length === 0 || (parts.length === 1 && (parts[0] === '_all' || parts[0] === '*'))) {
      const all = this.expandWildcard('*', md, options, purpose, ropts);
      if (all.length === 0 && !options.allowNoIndices) {
        throw Errors.indexNotFound(parts[0] ?? '_all');
      }
      return all;
    }
    const result: string[] = [];
    const seen = new Set<string>();
    const add = (n: string) => {
      if (!seen.has(n)) {
        seen.add(n);
        result.push(n);
      }
    };
    let wildcardSeen = false;
    for (const part of parts) {
      if (part.startsWith('-') && wildcardSeen) {
        const pat = part.slice(1);
        const re = pat.includes('*') ? wildcardRegExp(pat) : null;
        const remove = new Set<string>();
        for (const n of result) {
          if (re ? re.test(n) : n === pat) remove.add(n);
        }
        // excluding an alias excludes its indices
        for (const [iname, im] of Object.entries(md.indices)) {
          for (const a of Object.keys(im.aliases)) if (re ? re.test(a) : a === pat) remove.add(iname);
        }
        for (let i = result.length - 1; i >= 0; i--) {
          if (remove.has(result[i])) {
            seen.delete(result[i]);
            result.splice(i, 1);
          }
        }
        continue;
      }
      if (part.includes('*')) {
        wildcardSeen = true;
        const matched = this.expandWildcard(part, md, options, purpose, ropts);
        if (matched.length === 0 && !options.allowNoIndices) throw Errors.indexNotFound(part);
        matched.forEach(add);
        continue;
      }
      if (part === '_all') {
        wildcardSeen = true;
        this.expandWildcard('*', md, options, purpose, ropts).forEach(add);
        continue;
      }
      // contributed resolvers (data streams)
      let handled = false;
      for (const r of ropts.includeDataStreams === false ? [] : this.resolvers) {
        const res = r.resolve(part, options, purpose);
        if (res !== undefined) {
          res.forEach(add);
          handled = true;
          break;
        }
      }
      if (handled) continue;
      const im = md.indices[part];
      if (im) {
        if (im.state === 'close' && !ropts.allowClosed) {
          if (options.ignoreUnavailable) continue;
          throw Errors.indexClosed(part, im.uuid);
        }
        add(part);
        continue;
      }
      const aliased = this.aliasIndices(md, part);
      if (aliased.length) {
        if (purpose === 'write') {
          const w = this.writeIndexOf(md, part);
          if (!w) throw this.noWriteIndex(part);
          add(w);
          continue;
        }
        for (const n of aliased) {
          if (md.indices[n].state === 'close' && !ropts.allowClosed) {
            if (options.expandWildcards.closed) add(n);
            continue;
          }
          add(n);
        }
        continue;
      }
      if (options.ignoreUnavailable) continue;
      throw Errors.indexNotFound(part);
    }
    if (result.length === 0 && !options.allowNoIndices && parts.some((p) => p.includes('*') || p === '_all')) {
      throw Errors.indexNotFound(parts.join(','));
    }
    return result;
  }

  private expandWildcard(pattern: string, md: ClusterMetadata, options: IndicesOptions, purpose: 'read' | 'write', ropts: ResolveOptions = {}): string[] {
    const ew = options.expandWildcards;
    const out: string[] = [];
    if (!ew.open && !ew.closed) return out;
    const re = pattern === '*' ? null : wildcardRegExp(pattern);
    const dotPattern = pattern.startsWith('.');
    const visible = (name: string, im: IndexMetadata): boolean => {
      if (im.state === 'open' ? !ew.open : !ew.closed) return false;
      const hidden = isHiddenIndex(im) || name.startsWith('.');
      if (hidden && !ew.hidden && !(dotPattern && name.startsWith('.'))) return false;
      return true;
    };
    // with security on, a wildcard only reaches what the caller may use (indices, aliases, data streams)
    const access = currentIndicesAccess();
    const names = Object.keys(md.indices).sort();
    const set = new Set<string>();
    for (const name of names) {
      const im = md.indices[name];
      if ((re === null || re.test(name)) && visible(name, im) && (!access || access.allowed(name))) set.add(name);
    }
    // aliases matching the pattern contribute their indices
    for (const name of names) {
      const im = md.indices[name];
      for (const [alias, a] of Object.entries(im.aliases)) {
        if (re === null || !re.test(alias)) continue;
        if (a.is_hidden && !ew.hidden && !(dotPattern && alias.startsWith('.'))) continue;
        if (im.state === 'open' ? !ew.open : !ew.closed) continue;
        if (access && !access.allowed(alias)) continue;
        set.add(name);
      }
    }
    for (const r of ropts.includeDataStreams === false ? [] : this.resolvers) {
      const res = r.resolve(pattern, options, purpose);
      if (res) for (const n of res) if (!access || access.allowed(n)) set.add(n);
    }
    for (const n of set) out.push(n);
    return out.sort();
  }

  aliasIndices(md: ClusterMetadata, alias: string): string[] {
    const out: string[] = [];
    for (const [name, im] of Object.entries(md.indices)) if (im.aliases[alias]) out.push(name);
    return out.sort();
  }

  private writeIndexOf(md: ClusterMetadata, alias: string): string | undefined {
    const idx = this.aliasIndices(md, alias);
    const explicit = idx.filter((n) => md.indices[n].aliases[alias].is_write_index === true);
    if (explicit.length === 1) return explicit[0];
    if (idx.length === 1 && md.indices[idx[0]].aliases[alias].is_write_index !== false) return idx[0];
    return undefined;
  }

  private noWriteIndex(alias: string): EsError {
    return Errors.illegalArgument(
      `no write index is defined for alias [${alias}]. The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index`,
    );
  }

  writeIndex(rawName: string): string | undefined {
    const name = resolveDateMathIndexName(rawName, this.clock.now());
    for (const r of this.resolvers) {
      const res = r.resolve(name, DEFAULT_INDICES_OPTIONS, 'write');
      if (res !== undefined) return res[0];
    }
    const md = this.store.current();
    if (md.indices[name]) return name;
    const idx = this.aliasIndices(md, name);
    if (idx.length === 0) return undefined;
    const w = this.writeIndexOf(md, name);
    if (!w) throw this.noWriteIndex(name);
    return w;
  }

  /**
   * The alias filter to apply when searching `index` through `expression` (ES semantics): undefined when the
   * index is named directly (or through a wildcard on index names, or an alias without filter); otherwise the
   * filter of the alias, or `{bool:{should:[...filters]}}` when several filtered aliases lead to it.
   */
  aliasFilter(index: string, expression: string | string[] | undefined): Record<string, unknown> | undefined {
    const md = this.store.current();
    const im = md.indices[index];
    if (!im) return undefined;
    let parts = expression === undefined ? [] : (Array.isArray(expression) ? expression : expression.split(',')).map((p) => p.trim()).filter(Boolean);
    if (parts.length === 0 || parts.includes('_all') || parts.includes('*')) return undefined;
    parts = parts.filter((p) => !p.startsWith('-'));
    const filters: Record<string, unknown>[] = [];
    for (const p of parts) {
      if (p === index) return undefined;
      if (p.includes('*') && wildcardRegExp(p).test(index)) return undefined;
      for (const [alias, a] of Object.entries(im.aliases)) {
        const hit = p.includes('*') ? wildcardRegExp(p).test(alias) : p === alias;
        if (!hit) continue;
        if (!a.filter) return undefined;
        filters.push(a.filter);
      }
    }
    if (filters.length === 0) return undefined;
    return filters.length === 1 ? filters[0] : { bool: { should: filters } };
  }

  /** the search routing values an alias in `expression` imposes on `index` (ES alias search_routing), if any */
  aliasSearchRouting(index: string, expression: string | string[] | undefined): string[] | undefined {
    const im = this.store.current().indices[index];
    if (!im || expression === undefined) return undefined;
    const parts = (Array.isArray(expression) ? expression : expression.split(',')).map((p) => p.trim());
    const out: string[] = [];
    for (const p of parts) {
      if (p === index) return undefined;
      const a = im.aliases[p];
      if (!a) continue;
      if (!a.search_routing) return undefined;
      out.push(...a.search_routing.split(',').map((r) => r.trim()));
    }
    return out.length ? out : undefined;
  }

  isDataStream(name: string): boolean {
    return this.resolvers.some((r) => r.isDataStream?.(name) === true);
  }

  private ownersVersion = -1;
  private owners = new Map<string, string>();

  /**
   * The name a contributed resolver owns (a data stream) that `index` is a backing index of, if any: the
   * security layer authorizes a backing index through its data stream. Cached per metadata version.
   */
  dataStreamOf(index: string): string | undefined {
    const md = this.store.current();
    if (md.version !== this.ownersVersion) {
      const owners = new Map<string, string>();
      const lenient: IndicesOptions = { ...DEFAULT_INDICES_OPTIONS, ignoreUnavailable: true, expandWildcards: { open: true, closed: true, hidden: true } };
      for (const r of this.resolvers) {
        for (const name of r.names?.() ?? []) {
          for (const backing of r.resolve(name, lenient, 'read') ?? []) if (backing !== name && !owners.has(backing)) owners.set(backing, name);
        }
      }
      this.owners = owners;
      this.ownersVersion = md.version;
    }
    return this.owners.get(index);
  }

  /** true when `name` is an index, an alias or a name a contributed resolver owns */
  exists(name: string): boolean {
    const md = this.store.current();
    if (md.indices[name]) return true;
    if (this.aliasIndices(md, name).length) return true;
    return this.resolvers.some((r) => r.resolve(name, { ...DEFAULT_INDICES_OPTIONS, ignoreUnavailable: true }, 'read') !== undefined);
  }
}
