/**
 * The relations of a `join` field (ES Joiner): parent → children, child → parent, and the names of the
 * internal `<field>#<parent>` fields that hold the parent id of every document of a relation family.
 */
import { Errors } from '@strata/core-common';
import type { MappedFieldType, QueryParseContext } from '@strata/core-engine';

export class Joiner {
  readonly parentsToChildren = new Map<string, string[]>();
  readonly childrenToParents = new Map<string, string>();

  constructor(
    /** the join field's name */
    readonly field: string,
    relations: Record<string, unknown>,
  ) {
    for (const [parent, v] of Object.entries(relations)) {
      const children = (Array.isArray(v) ? v : [v]).map(String);
      this.parentsToChildren.set(parent, children);
      for (const child of children) {
        if (this.childrenToParents.has(child)) throw Errors.illegalArgument(`[${child}] cannot have multiple parents`);
        this.childrenToParents.set(child, parent);
      }
    }
  }

  /** the Joiner of a join field type */
  static of(ft: MappedFieldType): Joiner {
    return new Joiner(ft.name, (ft.params['relations'] ?? {}) as Record<string, unknown>);
  }

  /** the join field of the index being searched, or undefined (ES Joiner.getJoiner) */
  static fromContext(ctx: QueryParseContext): Joiner | undefined {
    for (const name of ctx.matchingFieldNames('*')) {
      const ft = ctx.fieldType(name);
      if (ft && ft.type === 'join') return Joiner.of(ft);
    }
    return undefined;
  }

  childTypeExists(type: string): boolean {
    return this.childrenToParents.has(type);
  }
  parentTypeExists(type: string): boolean {
    return this.parentsToChildren.has(type);
  }
  knownRelation(type: string): boolean {
    return this.childTypeExists(type) || this.parentTypeExists(type);
  }
  parentOf(child: string): string {
    return this.childrenToParents.get(child)!;
  }
  childrenOf(parent: string): string[] {
    return this.parentsToChildren.get(parent) ?? [];
  }
  /** the field holding a child type's parent id (`my_join#question` for `answer`) */
  parentJoinField(child: string): string {
    return `${this.field}#${this.parentOf(child)}`;
  }
  /** the field holding the id of a parent type's documents themselves (and of their children) */
  childJoinField(parent: string): string {
    return `${this.field}#${parent}`;
  }

  /** merge conflicts (ES Joiner#canMerge) */
  mergeConflicts(next: Joiner): string[] {
    const out: string[] = [];
    for (const p of this.parentsToChildren.keys()) if (!next.parentsToChildren.has(p)) out.push(`Cannot remove parent [${p}]`);
    for (const c of this.childrenToParents.keys()) if (!next.childrenToParents.has(c)) out.push(`Cannot remove child [${c}]`);
    for (const p of next.parentsToChildren.keys()) {
      if (this.childrenToParents.has(p) && !this.parentsToChildren.has(p)) out.push(`Cannot create parent [${p}] from an existing child`);
    }
    for (const c of next.childrenToParents.keys()) {
      if (this.childrenToParents.has(c) && this.childrenToParents.get(c) !== next.childrenToParents.get(c)) out.push(`Cannot change parent of [${c}]`);
      if (this.parentsToChildren.has(c) && this.childrenToParents.get(c) !== next.childrenToParents.get(c)) out.push(`Cannot create child [${c}] from an existing root`);
    }
    return out;
  }
}
