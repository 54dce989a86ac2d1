/**
 * Parses a document `_source` against a compiled mapping into a ParsedDocument, applying dynamic mapping
 * (the new fields come back as `dynamicMappingUpdate`).
 *
 * Emits, besides every leaf field and multi-field:
 * - `_id` (keyword term, docs only), `_routing` when given;
 * - `_field_names`: one docs-only term per leaf field name (incl. multi-fields, flattened sub-keys) that got
 *   a value in the document but has neither doc values nor norms (as Elasticsearch 8 does): `exists`
 *   queries use doc values (keyword/numeric/date/boolean/ip), norms (text) or `_field_names` otherwise.
 */
import { EsError, Errors, UserRegex, exactInteger, jsonAt, jsonValue, parseJsonExact, plainCause } from '@strata/core-common';
import { encodeExactLong, exactLongField, exactLongLiteral, exactLongRange, isExactLongType, needsExact } from '../index/exact-longs.js';
import type { DocumentMapper } from '../services.js';
import type { IndexedToken, NestedDocument, ParseResult, ParsedDocument, ParsedField } from './parsed-document.js';
import type { MappedFieldType } from './mapped-field-type.js';
import { DateFormatter } from '@strata/core-common';
import { DateFieldType, KeywordFieldType, parseBoolean, parseNumber } from './field-types.js';
import { encodeIp } from './ip.js';
import { DATA_STREAM_TIMESTAMP_FIELD } from '../cluster/templates.js';
import { filterSearchSource } from '../action/search/source-filter.js';
import {
  ACCEPT_ONLY_TYPES,
  buildFieldType,
  isPlainObject,
  javaString,
  simpleMatch,
  TokenCountFieldType,
  type CompiledMapping,
  type Dynamic,
  type Json,
  type LeafMapper,
  type Mapper,
  type MappingContext,
  type ObjectMapper,
} from './mapping.js';
import type { FieldIndexContext } from './field-mapper-type.js';
import { NESTED_PATH_FIELD } from '../index/nested-blocks.js';

const ID_FIELD = '_id';
const ROUTING_FIELD = '_routing';
const FIELD_NAMES = '_field_names';
const IGNORED_FIELD = '_ignored';
const METADATA_FIELDS = new Set([
  '_id', '_index', '_source', '_routing', '_ignored', '_field_names', '_seq_no', '_primary_term', '_version',
  '_data_stream_timestamp', '_doc_count', '_tier', '_nested_path', '_feature', '_size', '_type',
]);

/** the Lucene document being filled: the root document or one nested object */
interface DocState {
  /** nested path; null for the root document */
  path: string | null;
  fields: ParsedField[];
  fieldNames: Set<string>;
  positions: Map<string, number>;
  parent: DocState | null;
}

interface ParseState {
  id: string;
  routing?: string;
  source: Json;
  /** the document fields go to (changes while a nested object is parsed) */
  doc: DocState;
  root: DocState;
  /** finished nested documents, post-order (children before their parent) */
  nested: NestedDocument[];
  /** fields whose values were skipped (ignore_above / ignore_malformed): the `_ignored` metadata field */
  ignored: Set<string>;
  /** dynamically added mappers by full path (this document only) */
  overlay: Map<string, Mapper>;
  update?: Json;
  runtimeUpdate?: Json;
  /** path segments of the value currently being parsed (for error locations) */
  path: Array<string | number>;
  /** the source text as received, when given (exact long values are read from it) */
  raw?: string | Uint8Array;
  /** the source parsed with exact integers (only once a long field meets a value beyond 2^53) */
  exactSource?: { value: unknown };
}

export class DefaultDocumentMapper implements DocumentMapper {
  constructor(
    readonly index: string,
    readonly mapping: CompiledMapping,
    private readonly ctx: MappingContext,
  ) {}

  parse(source: Record<string, unknown>, id: string, routing?: string, rawSource?: string | Uint8Array): ParseResult {
    if (this.mapping.routingRequired && (routing === undefined || routing === null)) {
      throw new EsError('routing_missing_exception', 400, `routing is required for [${this.index}]/[${id}]`, {
        metadata: { index_uuid: '_na_', index: this.index },
      });
    }
    const root: DocState = { path: null, fields: [], fieldNames: new Set(), positions: new Map(), parent: null };
    const st: ParseState = {
      id,
      routing,
      source,
      doc: root,
      root,
      nested: [],
      ignored: new Set(),
      overlay: new Map(),
      path: [],
      raw: rawSource,
    };
    root.fields.push({ name: ID_FIELD, tokens: [{ term: id, position: 0 }], indexOptions: 'docs' });
    if (routing !== undefined && routing !== null) root.fields.push({ name: ROUTING_FIELD, tokens: [{ term: routing, position: 0 }], indexOptions: 'docs' });
    this.parseObject(source, this.mapping.root, '', this.mapping.dynamic, st);
    if (this.mapping.dataStreamTimestamp) checkDataStreamTimestamp(source);
    addFieldNames(root);
    if (st.ignored.size) {
      // indexed keyword with doc values (ES >= 8.15): searchable (exists / term) and returned in GET and hits
      const names = [...st.ignored].sort();
      root.fields.push({ name: IGNORED_FIELD, tokens: names.map((term) => ({ term, position: 0 })), indexOptions: 'docs', keywordValues: names });
    }
    const doc: ParsedDocument = { id, routing, source: this.sourceBytes(source, rawSource), fields: root.fields };
    if (st.nested.length > 0) doc.nested = st.nested;
    let dynamicMappingUpdate: Json | undefined;
    if (st.update || st.runtimeUpdate) {
      dynamicMappingUpdate = {};
      if (st.update) dynamicMappingUpdate['properties'] = st.update['properties'];
      if (st.runtimeUpdate) dynamicMappingUpdate['runtime'] = st.runtimeUpdate;
    }
    return dynamicMappingUpdate ? { doc, dynamicMappingUpdate } : { doc };
  }

  private sourceBytes(source: Json, raw?: string | Uint8Array): Uint8Array | null {
    const m = this.mapping;
    if (!m.sourceEnabled) return null;
    if (raw !== undefined && !m.sourceIncludes.length && !m.sourceExcludes.length) {
      return typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    }
    const filtered = m.sourceIncludes.length || m.sourceExcludes.length ? filterSourceByMapping(source, m.sourceIncludes, m.sourceExcludes) : source;
    return Buffer.from(JSON.stringify(filtered), 'utf8');
  }

  // ---------------------------------------------------------------- objects

  private child(obj: ObjectMapper, key: string, full: string, st: ParseState): Mapper | undefined {
    return obj.children.get(key) ?? st.overlay.get(full);
  }

  private parseObject(src: Json, obj: ObjectMapper, prefix: string, dynamic: Dynamic, st: ParseState): void {
    const dyn = obj.dynamic ?? dynamic;
    for (const key in src) {
      const value = src[key];
      st.path.push(key);
      if (key === '') throw this.docError(st, `field name cannot be an empty string`);
      if (prefix === '' && key.charCodeAt(0) === 95 && METADATA_FIELDS.has(key)) {
        throw this.docError(st, `Field [${key}] is a metadata field and cannot be added inside a document. Use the index API request parameters.`);
      }
      if (key.includes('.')) {
        this.parseDotted(key.split('.'), 0, value, obj, prefix, dyn, st);
      } else this.parseField(key, value, obj, prefix, dyn, st);
      st.path.pop();
    }
  }

  /** `{"a.b.c": v}` → walks/creates a, a.b, then parses c */
  private parseDotted(parts: string[], i: number, value: unknown, obj: ObjectMapper, prefix: string, dyn: Dynamic, st: ParseState): void {
    if (parts.some((p) => p === '')) throw this.docError(st, `field name cannot contain only whitespace: ['${parts.join('.')}']`);
    if (i === parts.length - 1) return this.parseField(parts[i], value, obj, prefix, dyn, st);
    const key = parts[i];
    const full = prefix + key;
    let m = this.child(obj, key, full, st);
    if (!m) {
      if (dyn === 'strict') throw this.strictError(st, key, obj.name);
      if (dyn === 'false') return;
      if (dyn === 'runtime') {
        // runtime fields are flat: keep walking with a synthetic object
        m = { kind: 'object', name: full, nested: false, enabled: true, children: new Map() };
        st.overlay.set(full, m);
      } else {
        m = { kind: 'object', name: full, nested: false, enabled: true, children: new Map() };
        st.overlay.set(full, m);
        this.addDynamic(full, { properties: {} }, st);
      }
    }
    if (m.kind !== 'object') {
      if (m.kind === 'leaf' && m.type === 'flattened') {
        const rest = parts.slice(i + 1).join('.');
        return this.parseLeaf(m, { [rest]: value }, st);
      }
      throw this.docError(st, `Could not dynamically add mapping for field [${parts.join('.')}]. Existing mapping for [${full}] must be of type object but found [${m.kind === 'leaf' ? m.type : 'alias'}].`);
    }
    if (!m.enabled) return;
    this.parseDotted(parts, i + 1, value, m, full + '.', m.dynamic ?? dyn, st);
  }

  private parseField(key: string, value: unknown, obj: ObjectMapper, prefix: string, dyn: Dynamic, st: ParseState): void {
    const full = prefix + key;
    const m = this.child(obj, key, full, st);
    if (m) {
      if (m.kind === 'alias') throw this.docError(st, `Cannot write to a field alias [${full}].`);
      if (m.kind === 'object') return this.parseIntoObject(m, value, key, dyn, st);
      return this.parseLeaf(m, value, st);
    }
    if (value === null || value === undefined) return;
    if (Array.isArray(value) && value.every((v) => v === null)) return;
    if (dyn === 'strict') throw this.strictError(st, key, obj.name);
    if (dyn === 'false') return;
    const sample = firstNonNull(value);
    if (sample === undefined) return;
    if (isPlainObject(sample)) {
      if (dyn === 'runtime') {
        const om: ObjectMapper = { kind: 'object', name: full, nested: false, enabled: true, children: new Map() };
        st.overlay.set(full, om);
        return this.parseIntoObject(om, value, key, dyn, st);
      }
      const tmpl = this.findTemplate(full, key, 'object');
      const def: Json = tmpl?.mapping ? (substitute(tmpl.mapping, key, 'object') as Json) : { properties: {} };
      if (def['type'] !== undefined && def['type'] !== 'object' && def['type'] !== 'nested') {
        const leaf = this.newLeaf(full, def, st);
        return this.parseLeaf(leaf, value, st);
      }
      const om: ObjectMapper = {
        kind: 'object',
        name: full,
        nested: def['type'] === 'nested',
        includeInParent: def['include_in_parent'] === true,
        includeInRoot: def['include_in_root'] === true,
        enabled: def['enabled'] !== false,
        dynamic: def['dynamic'] === undefined ? undefined : (String(def['dynamic']) as Dynamic),
        children: new Map(),
      };
      st.overlay.set(full, om);
      const { properties, ...rest } = def;
      void properties;
      this.addDynamic(full, { ...rest, properties: {} }, st);
      return this.parseIntoObject(om, value, key, dyn, st);
    }
    const detected = this.detectType(sample);
    const tmpl = this.findTemplate(full, key, detected.matchType);
    if (dyn === 'runtime' || (tmpl && tmpl.runtime && !tmpl.mapping)) {
      const rdef: Json = tmpl?.runtime ? (substitute(tmpl.runtime, key, detected.matchType) as Json) : { type: detected.runtimeType };
      if (rdef['type'] === undefined) rdef['type'] = detected.runtimeType;
      st.runtimeUpdate = st.runtimeUpdate ?? {};
      st.runtimeUpdate[full] = rdef;
      return;
    }
    let def: Json = detected.def;
    if (tmpl?.mapping) {
      def = substitute(tmpl.mapping, key, detected.matchType) as Json;
      if (def['type'] === undefined) def = { ...def, type: detected.def['type'] };
    }
    const leaf = this.newLeaf(full, def, st);
    this.parseLeaf(leaf, value, st);
  }

  private parseIntoObject(m: ObjectMapper, value: unknown, key: string, dyn: Dynamic, st: ParseState): void {
    if (!m.enabled) return;
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        st.path.push(i);
        this.parseIntoObject(m, value[i], key, dyn, st);
        st.path.pop();
      }
      return;
    }
    if (!isPlainObject(value)) {
      throw this.docError(st, `object mapping for [${m.name}] tried to parse field [${key}] as object, but found a concrete value`);
    }
    if (m.nested) return this.parseNested(m, value, dyn, st);
    this.parseObject(value, m, m.name + '.', m.dynamic ?? dyn, st);
  }

  /** one object of a nested field becomes a hidden document of its own (added after its own nested children) */
  private parseNested(m: ObjectMapper, value: Json, dyn: Dynamic, st: ParseState): void {
    const limit = Number(this.ctx.indexSettings['index.mapping.nested_objects.limit'] ?? 10000);
    if (st.nested.length + 1 > limit) {
      throw this.docError(
        st,
        `The number of nested documents has exceeded the allowed limit of [${limit}]. This limit can be set by changing the [index.mapping.nested_objects.limit] index level setting.`,
      );
    }
    const parent = st.doc;
    const doc: DocState = { path: m.name, fields: [], fieldNames: new Set(), positions: new Map(), parent };
    st.doc = doc;
    try {
      this.parseObject(value, m, m.name + '.', m.dynamic ?? dyn, st);
    } finally {
      st.doc = parent;
    }
    // ES DocumentParser: the nested fields are also indexed in the parent and/or root document when asked
    const copies: DocState[] = [];
    if (m.includeInParent) copies.push(parent);
    if (m.includeInRoot && !(m.includeInParent && parent === st.root)) copies.push(st.root);
    for (const target of copies) {
      for (const f of doc.fields) target.fields.push(f);
      for (const n of doc.fieldNames) target.fieldNames.add(n);
    }
    addFieldNames(doc);
    doc.fields.push({ name: NESTED_PATH_FIELD, tokens: [{ term: m.name, position: 0 }], indexOptions: 'docs' });
    st.nested.push({ path: m.name, fields: doc.fields });
  }

  private newLeaf(full: string, def: Json, st: ParseState): LeafMapper {
    let ft: MappedFieldType;
    try {
      ft = buildFieldType(full, def, this.ctx);
    } catch (e) {
      throw this.docError(st, `failed to parse: ${(e as EsError).reason ?? String(e)}`, e as Error);
    }
    const multiFields: LeafMapper[] = [];
    for (const [sub, sd] of Object.entries((def['fields'] as Json | undefined) ?? {})) {
      const sdef = sd as Json;
      multiFields.push(this.leafOf(`${full}.${sub}`, sdef, buildFieldType(`${full}.${sub}`, sdef, this.ctx)));
    }
    const leaf: LeafMapper = { ...this.leafOf(full, def, ft), multiFields };
    st.overlay.set(full, leaf);
    this.addDynamic(full, def, st);
    return leaf;
  }

  private leafOf(name: string, def: Json, ft: MappedFieldType): LeafMapper {
    return {
      kind: 'leaf',
      name,
      type: String(def['type']),
      def,
      ft,
      multiFields: [],
      copyTo: [],
      extraTypes: [],
      index: def['index'] !== false,
      docValues: def['doc_values'] !== false,
    };
  }

  private addDynamic(full: string, def: Json, st: ParseState): void {
    st.update = st.update ?? { properties: {} };
    const parts = full.split('.');
    let cur = st.update;
    for (let i = 0; i < parts.length - 1; i++) {
      const props = (cur['properties'] ??= {}) as Json;
      let next = props[parts[i]] as Json | undefined;
      if (!next) {
        next = { properties: {} };
        props[parts[i]] = next;
      }
      cur = next;
    }
    const props = (cur['properties'] ??= {}) as Json;
    const existing = props[parts[parts.length - 1]] as Json | undefined;
    if (existing && existing['properties'] && def['properties']) return;
    props[parts[parts.length - 1]] = def;
  }

  private detectType(v: unknown): { def: Json; matchType: string; runtimeType: string } {
    if (typeof v === 'boolean') return { def: { type: 'boolean' }, matchType: 'boolean', runtimeType: 'boolean' };
    if (typeof v === 'number') {
      return Number.isInteger(v)
        ? { def: { type: 'long' }, matchType: 'long', runtimeType: 'long' }
        : { def: { type: 'float' }, matchType: 'double', runtimeType: 'double' };
    }
    const s = typeof v === 'string' ? v : String(v);
    const m = this.mapping;
    // DynamicFieldsBuilder: numeric detection first; date detection refuses pure numbers ("2024", epoch
    // millis), which too easily pass for dates
    const asLong = javaParsesAsLong(s);
    const asDouble = javaParsesAsDouble(s);
    if (m.numericDetection && asLong) return { def: { type: 'long' }, matchType: 'long', runtimeType: 'long' };
    if (m.numericDetection && asDouble) return { def: { type: 'float' }, matchType: 'double', runtimeType: 'double' };
    if (m.dateDetection && !asLong && !asDouble) {
      for (let i = 0; i < m.dynamicDateFormats.length; i++) {
        const f = m.dynamicDateFormats[i];
        if (DateFormatter.of(f).tryParse(s)) {
          const def: Json = f === 'strict_date_optional_time' ? { type: 'date' } : { type: 'date', format: f };
          return { def, matchType: 'date', runtimeType: 'date' };
        }
      }
    }
    return {
      def: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      matchType: 'string',
      runtimeType: 'keyword',
    };
  }

  private findTemplate(full: string, key: string, matchType: string) {
    for (const t of this.mapping.dynamicTemplates) {
      const test = (pats: string[] | undefined, v: string) =>
        pats!.some((p) => (t.regex ? UserRegex.java(p).matches(v) : simpleMatch(p, v)));
      if (t.matchMappingType && !t.matchMappingType.some((x) => x === '*' || x === matchType)) continue;
      if (t.unmatchMappingType && t.unmatchMappingType.some((x) => x === matchType)) continue;
      if (t.match && !test(t.match, key)) continue;
      if (t.unmatch && test(t.unmatch, key)) continue;
      if (t.pathMatch && !test(t.pathMatch, full)) continue;
      if (t.pathUnmatch && test(t.pathUnmatch, full)) continue;
      if (matchType === 'object' && !t.mapping) continue;
      return t;
    }
    return undefined;
  }

  // ---------------------------------------------------------------- leaves

  private parseLeaf(m: LeafMapper, value: unknown, st: ParseState): void {
    if (value !== null && typeof value === 'object' && Array.isArray(value) && m.type !== 'flattened') {
      for (let i = 0; i < value.length; i++) {
        st.path.push(i);
        this.parseLeaf(m, value[i], st);
        st.path.pop();
      }
      return;
    }
    if (value === null || value === undefined) {
      const nv = m.def['null_value'];
      if (nv === undefined || nv === null) return;
      value = nv;
    }
    try {
      this.indexValue(m, value, st);
    } catch (e) {
      if (e instanceof EsError && (e.type === 'document_parsing_exception' || e.type === 'strict_dynamic_mapping_exception')) throw e;
      // mappers that parse their own value (ES: they override FieldMapper#parse) report their error as it is
      if (m.ext?.ownParseErrors) throw this.docError(st, e instanceof EsError ? e.reason : String((e as Error).message ?? e), e as Error);
      if (m.def['ignore_malformed'] === true || (this.ctx.indexSettings['index.mapping.ignore_malformed'] === true && m.def['ignore_malformed'] !== false)) {
        st.ignored.add(m.name);
        return;
      }
      const preview = typeof value === 'object' ? javaString(value) : String(this.exactNumberAt(value, st) ?? value);
      throw this.docError(
        st,
        `failed to parse field [${m.name}] of type [${m.type}] in document with id '${st.id}'. Preview of field's value: '${preview}'`,
        e as Error,
      );
    }
    const mfs = m.multiFields;
    for (let i = 0; i < mfs.length; i++) this.parseLeaf(mfs[i], value, st);
    const ct = m.copyTo;
    for (let i = 0; i < ct.length; i++) {
      const t = this.mapping.leaves.get(ct[i]) ?? (st.overlay.get(ct[i]) as LeafMapper | undefined);
      if (!t || t.kind !== 'leaf') continue;
      // the target goes to the document of its own nested scope (an enclosing one when copying out of a nested object)
      const scope = this.mapping.nested.nestedParentOf(t.name);
      let target: DocState | null = st.doc;
      while (target && target.path !== scope) target = target.parent;
      const cur = st.doc;
      st.doc = target ?? cur;
      try {
        this.parseLeaf(t, value, st);
      } finally {
        st.doc = cur;
      }
    }
  }

  private indexValue(m: LeafMapper, value: unknown, st: ParseState): void {
    if (m.ext) {
      const ictx: FieldIndexContext = { ...this.ctx, id: st.id, routing: st.routing, source: st.source, indexSettings: this.ctx.indexSettings, analyzer: (n: string) => this.ctx.analyzer(n) };
      const fields = m.ext.index(m.name, value, m.def, ictx);
      for (const f of fields) {
        st.doc.fields.push(f);
        if (!f.keywordValues && !f.numericValues && !f.norms) st.doc.fieldNames.add(f.name);
      }
      return;
    }
    if (m.type === 'flattened') return this.indexFlattened(m, value, st);
    if (m.type === 'geo_point' || ACCEPT_ONLY_TYPES.has(m.type)) {
      // accepted and kept in _source; not indexed
      st.doc.fieldNames.add(m.name);
      return;
    }
    if (typeof value === 'object') {
      throw new EsError('illegal_state_exception', 500, `Can't get text on a START_OBJECT at ${this.location(st)}`);
    }
    const name = m.name;
    switch (m.type) {
      case 'text':
      case 'search_as_you_type':
      case 'annotated_text':
      case 'match_only_text': {
        const str = typeof value === 'string' ? value : String(value);
        if (!m.index) return;
        const an = m.ft.indexAnalyzer!;
        const toks = an.analyze(str);
        const base = st.doc.positions.get(name) ?? 0;
        // analyzer tokens are fresh objects: reuse them as IndexedTokens (term + position)
        const tokens: IndexedToken[] = toks;
        let last = -1;
        for (let i = 0; i < toks.length; i++) {
          const p = base + toks[i].position;
          if (base !== 0) toks[i].position = p;
          last = p;
        }
        st.doc.positions.set(name, (last >= 0 ? last + 1 : base) + an.positionIncrementGap);
        const io = m.type === 'match_only_text' ? 'docs' : (m.def['index_options'] as string | undefined);
        st.doc.fields.push({
          name,
          tokens,
          indexOptions: io === 'docs' ? 'docs' : io === 'freqs' ? 'freqs' : 'positions',
          norms: m.ft.hasNorms,
        });
        if (!m.ft.hasNorms) st.doc.fieldNames.add(name);
        return;
      }
      case 'keyword':
      case 'wildcard':
      case 'counted_keyword':
      case 'version': {
        const str = typeof value === 'string' ? value : String(value);
        const ia = m.def['ignore_above'];
        if (ia !== undefined && str.length > (ia as number)) {
          st.ignored.add(name);
          return;
        }
        const term = (m.ft as KeywordFieldType).normalize(str);
        const f: ParsedField = { name };
        if (m.index) {
          f.tokens = [{ term, position: 0 }];
          f.indexOptions = 'docs';
          if (m.def['norms'] === true) f.norms = true;
        }
        if (m.docValues) f.keywordValues = [term];
        st.doc.fields.push(f);
        if (!f.keywordValues && !f.norms) st.doc.fieldNames.add(name);
        return;
      }
      case 'date':
      case 'date_nanos': {
        const v = (m.ft as DateFieldType).parseIndexValue(value);
        this.pushNumeric(m, v, st);
        return;
      }
      case 'boolean': {
        this.pushNumeric(m, parseBoolean(value) ? 1 : 0, st);
        return;
      }
      case 'ip': {
        const enc = encodeIp(typeof value === 'string' ? value : String(value));
        const f: ParsedField = { name };
        if (m.index) {
          f.tokens = [{ term: enc, position: 0 }];
          f.indexOptions = 'docs';
        }
        if (m.docValues) f.keywordValues = [enc];
        st.doc.fields.push(f);
        if (!m.docValues) st.doc.fieldNames.add(name);
        return;
      }
      case 'constant_keyword': {
        const s = String(value);
        const cv = m.def['value'];
        if (cv === undefined) {
          if (!st.overlay.has(name)) {
            const def = { ...m.def, value: s };
            st.overlay.set(name, { ...m, def });
            this.addDynamic(name, def, st);
          } else {
            const ov = (st.overlay.get(name) as LeafMapper).def['value'];
            if (ov !== s) throw Errors.illegalArgument(`[constant_keyword] field [${name}] only accepts values that are equal to the value defined in the mappings [${String(ov)}], but got [${s}]`);
          }
        } else if (String(cv) !== s) {
          throw Errors.illegalArgument(`[constant_keyword] field [${name}] only accepts values that are equal to the value defined in the mappings [${String(cv)}], but got [${s}]`);
        }
        st.doc.fieldNames.add(name);
        return;
      }
      case 'token_count': {
        const ft = m.ft as TokenCountFieldType;
        // a null_value stands for the count itself; any other value is analysed and its tokens counted
        const count = value === m.def['null_value'] && typeof value === 'number' ? value : ft.countTokens(typeof value === 'string' ? value : String(value));
        this.pushNumeric(m, count, st);
        return;
      }
      case 'geo_point':
      case 'binary':
        st.doc.fieldNames.add(name);
        return;
      default: {
        if (ACCEPT_ONLY_TYPES.has(m.type)) {
          st.doc.fieldNames.add(name);
          return;
        }
        if (m.type === 'scaled_float') {
          const v = parseNumber('double', value, m.def['coerce'] !== false);
          this.pushNumeric(m, Math.round(v * (m.def['scaling_factor'] as number)), st);
          return;
        }
        if (value === '' && m.def['coerce'] !== false) {
          // ES: an empty string is a null value for numeric fields (when coercing)
          const nv = m.def['null_value'];
          if (nv !== undefined && nv !== null) this.pushNumeric(m, parseNumber(m.type, nv, true), st);
          return;
        }
        const v = parseNumber(m.type, value, m.def['coerce'] !== false);
        // the exact value is checked (range) before anything of the value is added
        const exact = needsExact(v) && isExactLongType(m.type) ? this.exactLong(m, value, v, st) : undefined;
        this.pushNumeric(m, v, st);
        if (exact !== undefined) this.pushExactLong(m, exact, st);
      }
    }
  }

  private pushNumeric(m: LeafMapper, v: number, st: ParseState): void {
    const f: ParsedField = { name: m.name };
    if (m.index) f.pointValues = [v];
    if (m.docValues) f.numericValues = [v];
    st.doc.fields.push(f);
    if (!m.docValues) st.doc.fieldNames.add(m.name);
  }

  /**
   * A long / unsigned_long value beyond 2^53 (`v` is its double) also goes, exact, to the field's side field
   * (see index/exact-longs.ts). The exact value comes from a string of digits, or for a JSON number from the
   * source text (parsed exactly once per document, only now); without either it is the double's integer.
   */
  private exactLong(m: LeafMapper, value: unknown, v: number, st: ParseState): string {
    const unsigned = m.type === 'unsigned_long';
    const exact = exactLongLiteral(value) ?? this.exactNumberAt(value, st);
    const [min, max] = exactLongRange(m.type);
    if (exact === undefined) {
      // the best the double tells: its integer, clamped to the type's range (a double rounded up to 2^63)
      const d = BigInt(v);
      return encodeExactLong(d > max ? max : d < min ? min : d, unsigned);
    }
    if (exact < min || exact > max) {
      throw Errors.illegalArgument(unsigned ? `Value "${exact}" is out of range for an unsigned long` : `Value [${exact}] is out of range for a long`);
    }
    return encodeExactLong(exact, unsigned);
  }

  /**
   * The exact integer of a JSON number beyond 2^53 being parsed, read from the source text (parsed exactly
   * once per document, only when such a number meets a field that needs it); undefined without the text.
   */
  private exactNumberAt(value: unknown, st: ParseState): bigint | undefined {
    if (typeof value !== 'number' || Number.isSafeInteger(value) || st.raw === undefined) return undefined;
    if (!st.exactSource) {
      let parsed: unknown;
      try {
        parsed = parseJsonExact(typeof st.raw === 'string' ? st.raw : Buffer.from(st.raw.buffer, st.raw.byteOffset, st.raw.byteLength).toString('utf8'));
      } catch {
        parsed = undefined;
      }
      st.exactSource = { value: parsed };
    }
    const at = jsonAt(st.exactSource.value, st.path);
    // the literal at this path is this value's (not a null_value standing in for a null)
    return at !== undefined && jsonValue(at) === value ? exactInteger(at) : undefined;
  }

  private pushExactLong(m: LeafMapper, term: string, st: ParseState): void {
    const f: ParsedField = { name: exactLongField(m.name) };
    if (m.index) {
      f.tokens = [{ term, position: 0 }];
      f.indexOptions = 'docs';
    }
    if (m.docValues) f.keywordValues = [term];
    if (m.index || m.docValues) st.doc.fields.push(f);
  }

  private indexFlattened(m: LeafMapper, value: unknown, st: ParseState): void {
    const ia = m.def['ignore_above'] as number | undefined;
    const emit = (key: string, v: unknown) => {
      if (v === null || v === undefined) return;
      if (Array.isArray(v)) return v.forEach((x) => emit(key, x));
      if (isPlainObject(v)) {
        for (const k in v) emit(key ? `${key}.${k}` : k, v[k]);
        return;
      }
      const s = String(v);
      if (ia !== undefined && s.length > ia) {
        st.ignored.add(m.name);
        return;
      }
      const names = key ? [m.name, `${m.name}.${key}`] : [m.name];
      for (const n of names) {
        const f: ParsedField = { name: n };
        if (m.index) {
          f.tokens = [{ term: s, position: 0 }];
          f.indexOptions = 'docs';
        }
        if (m.docValues) f.keywordValues = [s];
        st.doc.fields.push(f);
        if (!m.docValues) st.doc.fieldNames.add(n);
      }
    };
    if (!isPlainObject(value)) {
      throw Errors.illegalArgument(`Failed to parse object: expecting token of type [START_OBJECT] but found [VALUE_STRING]`);
    }
    emit('', value);
  }

  // ---------------------------------------------------------------- errors

  private strictError(st: ParseState, key: string, parent: string): EsError {
    return Errors.strictDynamicMapping(`[${this.location(st)}] mapping set to strict, dynamic introduction of [${key}] within [${parent || '_doc'}] is not allowed`);
  }

  private docError(st: ParseState, reason: string, cause?: Error): EsError {
    const c = cause instanceof EsError ? (JAVA_EXCEPTION_TYPES.has(cause.type) ? plainCause(cause) : cause) : cause ? plainCause(cause) : undefined;
    return Errors.documentParsing(`[${this.location(st)}] ${reason}`, c);
  }

  /** line:column of the current value in the compact JSON serialisation of the source (1-based, as Jackson reports). */
  private location(st: ParseState): string {
    return `1:${locateColumn(st.source, st.path)}`;
  }
}

/**
 * error types that are plain Java exceptions in Elasticsearch (not ElasticsearchExceptions): as the cause of a
 * document_parsing_exception they stay in caused_by and the document_parsing_exception is the root cause
 */
const JAVA_EXCEPTION_TYPES = new Set([
  'illegal_argument_exception',
  'illegal_state_exception',
  'number_format_exception',
  'arithmetic_exception',
  'date_time_parse_exception',
  'x_content_parse_exception',
  'json_parse_exception',
  'class_cast_exception',
  'unsupported_operation_exception',
]);

/** the `_field_names` terms of a document */
function addFieldNames(doc: DocState): void {
  if (doc.fieldNames.size === 0) return;
  const tokens: IndexedToken[] = [];
  for (const n of doc.fieldNames) tokens.push({ term: n, position: 0 });
  doc.fields.push({ name: FIELD_NAMES, tokens, indexOptions: 'docs' });
}

function firstNonNull(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (const x of v) {
      const f = firstNonNull(x);
      if (f !== undefined && f !== null) return f;
    }
    return undefined;
  }
  return v === null ? undefined : v;
}

function substitute(v: unknown, name: string, dynType: string): unknown {
  if (typeof v === 'string') return v.replace(/\{name\}/g, name).replace(/\{dynamic_type\}/g, dynType === 'string' ? 'keyword' : dynType);
  if (Array.isArray(v)) return v.map((x) => substitute(x, name, dynType));
  if (isPlainObject(v)) {
    const o: Json = {};
    for (const [k, x] of Object.entries(v)) o[k] = substitute(x, name, dynType);
    return o;
  }
  return v;
}

/** Column (1-based) where the value at `path` starts in JSON.stringify(source). */
export function locateColumn(source: unknown, path: Array<string | number>): number {
  let col = 1;
  let cur: unknown = source;
  for (const seg of path) {
    if (Array.isArray(cur)) {
      col += 1; // [
      const i = seg as number;
      for (let k = 0; k < i && k < cur.length; k++) col += (JSON.stringify(cur[k] ?? null) ?? 'null').length + 1;
      cur = cur[i];
    } else if (isPlainObject(cur)) {
      col += 1; // {
      for (const [k, v] of Object.entries(cur)) {
        if (v === undefined) continue;
        if (k === seg) {
          col += JSON.stringify(k).length + 1;
          break;
        }
        col += JSON.stringify(k).length + 1 + (JSON.stringify(v) ?? '').length + 1;
      }
      cur = cur[seg as string];
    } else break;
  }
  return col;
}

/** Applies the mapping's `_source.includes/excludes` (the same filtering as a search's `_source`). */
export function filterSourceByMapping(src: Json, includes: string[], excludes: string[]): Json {
  return filterSearchSource(src, includes, excludes) as Json;
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** Java Long.parseLong succeeds (sign and digits only, no whitespace, within 64 bits) */
function javaParsesAsLong(s: string): boolean {
  if (!/^[+-]?\d+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= LONG_MIN && n <= LONG_MAX;
}

const JAVA_DOUBLE =
  /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+[fFdD]?)$/;

/** Java Double.parseDouble succeeds (it trims ASCII control characters and spaces first) */
function javaParsesAsDouble(s: string): boolean {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 32) a++;
  while (b > a && s.charCodeAt(b - 1) <= 32) b--;
  return JAVA_DOUBLE.test(s.slice(a, b));
}

/**
 * ES DataStreamTimestampFieldMapper (`_data_stream_timestamp` enabled: a data stream's backing index): a
 * document without one `@timestamp` fails to parse; the location is the end of the document
 */
function checkDataStreamTimestamp(source: Record<string, unknown>): void {
  const v = source[DATA_STREAM_TIMESTAMP_FIELD];
  let message: string | undefined;
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) message = `data stream timestamp field [${DATA_STREAM_TIMESTAMP_FIELD}] is missing`;
  else if (Array.isArray(v) && v.length > 1) message = `data stream timestamp field [${DATA_STREAM_TIMESTAMP_FIELD}] encountered multiple values`;
  if (message === undefined) return;
  // the illegal argument is a plain Java exception in ES: it stays the cause, the parsing exception is the root cause
  throw Errors.documentParsing(`[1:${JSON.stringify(source).length + 1}] failed to parse: ${message}`, plainCause(Errors.illegalArgument(message)));
}
