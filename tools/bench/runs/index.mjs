// The table of named run groups, in execution order. Each group: { name, createTruth?(gen), runs: [...] }.
import auth from './auth.mjs';
import cache from './cache.mjs';
import eql from './eql.mjs';
import indexing from './indexing.mjs';
import ingest from './ingest.mjs';
import join from './join.mjs';
import nested from './nested.mjs';
import paging from './paging.mjs';
import queries from './queries.mjs';
import scripts from './scripts.mjs';
import throughput from './throughput.mjs';

export const GROUPS = [queries, scripts, paging, cache, throughput, indexing, ingest, nested, join, auth, eql];
