/**
 * What search-side scripts read: `doc['field']` (ScriptDocValues from doc values, or a runtime field's values)
 * and `params._source` (the document's `_source`, parsed on first use).
 */
import { EsError } from '@strata/core-common';
import { boxDouble, HostMap, PainlessDateTime, ScriptDocValues } from '@strata/core-painless';
import type { LeafReader } from '../index/leaf-reader.js';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';
import { numericReader, ordinalsReader } from '../index/doc-values-reader.js';

/** a leaf that can evaluate runtime fields for one document (implemented by RuntimeLeafReader) */
export interface RuntimeValuesSource {
  /** values of a runtime field for doc, in doc-value form (numbers, encoded terms, geo objects); undefined when not runtime */
  runtimeValues(field: string, doc: number): readonly unknown[] | undefined;
}

export function isRuntimeValuesSource(r: unknown): r is RuntimeValuesSource {
  return typeof (r as RuntimeValuesSource | null)?.runtimeValues === 'function';
}

const decoder = new TextDecoder();

const TEXT_FIELDDATA_MESSAGE = (f: string) =>
  `Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${f}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`;

/** converts doc-value form values of a field into what a script sees (dates as ZonedDateTime, booleans, ips) */
export function scriptValue(ft: MappedFieldType, v: unknown): unknown {
  switch (ft.kind) {
    case 'date':
      return new PainlessDateTime(ft.type === 'date_nanos' ? Math.floor((v as number) / 1e6) : (v as number));
    case 'boolean':
      return v === 1 || v === true;
    case 'ip':
      return ft.valueForDisplay(v as string);
    case 'numeric': {
      const n = ft.type === 'scaled_float' || ft.type === 'unsigned_long' ? (ft.valueForDisplay(v as number) as number) : (v as number);
      // a double field's 2.0 stays a double for Painless arithmetic
      return ft.isInteger ? n : boxDouble(n);
    }
  }
  return v;
}

interface FieldSlot {
  values: ScriptDocValues;
  doc: number;
  read(doc: number): unknown[];
}

/** `doc` of search scripts: one per leaf, moved from doc to doc with setDocument */
export class DocLookup extends HostMap {
  private docId = -1;
  private readonly slots = new Map<string, FieldSlot>();

  constructor(
    private readonly reader: LeafReader,
    private readonly fieldType: (name: string) => MappedFieldType | undefined,
  ) {
    super();
  }

  setDocument(doc: number): void {
    this.docId = doc;
  }

  get(field: string): unknown {
    let slot = this.slots.get(field);
    if (!slot) {
      slot = { values: new ScriptDocValues(field, []), doc: -1, read: this.reader_(field) };
      this.slots.set(field, slot);
    }
    if (slot.doc !== this.docId) {
      slot.values.values = slot.read(this.docId);
      slot.doc = this.docId;
    }
    return slot.values;
  }

  private reader_(field: string): (doc: number) => unknown[] {
    const ft = this.fieldType(field);
    if (!ft) throw new EsError('illegal_argument_exception', 400, `No field found for [${field}] in mapping`, { plain: true });
    const r = this.reader;
    if (ft.runtime && isRuntimeValuesSource(r)) {
      return (d) => (r.runtimeValues(field, d) ?? []).map((v) => scriptValue(ft, v));
    }
    if (ft.kind === 'text' && ft.params['fielddata'] !== true) throw new EsError('illegal_argument_exception', 400, TEXT_FIELDDATA_MESSAGE(field), { plain: true });
    if (ft.kind === 'numeric' || ft.kind === 'date' || ft.kind === 'boolean') {
      const dv = r.numericDocValues(field);
      if (!dv) return () => [];
      const plain = ft.kind === 'numeric' && ft.isInteger && ft.type !== 'unsigned_long';
      const rd = numericReader(dv);
      return (d) => {
        const n = rd.advance(d);
        if (n === 0) return [];
        if (plain && n === 1) return [rd.value(0)];
        const out: unknown[] = new Array(n);
        for (let i = 0; i < n; i++) out[i] = plain ? rd.value(i) : scriptValue(ft, rd.value(i));
        return out;
      };
    }
    if (ft.kind === 'keyword' || ft.kind === 'ip' || ft.kind === 'text') {
      const dv = r.sortedSetDocValues(field);
      if (!dv) return () => [];
      const ip = ft.kind === 'ip';
      const rd = ordinalsReader(dv);
      return (d) => {
        const n = rd.advance(d);
        const out: unknown[] = new Array(n);
        for (let i = 0; i < n; i++) {
          const t = dv.terms[rd.value(i)]!;
          out[i] = ip ? ft.valueForDisplay(t) : t;
        }
        return out;
      };
    }
    throw new EsError('illegal_argument_exception', 400, `Field [${field}] of type [${ft.type}] doesn't support doc values`, { plain: true });
  }

  put(): unknown {
    throw new EsError('unsupported_operation_exception', 400, 'doc values are unmodifiable', { plain: true });
  }
  containsKey(key: string): boolean {
    return this.fieldType(key) !== undefined;
  }
  remove(): unknown {
    throw new EsError('unsupported_operation_exception', 400, 'doc values are unmodifiable', { plain: true });
  }
  keys(): string[] {
    return [];
  }
}

/** the current document's `_source`, parsed on first access */
export class SourceLookup {
  private docId = -1;
  private parsed: unknown = undefined;
  constructor(private readonly reader: LeafReader) {}
  setDocument(doc: number): void {
    if (doc !== this.docId) {
      this.docId = doc;
      this.parsed = undefined;
    }
  }
  source(): Record<string, unknown> {
    if (this.parsed === undefined) {
      const bytes = this.reader.source(this.docId);
      this.parsed = bytes ? JSON.parse(decoder.decode(bytes)) : {};
    }
    return this.parsed as Record<string, unknown>;
  }
}

/** `params` of search scripts: the request's params plus `_source` of the current document */
export class ParamsWithSource extends HostMap {
  constructor(
    private readonly params: Record<string, unknown>,
    private readonly source: SourceLookup,
  ) {
    super();
  }
  get(key: string): unknown {
    if (key === '_source') return this.source.source();
    return Object.prototype.hasOwnProperty.call(this.params, key) ? this.params[key] : null;
  }
  put(key: string, value: unknown): unknown {
    const prev = this.get(key);
    if (key !== '_source' && key !== '__proto__' && key !== 'constructor' && key !== 'prototype') this.params[key] = value;
    return prev;
  }
  containsKey(key: string): boolean {
    return key === '_source' || Object.prototype.hasOwnProperty.call(this.params, key);
  }
  remove(key: string): unknown {
    const prev = this.get(key);
    delete this.params[key];
    return prev;
  }
  keys(): string[] {
    return [...Object.keys(this.params), '_source'];
  }
}

/** the per-leaf variables of a search script (doc, params with _source), moved together */
export class LeafScriptVars {
  readonly doc: DocLookup;
  readonly sourceLookup: SourceLookup;
  readonly params: ParamsWithSource;
  constructor(reader: LeafReader, fieldType: (name: string) => MappedFieldType | undefined, params: Record<string, unknown>) {
    this.doc = new DocLookup(reader, fieldType);
    this.sourceLookup = new SourceLookup(reader);
    this.params = new ParamsWithSource({ ...params }, this.sourceLookup);
  }
  setDocument(doc: number): void {
    this.doc.setDocument(doc);
    this.sourceLookup.setDocument(doc);
  }
}
