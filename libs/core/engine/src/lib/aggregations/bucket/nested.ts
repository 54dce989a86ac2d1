/**
 * nested and reverse_nested: single-bucket aggregations that step from documents to their nested objects
 * (the hidden documents of a path inside each document's block) and back to the parent documents.
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import type { FixedBitSet } from '../../search/doc-id-set.js';
import { nestedPathDocs, parentDocs } from '../../search/nested/nested-bitsets.js';
import type { AggregationContext } from '../api.js';
import { asObject, type Aggregator } from '../framework.js';
import { SingleBucketAggregator, SingleBucketSpec } from './single-bucket.js';

function pathParam(type: string, name: string, body: Record<string, unknown>, required: boolean): string | undefined {
  for (const [k, v] of Object.entries(body)) {
    if (k !== 'path') {
      const tok = typeof v === 'string' ? 'VALUE_STRING' : typeof v === 'number' ? 'VALUE_NUMBER' : typeof v === 'boolean' ? 'VALUE_BOOLEAN' : null;
      if (tok) throw Errors.parsing(`Unknown key for a ${tok} in [${name}]: [${k}].`);
      throw Errors.parsing(`Unexpected token ${Array.isArray(v) ? 'START_ARRAY' : 'START_OBJECT'} in [${name}].`);
    }
    if (typeof v !== 'string') throw Errors.parsing(`Unexpected token ${Array.isArray(v) ? 'START_ARRAY' : 'START_OBJECT'} in [${name}].`);
  }
  const p = body['path'] as string | undefined;
  if (p === undefined && required) throw Errors.parsing(`Missing [path] field for ${type} aggregation [${name}]`);
  return p;
}

// ------------------------------------------------------------------ nested

export class NestedAggSpec extends SingleBucketSpec {
  path = '';
  static parse(name: string, body: Record<string, unknown>): NestedAggSpec {
    const s = new NestedAggSpec(name, 'nested');
    s.path = pathParam('nested', name, asObject('nested', body), true)!;
    return s;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    const mapper = ctx.nestedLookup?.get(this.path);
    // an unmapped (or non-nested) path collects nothing (ES NestedAggregatorFactory#createUnmapped)
    return new NestedAggregator(this, ctx, mapper ? this.path : null);
  }
}

class NestedAggregator extends SingleBucketAggregator {
  private parents: FixedBitSet | null = null;
  private children: FixedBitSet | null = null;
  private readonly parentPath: string | null;
  constructor(spec: NestedAggSpec, ctx: AggregationContext, private readonly path: string | null) {
    super(spec, ctx, { ...ctx, nestedPath: path ?? spec.path, insideNested: true });
    this.parentPath = ctx.nestedPath ?? null;
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.children = this.path === null ? null : nestedPathDocs(leaf.reader, this.path);
    this.parents = this.children ? parentDocs(leaf.reader, this.parentPath) : null;
    this.subs.setLeaf(leaf);
  }
  /** collects the objects of the path in the block the parent document closes */
  collect(doc: number, owningOrd: number, score: number): void {
    const children = this.children;
    if (doc === 0 || !children || !this.parents) return;
    for (let c = this.parents.prevSetBit(doc - 1) + 1; c < doc; c++) if (children.get(c)) this.hit(c, owningOrd, score);
  }
}

// ------------------------------------------------------------------ reverse_nested

export class ReverseNestedAggSpec extends SingleBucketSpec {
  path: string | undefined;
  static parse(name: string, body: Record<string, unknown>): ReverseNestedAggSpec {
    const s = new ReverseNestedAggSpec(name, 'reverse_nested');
    s.path = pathParam('reverse_nested', name, asObject('reverse_nested', body), false);
    return s;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    if (!ctx.insideNested) throw Errors.illegalArgument(`Reverse nested aggregation [${this.name}] can only be used inside a [nested] aggregation`);
    const unmapped = this.path !== undefined && !ctx.nestedLookup?.get(this.path);
    return new ReverseNestedAggregator(this, ctx, unmapped ? undefined : this.path ?? null, unmapped);
  }
}

class ReverseNestedAggregator extends SingleBucketAggregator {
  private parents: FixedBitSet | null = null;
  /** owning ordinal → last parent collected into it (a parent counts once per bucket) */
  private lastParent = new Map<number, number>();
  constructor(
    spec: ReverseNestedAggSpec,
    ctx: AggregationContext,
    /** the nested path of the parents; null: the root documents */
    private readonly parentPath: string | null | undefined,
    private readonly unmapped: boolean,
  ) {
    super(spec, ctx, { ...ctx, nestedPath: parentPath ?? undefined });
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.parents = this.unmapped ? null : parentDocs(leaf.reader, this.parentPath ?? null);
    this.lastParent = new Map();
    this.subs.setLeaf(leaf);
  }
  collect(doc: number, owningOrd: number, score: number): void {
    const parents = this.parents;
    if (!parents) return;
    const parent = parents.nextSetBit(doc);
    const last = this.lastParent.get(owningOrd);
    if (last !== undefined && parent <= last) return;
    this.lastParent.set(owningOrd, parent);
    this.hit(parent, owningOrd, score);
  }
}
