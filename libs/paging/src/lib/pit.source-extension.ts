import { Errors, parseTimeValue } from '@strata/core-common';
import type { SearchSourceExtension } from '@strata/core-engine';
import type { PitSpec } from './paging.service.js';

/** Parses the `pit` section of a search body: `{ "id": "...", "keep_alive": "1m" }`. */
export const pitSourceExtension: SearchSourceExtension = {
  key: 'pit',
  parse(json: unknown): PitSpec {
    if (!json || typeof json !== 'object' || Array.isArray(json)) {
      throw Errors.parsing('[pit] failed to parse object: expected START_OBJECT');
    }
    const o = json as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (k !== 'id' && k !== 'keep_alive') throw Errors.xContentParse(`[pit] unknown field [${k}]`);
    }
    if (typeof o['id'] !== 'string' || o['id'].length === 0) {
      throw Errors.xContentParse('[pit] failed to parse field [id]: [id] must be a non-empty string');
    }
    const spec: PitSpec = { id: o['id'] };
    if (o['keep_alive'] !== undefined) {
      if (typeof o['keep_alive'] !== 'string') throw Errors.xContentParse('[pit] failed to parse field [keep_alive]');
      parseTimeValue(o['keep_alive'], 'keep_alive');
      spec.keepAlive = o['keep_alive'];
    }
    return spec;
  },
};
