/** Control-flow processors: foreach, pipeline, reroute, script. */
import { EsError, Errors } from '@strata/core-common';
import { isObject, javaTypeName, type IngestDocument, type JsonObject } from '../ingest-document.js';
import { compileTemplate, type Template } from '../template.js';
import { defineProcessor, type Processor, type ProcessorFactory } from '../processor.js';
import { ScriptContexts } from '@strata/core-common';
import { compilePainless, HostMap } from '@strata/core-painless';
import { CtxMap } from '../ctx-map.js';

// ------------------------------------------------------------------------------------------ foreach

export const foreachProcessor: ProcessorFactory = defineProcessor('foreach', (r, _tag, _d, registry) => {
  const field = r.requiredString('field');
  const ignoreMissing = r.bool('ignore_missing', false);
  const cfg = r.requiredMap('processor');
  if (Object.keys(cfg).length !== 1) {
    throw r.error('processor', 'Must specify exactly one processor type');
  }
  const inner: Processor = registry.create(cfg);
  return {
    execute(doc, ctx) {
      const v = doc.getFieldValue(field, ignoreMissing);
      if (v === undefined || v === null) {
        if (ignoreMissing) return doc;
        throw Errors.illegalArgument(`field [${field}] is null, cannot loop over its elements.`);
      }
      const prevValue = doc.ingest['_value'];
      const prevKey = doc.ingest['_key'];
      let current: IngestDocument | null = doc;
      try {
        if (Array.isArray(v)) {
          const out: unknown[] = [];
          for (const item of v) {
            current.ingest['_value'] = item;
            current = inner.execute(current, ctx);
            if (current === null) return null;
            out.push(current.ingest['_value']);
          }
          current.setFieldValue(field, out);
        } else if (isObject(v)) {
          const out: JsonObject = {};
          for (const [k, item] of Object.entries(v)) {
            current.ingest['_key'] = k;
            current.ingest['_value'] = item;
            current = inner.execute(current, ctx);
            if (current === null) return null;
            const nk = current.ingest['_key'];
            out[typeof nk === 'string' ? nk : k] = current.ingest['_value'];
          }
          current.setFieldValue(field, out);
        } else {
          throw Errors.illegalArgument(`field [${field}] of type [${javaTypeName(v)}] cannot be cast to a list or map`);
        }
      } finally {
        if (current) {
          if (prevValue === undefined) delete current.ingest['_value'];
          else current.ingest['_value'] = prevValue;
          if (prevKey === undefined) delete current.ingest['_key'];
          else current.ingest['_key'] = prevKey;
        }
      }
      return current;
    },
  };
});

// ------------------------------------------------------------------------------------------ pipeline

export const pipelineProcessor: ProcessorFactory = defineProcessor('pipeline', (r, tag, description) => {
  const name: Template = compileTemplate(r.requiredString('name'));
  const ignoreMissingPipeline = r.bool('ignore_missing_pipeline', false);
  return {
    execute(doc, ctx) {
      const condition = ctx.traceCondition;
      ctx.traceCondition = undefined;
      const id = name.isConstant ? name.source : name.render(doc);
      const p = ctx.pipeline(id);
      if (!p) {
        // PipelineProcessor: a missing pipeline is found at run time, an IllegalStateException
        const err = Errors.illegalState(`Pipeline processor configured for non-existent pipeline [${id}]`);
        if (ignoreMissingPipeline) {
          ctx.tracer?.record({ processorType: 'pipeline', tag, description, status: 'error_ignored', condition, error: err, doc: doc.deepCopy() });
          return doc;
        }
        throw err;
      }
      if (ctx.stack.includes(id)) {
        throw new EsError('graph_structure_exception', 500, `Cycle detected for pipeline: ${id}`);
      }
      ctx.tracer?.record({ processorType: 'pipeline', tag, description, status: 'success', condition });
      return p.execute(doc, ctx);
    },
  };
});

// ------------------------------------------------------------------------------------------ reroute

const ILLEGAL_INDEX_CHARS = /[\\/*?"<>| ,#:-]/g;

function sanitize(v: string, dataset: boolean): string {
  let s = v.toLowerCase().replace(dataset ? ILLEGAL_INDEX_CHARS : /[\\/*?"<>| ,#:]/g, '_');
  const limit = 100;
  if (Buffer.byteLength(s) > limit) s = s.slice(0, limit);
  return s;
}

function valueSources(list: string[] | undefined, fallbackField: string): Array<{ field?: string; constant?: string }> {
  const raw = list ?? [`{{${fallbackField}}}`];
  return raw.map((s) => {
    const m = /^\{\{\{?([^{}]+?)\}?\}\}$/.exec(s);
    if (m) return { field: m[1].trim() };
    return { constant: s };
  });
}

export const rerouteProcessor: ProcessorFactory = defineProcessor('reroute', (r) => {
  const destination = r.optionalString('destination');
  const datasets = r.stringOrList('dataset', false);
  const namespaces = r.stringOrList('namespace', false);
  if (destination !== undefined && (datasets !== undefined || namespaces !== undefined)) {
    throw r.error('destination', 'can only be set if dataset and namespace are not set');
  }
  const ds = valueSources(datasets, 'data_stream.dataset');
  const ns = valueSources(namespaces, 'data_stream.namespace');
  for (const x of [...ds, ...ns]) {
    if (x.constant !== undefined && x.constant.includes('{{')) {
      throw r.error(datasets ? 'dataset' : 'namespace', `'${x.constant}' is not a valid field reference`);
    }
  }
  const pick = (doc: IngestDocument, list: Array<{ field?: string; constant?: string }>, fallback: string, dataset: boolean) => {
    for (const x of list) {
      if (x.constant !== undefined) return sanitize(x.constant, dataset);
      const v = doc.getFieldValue(x.field!, true);
      if (typeof v === 'string' && v !== '') return sanitize(v, dataset);
    }
    return fallback;
  };
  return {
    execute(doc) {
      if (destination !== undefined) {
        doc.meta['_index'] = destination;
        doc.rerouted = true;
        return doc;
      }
      const current = String(doc.meta['_index'] ?? '');
      const name = current.startsWith('.ds-') ? current.slice(4).replace(/-\d{4}\.\d{2}\.\d{2}-\d+$/, '') : current;
      const first = name.indexOf('-');
      const last = name.lastIndexOf('-');
      if (first < 0 || first === last) {
        throw Errors.illegalArgument(
          `invalid data stream name: [${name}]; must follow naming scheme <type>-<dataset>-<namespace>`,
        );
      }
      const type = name.slice(0, first);
      const dataset = pick(doc, ds, name.slice(first + 1, last), true);
      const namespace = pick(doc, ns, name.slice(last + 1), false);
      doc.setFieldValue('data_stream.type', type);
      doc.setFieldValue('data_stream.dataset', dataset);
      doc.setFieldValue('data_stream.namespace', namespace);
      doc.meta['_index'] = `${type}-${dataset}-${namespace}`;
      doc.rerouted = true;
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ script

export const scriptProcessor: ProcessorFactory = defineProcessor('script', (r) => {
  if (r.has('id')) {
    r.raw('id');
    throw r.error('id', 'stored scripts are not supported; use [source]');
  }
  const source = r.optionalString('source') ?? r.optionalString('inline');
  if (source === undefined) throw r.error('source', 'required property is missing');
  const lang = r.optionalString('lang', 'painless')!;
  if (lang !== 'painless') {
    throw new EsError('illegal_argument_exception', 400, `script_lang not supported [${lang}]`);
  }
  const params = r.optionalMap('params') ?? {};
  r.optionalMap('options');
  const script = compilePainless(source, ScriptContexts.INGEST);
  return {
    execute(doc) {
      const ctx = new CtxMap(doc);
      script.run({ ctx, params });
      ensureNoSelfReferences(ctx.doc.source);
      return ctx.doc;
    },
  };
});

/** scripts can build cyclic structures (`ctx.a = ctx`); ES rejects them before the source is serialised */
export function ensureNoSelfReferences(root: unknown): void {
  const ancestors = new Set<unknown>();
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    if (v instanceof HostMap || ancestors.has(v)) {
      throw Errors.illegalArgument('Iterable object is self-referencing itself (ingest script)');
    }
    ancestors.add(v);
    if (Array.isArray(v)) for (const x of v) walk(x);
    else for (const x of Object.values(v as JsonObject)) walk(x);
    ancestors.delete(v);
  };
  walk(root);
}
