import { nextWriteTurn } from './write-turns.js';

describe('nextWriteTurn', () => {
  it('resumes one waiting slice per turn of the event loop, in order, with other work between turns', async () => {
    const log: string[] = [];
    const writer = async (name: string, slices: number): Promise<void> => {
      for (let i = 0; i < slices; i++) {
        log.push(`${name}${i}`);
        await nextWriteTurn();
      }
    };
    // another request's work, due in the next turn: it runs after the slice of that turn, not after all of them
    const other = new Promise<void>((resolve) => setImmediate(() => setImmediate(() => (log.push('other'), resolve()))));
    await Promise.all([writer('a', 3), writer('b', 3), writer('c', 2), other]);
    expect(log).toEqual(['a0', 'b0', 'c0', 'a1', 'other', 'b1', 'c1', 'a2', 'b2']);
  });

  it('resolves at once in the next turn when nothing else waits', async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    await nextWriteTurn();
    expect(turned).toBe(true);
  });
});
