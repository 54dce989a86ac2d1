/** Action names of the ingest routes (matched by authorization patterns such as `cluster:admin/ingest/pipeline/*`). */
export const IngestActions = {
  PUT_PIPELINE: 'cluster:admin/ingest/pipeline/put',
  GET_PIPELINE: 'cluster:admin/ingest/pipeline/get',
  DELETE_PIPELINE: 'cluster:admin/ingest/pipeline/delete',
  SIMULATE_PIPELINE: 'cluster:admin/ingest/pipeline/simulate',
  GET_GROK_PATTERNS: 'cluster:admin/ingest/processor/grok/get',
} as const;
