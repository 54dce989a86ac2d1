import { copyWithSize, deepCopy, NotCopyableError } from './deep-copy.js';

class Bucket {
  constructor(public key: string, public count: number) {}
  double(): number {
    return this.count * 2;
  }
}

describe('deepCopy', () => {
  it('copies nested data and keeps prototypes', () => {
    const src = { b: [new Bucket('a', 2)], t: new Float64Array([1.5, 2]), d: new Date(5), s: new Set([1]), n: null, u: undefined, big: 3n };
    const c = deepCopy(src);
    expect(c).toEqual(src);
    expect(c.b[0]).toBeInstanceOf(Bucket);
    expect(c.b[0].double()).toBe(4);
    expect(c.b[0]).not.toBe(src.b[0]);
    expect(c.t).not.toBe(src.t);
    c.t[0] = 9;
    expect(src.t[0]).toBe(1.5);
    expect(c.t).toBeInstanceOf(Float64Array);
    expect('u' in c).toBe(true);
  });
  it('keeps shared references and cycles', () => {
    const shared = { x: 1 };
    const src: Record<string, unknown> = { a: shared, b: shared };
    src['self'] = src;
    const c = deepCopy(src);
    expect(c['a']).toBe(c['b']);
    expect(c['self']).toBe(c);
  });
  it('estimates bytes (typed arrays by byteLength, strings by length)', () => {
    expect(copyWithSize(new Uint8Array(1000)).bytes).toBe(32 + 1000);
    expect(copyWithSize('abc').bytes).toBe(16 + 6);
    expect(copyWithSize({ ab: 1 }).bytes).toBe(32 + 16 + 4 + 8);
  });
  it('rejects functions and promises', () => {
    expect(() => deepCopy({ f: () => 1 })).toThrow(NotCopyableError);
    expect(() => deepCopy({ p: Promise.resolve(1) })).toThrow(NotCopyableError);
  });
});
