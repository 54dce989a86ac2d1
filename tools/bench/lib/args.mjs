// Tiny --flag parser: `spec` maps flag name -> default value; the type of the default decides parsing
// (number, boolean switch, string). `--no-x` turns a boolean off.
export function parseArgs(argv, spec, usage) {
  const out = { ...spec };
  for (let k = 0; k < argv.length; k++) {
    const raw = argv[k];
    if (raw === '--help' || raw === '-h') {
      console.log(usage);
      process.exit(0);
    }
    if (!raw.startsWith('--')) throw new Error(`unexpected argument ${raw}\n${usage}`);
    let name = raw.slice(2);
    let inline;
    const eq = name.indexOf('=');
    if (eq >= 0) { inline = name.slice(eq + 1); name = name.slice(0, eq); }
    const key = name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (key.startsWith('no') && typeof spec[key[2]?.toLowerCase() + key.slice(3)] === 'boolean') {
      out[key[2].toLowerCase() + key.slice(3)] = false;
      continue;
    }
    if (!(key in spec)) throw new Error(`unknown option --${name}\n${usage}`);
    const def = spec[key];
    if (typeof def === 'boolean') {
      out[key] = inline === undefined ? true : inline !== 'false';
      continue;
    }
    const v = inline ?? argv[++k];
    if (v === undefined) throw new Error(`--${name} needs a value`);
    if (typeof def === 'number' || (def === null && /^-?\d+(\.\d+)?$/.test(v))) {
      const n = Number(v.replace(/_/g, ''));
      if (Number.isNaN(n)) throw new Error(`--${name} needs a number, got ${v}`);
      out[key] = n;
    } else {
      out[key] = v;
    }
  }
  return out;
}
