/** Action names of the document APIs (used for authorization). */
export const DocumentActions = {
  INDEX: 'indices:data/write/index',
  DELETE: 'indices:data/write/delete',
  UPDATE: 'indices:data/write/update',
  BULK: 'indices:data/write/bulk',
  GET: 'indices:data/read/get',
  MGET: 'indices:data/read/mget',
  REFRESH: 'indices:admin/refresh',
  FLUSH: 'indices:admin/flush',
  FORCE_MERGE: 'indices:admin/forcemerge',
} as const;
