// Reads jest output (stdin) and prints one closing line: "N passed, N failed" (', N skipped' when any),
// summed over every project's "Tests:" line. Exits non-zero when nothing ran or anything failed.
let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => (text += d));
process.stdin.on('end', () => {
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const line of plain.split('\n')) {
    const m = /^Tests:\s+(.*)$/.exec(line.trim());
    if (!m) continue;
    const num = (word) => Number((new RegExp(`(\\d+) ${word}`).exec(m[1]) ?? [0, 0])[1]);
    passed += num('passed');
    failed += num('failed');
    skipped += num('skipped') + num('todo');
  }
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
});
