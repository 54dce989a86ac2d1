import { EsError } from './errors.js';
import { DEFAULT_INDICES_OPTIONS, indicesOptionsFromParams, indicesOptionsOf, parseExpandWildcards } from './indices-options.js';
import { RequestContexts, type RequestContext } from './request-context.js';

function caught(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('did not throw');
}

const req = (params: Record<string, string>) => ({ param: (n: string) => params[n] });

describe('parseExpandWildcards', () => {
  it('starts from no state and adds open / closed / hidden / all; undefined keeps the base', () => {
    expect(parseExpandWildcards('open,hidden')).toEqual({ open: true, closed: false, hidden: true });
    expect(parseExpandWildcards(['closed'])).toEqual({ open: false, closed: true, hidden: false });
    expect(parseExpandWildcards('all')).toEqual({ open: true, closed: true, hidden: true });
    expect(parseExpandWildcards('')).toEqual({ open: false, closed: false, hidden: false });
    expect(parseExpandWildcards(undefined, { open: false, closed: true, hidden: true })).toEqual({ open: false, closed: true, hidden: true });
  });

  it('none clears the states listed before it (ES), with a deprecation warning when combined', () => {
    const ctx = { id: '1', method: 'GET', url: '/', startedAt: 0, warnings: [] } as RequestContext;
    RequestContexts.run(ctx, () => {
      expect(parseExpandWildcards('none')).toEqual({ open: false, closed: false, hidden: false });
      expect(ctx.warnings).toEqual([]);
      expect(parseExpandWildcards('all,none')).toEqual({ open: false, closed: false, hidden: false });
      expect(parseExpandWildcards('none,open')).toEqual({ open: true, closed: false, hidden: false });
    });
    expect(ctx.warnings).toEqual([
      "Combining the value 'none' with other options is deprecated because it is order sensitive. Please revise the expression to work without the 'none' option or only use 'none'.",
    ]);
  });

  it('refuses an unknown state with ES message', () => {
    const e = caught(() => parseExpandWildcards('open,foo'));
    expect([e.type, e.status, e.reason]).toEqual(['illegal_argument_exception', 400, 'No valid expand wildcard value [foo]']);
  });
});

describe('indicesOptionsFromParams', () => {
  it('reads the three options over the defaults; blank booleans keep the default', () => {
    expect(indicesOptionsOf(req({}))).toEqual(DEFAULT_INDICES_OPTIONS);
    expect(indicesOptionsOf(req({ ignore_unavailable: 'true', allow_no_indices: 'false', expand_wildcards: 'closed' }))).toEqual({
      ignoreUnavailable: true,
      allowNoIndices: false,
      expandWildcards: { open: false, closed: true, hidden: false },
    });
    expect(indicesOptionsOf(req({ ignore_unavailable: '', allow_no_indices: '' }), { ignoreUnavailable: true, allowNoIndices: false })).toMatchObject({
      ignoreUnavailable: true,
      allowNoIndices: false,
    });
  });

  it('accepts body values (booleans, arrays), as IndicesOptions.fromMap', () => {
    const body: Record<string, unknown> = { ignore_unavailable: true, expand_wildcards: ['open', 'hidden'] };
    expect(indicesOptionsFromParams((n) => body[n])).toEqual({ ignoreUnavailable: true, allowNoIndices: true, expandWildcards: { open: true, closed: false, hidden: true } });
  });

  it('refuses a bad boolean as "Could not convert [name] to boolean" caused by the parse failure', () => {
    for (const name of ['ignore_unavailable', 'allow_no_indices', 'ignore_throttled']) {
      const e = caught(() => indicesOptionsOf(req({ [name]: 'abc' })));
      expect([e.type, e.reason]).toEqual(['illegal_argument_exception', `Could not convert [${name}] to boolean`]);
      expect((e.cause as EsError).reason).toBe('Failed to parse value [abc] as only [true] or [false] are allowed.');
    }
  });
});
