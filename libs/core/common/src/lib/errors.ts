/**
 * Elasticsearch-shaped errors. The `type` strings and HTTP statuses are the wire contract;
 * the renderer in core-http turns an EsError into
 * `{"error":{"root_cause":[...],"type":...,"reason":...,...metadata},"status":N}`.
 */
export interface EsErrorOptions {
  /** extra keys flattened into the error object, e.g. { index: 'logs', 'resource.type': 'index_or_alias' } */
  metadata?: Record<string, unknown>;
  cause?: EsError | Error;
  /** response headers; an array sends the header once per value (several `WWW-Authenticate` challenges) */
  headers?: Record<string, string | string[]>;
  /** overrides the computed root_cause list (search_phase_execution_exception uses the shard failures' causes) */
  rootCauses?: EsError[];
  /** extra top-level keys of the error object after reason (e.g. phase, grouped, failed_shards) */
  extra?: Record<string, unknown>;
  /**
   * this error stands for a plain Java exception (IllegalArgumentException, NumberFormatException, ...), not an
   * ElasticsearchException: an error caused by it is its own root cause (ES guessRootCauses stops above it).
   */
  plain?: boolean;
}

export class EsError extends Error {
  readonly type: string;
  readonly status: number;
  readonly reason: string;
  readonly metadata: Record<string, unknown>;
  readonly headers: Record<string, string | string[]>;
  readonly rootCauses?: EsError[];
  readonly extra: Record<string, unknown>;
  override readonly cause?: EsError | Error;
  /** see EsErrorOptions.plain */
  readonly plain: boolean;

  constructor(type: string, status: number, reason: string, options: EsErrorOptions = {}) {
    super(reason);
    this.name = 'EsError';
    this.type = type;
    this.status = status;
    this.reason = reason;
    this.metadata = options.metadata ?? {};
    this.headers = options.headers ?? {};
    this.rootCauses = options.rootCauses;
    this.extra = options.extra ?? {};
    this.cause = options.cause;
    this.plain = options.plain === true;
  }

  /** The error object without root_cause (used for causes and root causes). */
  toObject(): Record<string, unknown> {
    const o: Record<string, unknown> = { type: this.type, reason: this.reason, ...this.metadata, ...this.extra };
    if (this.cause) o['caused_by'] = errorToObject(this.cause);
    return o;
  }

  /**
   * Deepest causes, as Elasticsearch's guessRootCauses does: it only descends into causes that are
   * ElasticsearchExceptions, so a `plain` cause (a Java exception in ES) stops the descent above it.
   */
  guessRootCauses(): EsError[] {
    if (this.rootCauses) return this.rootCauses;
    if (this.cause instanceof EsError && !this.cause.plain) return this.cause.guessRootCauses();
    return [this];
  }

  toBody(): { error: Record<string, unknown>; status: number } {
    const roots = this.guessRootCauses().map((e) => {
      const o = { type: e.type, reason: e.reason, ...e.metadata };
      return o;
    });
    return { error: { root_cause: roots, ...this.toObject() }, status: this.status };
  }
}

export function errorToObject(err: unknown): Record<string, unknown> {
  if (err instanceof EsError) return err.toObject();
  if (err instanceof Error) return { type: 'exception', reason: err.message };
  return { type: 'exception', reason: String(err) };
}

/**
 * The same error marked as a plain Java exception cause (EsErrorOptions.plain): an EsError is copied with the
 * flag; any other Error becomes a plain illegal_argument_exception with its message.
 */
export function plainCause(err: Error): EsError {
  if (err instanceof EsError) {
    if (err.plain) return err;
    const c = new EsError(err.type, err.status, err.reason, {
      metadata: err.metadata,
      cause: err.cause,
      headers: err.headers,
      rootCauses: err.rootCauses,
      extra: err.extra,
      plain: true,
    });
    c.stack = err.stack;
    return c;
  }
  return new EsError('illegal_argument_exception', 400, err.message, { plain: true });
}

/** Wraps anything into an EsError (500 `exception` for non-EsErrors). */
export function toEsError(err: unknown): EsError {
  if (err instanceof EsError) return err;
  if (err instanceof Error) return new EsError('exception', 500, err.message || 'internal error');
  return new EsError('exception', 500, String(err));
}

// ---- the catalogue: one factory per Elasticsearch error type ----

export const Errors = {
  indexNotFound(index: string, resourceType = 'index_or_alias'): EsError {
    return new EsError('index_not_found_exception', 404, `no such index [${index}]`, {
      metadata: { 'resource.type': resourceType, 'resource.id': index, index_uuid: '_na_', index },
    });
  },
  resourceAlreadyExists(index: string, uuid?: string): EsError {
    return new EsError('resource_already_exists_exception', 400, `index [${index}/${uuid ?? '_na_'}] already exists`, {
      metadata: { index_uuid: uuid ?? '_na_', index },
    });
  },
  resourceNotFound(reason: string, metadata?: Record<string, unknown>): EsError {
    return new EsError('resource_not_found_exception', 404, reason, { metadata });
  },
  invalidIndexName(index: string, why: string): EsError {
    return new EsError('invalid_index_name_exception', 400, `Invalid index name [${index}], ${why}`, {
      metadata: { index_uuid: '_na_', index },
    });
  },
  illegalArgument(reason: string, cause?: EsError | Error): EsError {
    return new EsError('illegal_argument_exception', 400, reason, { cause });
  },
  illegalState(reason: string): EsError {
    return new EsError('illegal_state_exception', 500, reason);
  },
  parsing(reason: string, line?: number, col?: number): EsError {
    return new EsError('parsing_exception', 400, reason, { metadata: { line: line ?? 1, col: col ?? 1 } });
  },
  xContentParse(reason: string, line = 1, col = 1, cause?: EsError | Error): EsError {
    return new EsError('x_content_parse_exception', 400, `[${line}:${col}] ${reason}`, { cause });
  },
  actionRequestValidation(errors: string[]): EsError {
    // ActionRequestValidationException.getMessage: "1: a;2: b;" (no space between the entries)
    const list = errors.map((e, i) => `${i + 1}: ${e};`).join('');
    return new EsError('action_request_validation_exception', 400, `Validation Failed: ${list}`);
  },
  mapperParsing(reason: string, cause?: EsError | Error): EsError {
    return new EsError('mapper_parsing_exception', 400, reason, { cause });
  },
  documentParsing(reason: string, cause?: EsError | Error): EsError {
    return new EsError('document_parsing_exception', 400, reason, { cause });
  },
  strictDynamicMapping(reason: string): EsError {
    return new EsError('strict_dynamic_mapping_exception', 400, reason);
  },
  versionConflict(index: string, id: string, reason: string, shard = 0, uuid = '_na_'): EsError {
    return new EsError('version_conflict_engine_exception', 409, `[${id}]: ${reason}`, {
      metadata: { index_uuid: uuid, shard: String(shard), index },
    });
  },
  documentMissing(index: string, id: string, shard = 0, uuid = '_na_'): EsError {
    return new EsError('document_missing_exception', 404, `[${id}]: document missing`, {
      metadata: { index_uuid: uuid, shard: String(shard), index },
    });
  },
  queryShard(reason: string, index?: string, cause?: EsError | Error, uuid = '_na_'): EsError {
    return new EsError('query_shard_exception', 400, reason, {
      metadata: index ? { index_uuid: uuid, index } : {},
      cause,
    });
  },
  searchContextMissing(reason: string): EsError {
    return new EsError('search_context_missing_exception', 404, reason);
  },
  /**
   * `security_exception`. A 401 carries its WWW-Authenticate challenges both as response headers and,
   * as Elasticsearch renders them, under `header` in the error body.
   */
  security(reason: string, status = 401, headers?: Record<string, string | string[]>, metadata: Record<string, unknown> = {}): EsError {
    const md = headers && Object.keys(headers).length > 0 ? { ...metadata, header: headers } : metadata;
    return new EsError('security_exception', status, reason, { headers, metadata: md });
  },
  verification(reason: string): EsError {
    return new EsError('verification_exception', 400, reason);
  },
  unsupportedOperation(reason: string): EsError {
    return new EsError('unsupported_operation_exception', 500, reason);
  },
  settingsException(reason: string): EsError {
    return new EsError('settings_exception', 400, reason);
  },
  /** ES NoShardAvailableActionException (503): reads of a shard that has no started copy */
  noShardAvailable(reason: string, index?: string, shard?: number, uuid = '_na_'): EsError {
    const metadata = index === undefined ? undefined : { index_uuid: uuid, shard: String(shard ?? 0), index };
    return new EsError('no_shard_available_action_exception', 503, reason, { metadata });
  },
  /** ES UnavailableShardsException (503): writes to a shard whose primary is not active */
  unavailableShards(index: string, shard: number, request: string, uuid = '_na_'): EsError {
    return new EsError('unavailable_shards_exception', 503, `[${index}][${shard}] primary shard is not active Timeout: [1m], request: [${request}]`, {
      metadata: { index_uuid: uuid, shard: String(shard), index },
    });
  },
  indexClosed(index: string, uuid = '_na_'): EsError {
    return new EsError('index_closed_exception', 400, 'closed', { metadata: { index_uuid: uuid, index } });
  },
  mediaType(reason: string): EsError {
    return new EsError('media_type_header_exception', 400, reason);
  },
  contentTooLong(reason: string): EsError {
    return new EsError('content_too_long_exception', 413, reason);
  },
  tooManyRequests(reason: string): EsError {
    return new EsError('es_rejected_execution_exception', 429, reason);
  },
  noRoute(method: string, uri: string): EsError {
    return new EsError(
      'illegal_argument_exception',
      400,
      `no handler found for uri [${uri}] and method [${method}]`,
    );
  },
  methodNotAllowed(method: string, uri: string, allowed: string[]): EsError {
    return new EsError(
      'illegal_argument_exception',
      405,
      `Incorrect HTTP method for uri [${uri}] and method [${method}], allowed: [${allowed.join(', ')}]`,
      { headers: { Allow: allowed.join(',') } },
    );
  },
};
