/**
 * A parse thread's string table (packed-documents.ts `StringTable`): its strings numbered from 0 per generation,
 * and a new generation, empty, once it is full or its event-loop copy was lost.
 */
import { StringTable } from './packed-documents.js';

describe('StringTable', () => {
  it('starts a new generation (empty) when full, and numbers from 0 again', () => {
    const t = new StringTable(3, 5, 1000);
    const ids = ['a', 'b', 'c', 'd', 'e'].map((s) => t.id(s));
    expect(ids).toEqual([0, 1, 2, 3, 4]);
    expect(t.id('c')).toBe(2);
    expect(t.since(3)).toEqual(['d', 'e']);
    t.startChunk();
    expect(t.generation).toBe(1);
    expect(t.size).toBe(0);
    expect([t.id('e'), t.id('a'), t.id('e')]).toEqual([0, 1, 0]);
    t.startChunk(true);
    expect(t.generation).toBe(2);
    expect([t.id('a'), t.id('z')]).toEqual([0, 1]);
  });

  it('starts a new generation when its strings reach the character limit', () => {
    const t = new StringTable(4, 1000, 10);
    t.id('abcdef');
    t.startChunk();
    expect(t.generation).toBe(0);
    t.id('ghijk');
    t.id('abcdef');
    t.startChunk();
    expect([t.generation, t.size]).toEqual([1, 0]);
  });
});
