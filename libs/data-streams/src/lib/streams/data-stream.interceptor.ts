/**
 * The write path of data streams (IndexRequestInterceptor, order 200, after ingest): creates the stream on
 * the first write to a name a data-stream template matches, admits only op_type create through the stream
 * name, requires a single `@timestamp`, performs a pending lazy rollover, and points the request at the write
 * index. Direct writes to a backing index are refused unless they are conditional updates (if_seq_no), as in
 * Elasticsearch. Also applies a composable template's `allow_auto_create` to plain indices.
 */
import { inject, injectable } from 'inversify';
import { EsError, Errors } from '@strata/core-common';
import {
  EngineTokens,
  TemplateSections,
  findV2Template,
  templateSection,
  type IndexRequest,
  type IndexRequestContext,
  type IndexRequestInterceptor,
  type InterceptResult,
  type ClusterMetadata,
  type MetadataIndexService,
  type MetadataStore,
} from '@strata/core-engine';
import { isObj } from '../util.js';
import { dataStreams, parentDataStream, writeIndexOf, type DataStreamMetadata } from './data-stream-metadata.js';
import { DataStreamService } from './data-stream-service.js';
import { RolloverService } from '../rollover/rollover-service.js';

function fail(error: EsError): InterceptResult {
  return { kind: 'fail', error };
}

@injectable()
export class DataStreamIndexInterceptor implements IndexRequestInterceptor {
  readonly name = 'data-streams';
  readonly order = 200;

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(DataStreamService) private readonly streams: DataStreamService,
    @inject(RolloverService) private readonly rollovers: RolloverService,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
  ) {}

  /** synchronous unless something has to be created or rolled over first */
  intercept(req: IndexRequest, ctx: IndexRequestContext): InterceptResult | Promise<InterceptResult> {
    const md = this.store.current();
    const ds = dataStreams(md)[req.index];
    if (ds) return this.streamWrite(req, ds);
    if (md.indices[req.index]) {
      const parent = parentDataStream(md, req.index);
      if (parent) return this.backingIndexWrite(req, parent.name);
      if (req.requireDataStream) return fail(this.notADataStream(req.index));
      return { kind: 'continue', request: req };
    }
    if (ctx.exists(req.index)) {
      if (req.requireDataStream) return fail(this.notADataStream(req.index));
      return { kind: 'continue', request: req };
    }
    return this.missingTarget(req, md);
  }

  /** a target that does not exist: a data stream or an index made from the matching template, or a refusal */
  private async missingTarget(req: IndexRequest, md: ClusterMetadata): Promise<InterceptResult> {
    const tname = findV2Template(md, req.index, false);
    const tpl = tname ? templateSection(md, TemplateSections.INDEX)[tname] : undefined;
    if (tpl && tpl['allow_auto_create'] === false) {
      return fail(
        new EsError('index_not_found_exception', 404, `no such index [${req.index}] and composable template [${tname}] forbids index auto creation`, {
          metadata: { 'resource.type': 'index_expression', 'resource.id': req.index, index_uuid: '_na_', index: req.index },
        }),
      );
    }
    if (!tpl || !isObj(tpl['data_stream'])) {
      if (req.requireDataStream) return fail(this.notADataStream(req.index));
      if (tpl && tpl['allow_auto_create'] === true) await this.createIndex(req.index);
      return { kind: 'continue', request: req };
    }
    await this.streams.autoCreate(req.index);
    const ds = dataStreams(this.store.current())[req.index];
    if (!ds) return fail(Errors.indexNotFound(req.index));
    return this.streamWrite(req, ds);
  }

  /** a write to data stream `ds`: checked, then pointed at its write index (rolled over first when asked) */
  private streamWrite(req: IndexRequest, ds: DataStreamMetadata): InterceptResult | Promise<InterceptResult> {
    if (req.opType !== 'create') return fail(Errors.illegalArgument('only write ops with an op_type of create are allowed in data streams'));
    // the `@timestamp` of the document is checked by the backing index's mapping (`_data_stream_timestamp`) as
    // the document is parsed: the source is not read here (a parse thread may have packed it)
    if (req.routing !== undefined && req.routing !== null && !ds.allow_custom_routing) {
      return fail(
        Errors.illegalArgument(
          `index request targeting data stream [${ds.name}] specifies a custom routing but the [allow_custom_routing] setting was not enabled in the data stream's template.`,
        ),
      );
    }
    if (ds.rollover_on_write) return this.rolloverThenWrite(req, ds);
    // the same request object, pointed at the write index (its source bytes are kept as sent)
    req.index = writeIndexOf(ds);
    return { kind: 'continue', request: req };
  }

  private async rolloverThenWrite(req: IndexRequest, ds: DataStreamMetadata): Promise<InterceptResult> {
    await this.rollovers.rollover({ target: ds.name });
    req.index = writeIndexOf(dataStreams(this.store.current())[ds.name] ?? ds);
    return { kind: 'continue', request: req };
  }

  private backingIndexWrite(req: IndexRequest, stream: string): InterceptResult {
    if (req.opType === 'create') {
      return fail(Errors.illegalArgument(`index request with op_type=create targeting backing indices is disallowed, target corresponding data stream [${stream}] instead`));
    }
    if (req.ifSeqNo === undefined || req.ifPrimaryTerm === undefined) {
      return fail(
        Errors.illegalArgument(
          `index request with op_type=index and no if_primary_term and if_seq_no set targeting backing indices is disallowed, target corresponding data stream [${stream}] instead`,
        ),
      );
    }
    return { kind: 'continue', request: req };
  }

  private notADataStream(name: string): EsError {
    return new EsError('index_not_found_exception', 404, `no such index [${name}] and [require_data_stream] request flag is [true] and [${name}] is not a data stream`, {
      metadata: { 'resource.type': 'index_or_alias', 'resource.id': name, index_uuid: '_na_', index: name },
    });
  }

  private async createIndex(name: string): Promise<void> {
    try {
      await this.mis.createIndex(name, {}, 'auto(bulk api)');
    } catch (e) {
      if (!(e instanceof EsError && e.type === 'resource_already_exists_exception')) throw e;
    }
  }
}
