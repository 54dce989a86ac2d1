/**
 * children and parent aggregations (ES ParentToChildrenAggregator / ChildrenToParentAggregator), contributed
 * through ExtensionPoints.AggregationType: single buckets holding the children of the collected parents, or
 * the parents of the collected children. The joined documents are found through the per-segment parent id
 * dictionaries once collection is over, so the cost follows the collected documents.
 */
import { Errors } from '@strata/core-common';
import {
  SingleBucketAggregator,
  SingleBucketSpec,
  type AggregationContext,
  type AggregationTypeParser,
  type Aggregator,
  type LeafReaderContext,
  type SortedSetDocValues,
} from '@strata/core-engine';
import { Joiner } from './joiner.js';
import { docsWithId, hasRelation, keywordValue, parentDoc, relationOrd } from './parent-index.js';

function childTypeParam(type: string, name: string, body: Record<string, unknown>): string {
  let childType: string | undefined;
  for (const [k, v] of Object.entries(body)) {
    if (k === 'type' && typeof v === 'string') childType = v;
    else if (typeof v === 'string') throw Errors.parsing(`Unknown key for a VALUE_STRING in [${name}]: [${k}].`);
    else throw Errors.parsing(`Unexpected token ${Array.isArray(v) ? 'START_ARRAY' : v !== null && typeof v === 'object' ? 'START_OBJECT' : 'VALUE'} in [${name}].`);
  }
  if (childType === undefined) throw Errors.parsing(`Missing [child_type] field for ${type} aggregation [${name}]`);
  return childType;
}

function joinerOf(ctx: AggregationContext): Joiner | undefined {
  for (const n of ctx.matchingFieldNames?.('*') ?? []) {
    const ft = ctx.fieldType(n);
    if (ft?.type === 'join') return Joiner.of(ft);
  }
  return undefined;
}

/** collects the ids that lead to the joined documents, with the owning buckets of each */
abstract class JoinAggregator extends SingleBucketAggregator {
  protected readonly owners = new Map<string, Set<number>>();
  protected idDv: SortedSetDocValues | null = null;
  protected rel: SortedSetDocValues | null = null;
  protected relOrd = -1;
  private done = false;
  constructor(
    spec: SingleBucketSpec,
    protected readonly ctx: AggregationContext,
    protected readonly joiner: Joiner | undefined,
    /** the relation of the collected documents and the parent relation whose id field joins them */
    protected readonly collectedRelation: string,
    protected readonly parentType: string,
  ) {
    super(spec, ctx);
  }
  setLeaf(leaf: LeafReaderContext): void {
    if (!this.joiner) return;
    this.idDv = leaf.reader.sortedSetDocValues(`${this.joiner.field}#${this.parentType}`);
    this.rel = leaf.reader.sortedSetDocValues(this.joiner.field);
    this.relOrd = relationOrd(this.rel, this.collectedRelation);
  }
  collect(doc: number, owningOrd: number): void {
    if (!this.rel || this.relOrd < 0 || !hasRelation(this.rel, doc, this.relOrd)) return;
    const id = keywordValue(this.idDv, doc);
    if (id === undefined) return;
    let s = this.owners.get(id);
    if (!s) this.owners.set(id, (s = new Set()));
    s.add(owningOrd);
  }
  /** the joined documents of one id in one leaf */
  protected abstract joined(leaf: LeafReaderContext, id: string): Iterable<number>;
  override build(owningOrd: number) {
    if (!this.done) {
      this.done = true;
      for (const leaf of this.ctx.leaves) {
        this.subs.setLeaf(leaf);
        for (const [id, ords] of this.owners) for (const d of this.joined(leaf, id)) for (const o of ords) this.hit(d, o, 0);
      }
    }
    return super.build(owningOrd);
  }
}

class ChildrenAggregator extends JoinAggregator {
  protected joined(leaf: LeafReaderContext, id: string): Iterable<number> {
    const rel = leaf.reader.sortedSetDocValues(this.joiner!.field);
    const ord = relationOrd(rel, this.childType);
    return ord < 0 ? [] : docsWithId(leaf, `${this.joiner!.field}#${this.parentType}`, id, rel, [ord]);
  }
  constructor(spec: SingleBucketSpec, ctx: AggregationContext, joiner: Joiner | undefined, parentType: string, private readonly childType: string) {
    super(spec, ctx, joiner, parentType, parentType);
  }
}

class ParentAggregator extends JoinAggregator {
  protected joined(leaf: LeafReaderContext, id: string): Iterable<number> {
    const d = parentDoc(leaf, this.joiner!.field, this.parentType, id);
    return d < 0 ? [] : [d];
  }
}

export class ChildrenAggSpec extends SingleBucketSpec {
  childType = '';
  static parse(name: string, body: Record<string, unknown>): ChildrenAggSpec {
    const s = new ChildrenAggSpec(name, 'children');
    s.childType = childTypeParam('children', name, body);
    return s;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    const joiner = joinerOf(ctx);
    // an unknown child type (or no join field) collects nothing, as ES's unmapped values source
    const known = joiner?.childTypeExists(this.childType) ? joiner : undefined;
    return new ChildrenAggregator(this, ctx, known, known ? known.parentOf(this.childType) : '', this.childType);
  }
}

export class ParentAggSpec extends SingleBucketSpec {
  childType = '';
  static parse(name: string, body: Record<string, unknown>): ParentAggSpec {
    const s = new ParentAggSpec(name, 'parent');
    s.childType = childTypeParam('parent', name, body);
    return s;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    const joiner = joinerOf(ctx);
    const known = joiner?.childTypeExists(this.childType) ? joiner : undefined;
    return new ParentAggregator(this, ctx, known, this.childType, known ? known.parentOf(this.childType) : '');
  }
}

export const childrenAggregation: AggregationTypeParser = { type: 'children', parse: (n, b) => ChildrenAggSpec.parse(n, b) };
export const parentAggregation: AggregationTypeParser = { type: 'parent', parse: (n, b) => ParentAggSpec.parse(n, b) };
