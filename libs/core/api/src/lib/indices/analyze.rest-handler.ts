/**
 * `GET|POST /_analyze` and `/{index}/_analyze`.
 */
import { inject, injectable } from 'inversify';
import { Errors, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import {
  DefaultAnalysisRegistry,
  EngineTokens,
  type Analyzer,
  type AnalysisRegistry,
  type IndexNameExpressionResolver,
  type MapperService,
  type MetadataStore,
} from '@strata/core-engine';
import { IndicesActions as A } from './indices-support.js';

const FIELDS = new Set(['text', 'analyzer', 'tokenizer', 'filter', 'token_filters', 'char_filter', 'char_filters', 'field', 'normalizer', 'explain', 'attributes']);

@injectable()
export class AnalyzeRestHandler implements RestHandler {
  readonly name = 'analyze_action';
  readonly routes = [
    route('GET', '/_analyze', A.ANALYZE),
    route('POST', '/_analyze', A.ANALYZE),
    route('GET', '/{index}/_analyze', A.ANALYZE),
    route('POST', '/{index}/_analyze', A.ANALYZE),
  ];
  readonly params = ['index'];

  constructor(
    @inject(EngineTokens.AnalysisRegistry) private readonly analysis: AnalysisRegistry,
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MapperService) private readonly mappers: MapperService,
  ) {}

  handle(req: RestRequest): RestResponse {
    const body = req.objectBody(false) ?? {};
    for (const k of Object.keys(body)) {
      if (!FIELDS.has(k)) throw Errors.xContentParse(`[analyze_request] unknown field [${k}]`);
    }
    const textRaw = body['text'];
    const texts = textRaw === undefined || textRaw === null ? [] : Array.isArray(textRaw) ? textRaw.map(String) : [String(textRaw)];
    if (texts.length === 0) throw Errors.actionRequestValidation(['text is missing']);
    const indexName = req.optionalPathParam('index') ?? req.param('index');
    let settings: Record<string, unknown> | undefined;
    let im;
    if (indexName) {
      const names = this.resolver.concreteIndices(indexName, { ignoreUnavailable: false, allowNoIndices: false, expandWildcards: { open: true, closed: false, hidden: false } });
      im = this.store.current().indices[names[0]];
      if (!im) throw Errors.indexNotFound(indexName);
      settings = im.settings;
    }
    const filters = (body['filter'] ?? body['token_filters']) as unknown;
    const charFilters = (body['char_filter'] ?? body['char_filters']) as unknown;
    const hasCustom = body['tokenizer'] !== undefined || filters !== undefined || charFilters !== undefined;
    let analyzer: Analyzer;
    if (body['field'] !== undefined && body['analyzer'] === undefined && !hasCustom && body['normalizer'] === undefined) {
      if (!im) throw Errors.illegalArgument('analysis based on a specific field requires an index');
      const ft = this.mappers.fieldType(im, String(body['field']));
      analyzer = ft?.indexAnalyzer ?? this.analysis.analyzer('default', settings)!;
    } else {
      const reg = this.analysis as AnalysisRegistry & Partial<Pick<DefaultAnalysisRegistry, 'forAnalyzeRequest'>>;
      if (!reg.forAnalyzeRequest) {
        const a = this.analysis.analyzer(String(body['analyzer'] ?? 'standard'), settings);
        if (!a) throw Errors.illegalArgument(`failed to find global analyzer [${String(body['analyzer'])}]`);
        analyzer = a;
      } else {
        analyzer = reg.forAnalyzeRequest(
          {
            analyzer: body['analyzer'] === undefined ? undefined : String(body['analyzer']),
            tokenizer: body['tokenizer'],
            filter: filters === undefined ? undefined : Array.isArray(filters) ? filters : [filters],
            char_filter: charFilters === undefined ? undefined : Array.isArray(charFilters) ? charFilters : [charFilters],
            normalizer: body['normalizer'] === undefined ? undefined : String(body['normalizer']),
          },
          settings,
        );
      }
    }
    const tokens: Array<Record<string, unknown>> = [];
    let posBase = 0;
    let offBase = 0;
    let lastPos = -1;
    for (let i = 0; i < texts.length; i++) {
      const t = texts[i];
      if (i > 0) {
        posBase = lastPos + 1 + analyzer.positionIncrementGap;
        offBase += 1;
      }
      for (const tok of analyzer.analyze(t)) {
        const p = posBase + tok.position;
        tokens.push({ token: tok.term, start_offset: offBase + tok.startOffset, end_offset: offBase + tok.endOffset, type: tok.type, position: p });
        if (p > lastPos) lastPos = p;
      }
      if (lastPos < posBase) lastPos = posBase - 1;
      offBase += t.length;
    }
    if (body['explain'] === true || body['explain'] === 'true') {
      const detailed = tokens.map((t) => ({
        ...t,
        bytes: `[${[...Buffer.from(String(t['token']), 'utf8')].map((b) => b.toString(16).padStart(2, '0')).join(' ')}]`,
        positionLength: 1,
        termFrequency: 1,
      }));
      return RestResponses.ok({ detail: { custom_analyzer: hasCustom, analyzer: { name: hasCustom ? '_custom' : analyzer.name, tokens: detailed } } });
    }
    return RestResponses.ok({ tokens });
  }
}
