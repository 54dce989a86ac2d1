import { EsError, Errors, plainCause } from './errors.js';

describe('EsError.guessRootCauses', () => {
  it('descends into ElasticsearchException causes', () => {
    const e = Errors.documentParsing('outer', Errors.mapperParsing('inner'));
    expect(e.toBody().error['root_cause']).toEqual([{ type: 'mapper_parsing_exception', reason: 'inner' }]);
  });
  it('stops above a plain (Java) cause, which stays in caused_by', () => {
    const e = Errors.documentParsing('outer', new EsError('illegal_argument_exception', 400, 'For input string: "x"', { plain: true }));
    const body = e.toBody();
    expect(body.error['root_cause']).toEqual([{ type: 'document_parsing_exception', reason: 'outer' }]);
    expect(body.error['caused_by']).toEqual({ type: 'illegal_argument_exception', reason: 'For input string: "x"' });
    expect(body.status).toBe(400);
  });
  it('a plain error at the top is still its own root cause', () => {
    const e = new EsError('illegal_argument_exception', 400, 'Cannot parse scroll id', { plain: true, cause: new EsError('illegal_argument_exception', 400, 'bad', { plain: true }) });
    expect(e.toBody().error['root_cause']).toEqual([{ type: 'illegal_argument_exception', reason: 'Cannot parse scroll id' }]);
  });
  it('plainCause copies an EsError with the flag, wraps other errors as illegal_argument_exception', () => {
    const orig = Errors.illegalArgument('x', Errors.parsing('y'));
    const p = plainCause(orig);
    expect([p.plain, orig.plain, p.type, p.reason, p.cause]).toEqual([true, false, 'illegal_argument_exception', 'x', orig.cause]);
    expect(plainCause(p)).toBe(p);
    const g = plainCause(new RangeError('boom'));
    expect([g.plain, g.type, g.status, g.reason]).toEqual([true, 'illegal_argument_exception', 400, 'boom']);
  });
});
