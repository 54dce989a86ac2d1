/**
 * Turns of the event loop for the long, sliced work of writes (a bulk's parsing and applying): such work runs a
 * slice (about a millisecond), then waits here for a later turn. One waiting slice resumes per turn, in the
 * order they came, and the loop polls for I/O between turns, so however many bulks run at once, a search that
 * arrives meanwhile is read and handled after at most one slice. Were every slice to wait on a setImmediate of
 * its own, all running bulks would take their slices, one after the other, before the loop polled again.
 */
/** how long (ms) a slice of a write's work runs before it waits for its next turn */
export const WRITE_SLICE_MS = 0.5;

const waiting: Array<() => void> = [];
let scheduled = false;

function resumeOne(): void {
  const next = waiting.shift();
  // an immediate set now runs in the next turn, after the poll for I/O
  if (waiting.length > 0) setImmediate(resumeOne);
  else scheduled = false;
  next?.();
}

/** resolves in a later turn of the event loop, after the slices that waited before it (one per turn) */
export function nextWriteTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(resumeOne);
    }
  });
}
