/**
 * The `strata` command (package.json `bin`): start a node, load a file into an index, check a node's
 * health, manage service tokens. Bundled into apps/host/dist/strata.cjs beside the service.
 */
import { join } from 'node:path';
import * as auth from '@strata/auth-chain';
import { CliError, NodeClient, connectionFrom, errorText, unreachable } from './connection.js';
import { load } from './load.js';
import { loadConfig } from '../app/config.js';
import { runVerify } from '../verify.js';

const HELP = `Usage: strata <command> [options]

Commands:
  start [-E key=value ...]          start a node (what \`npm start\` runs); settings as for the service
  load <file> --index <name>        bulk-load a file: .ndjson/.jsonl (one document per line, or _bulk
                                    action/document pairs), .json (an array of documents) or .csv
       [--pipeline <id>] [--batch <docs per request, 5000>] [--concurrency <requests in flight, 2>]
       [--id-field <field>] [--resume | --restart] [--no-progress]
  health                            the cluster health; exit 0 for green or yellow, 1 for red
       [--json]
  verify [path]                     check the files of a stopped node's data path (default ./data), an
                                    index or a shard directory: commit points, segment headers, format
                                    versions, footers and checksums; exit 0 intact, 1 corrupt, 2 none found
  service-tokens <create|list|delete> ...
                                    manage service account tokens (the auth library's tool)

Connecting (load, health): --url <url> (ES_URL, default http://127.0.0.1:9200),
  --user <name> --password <pw> (ELASTIC_PASSWORD, for the user elastic), or --api-key <key> (ES_API_KEY;
  the encoded key, or id:key).
`;

const BOOLEAN_FLAGS = new Set(['resume', 'restart', 'no-progress', 'json', 'help', 'progress']);

export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | boolean | undefined>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string | boolean | undefined> = {};
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k]!;
    if (a === '-h') flags['help'] = true;
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) flags[name] = a.slice(eq + 1);
      else if (BOOLEAN_FLAGS.has(name)) flags[name] = true;
      else {
        if (k + 1 >= argv.length) throw new CliError(`--${name} needs a value`, 64);
        flags[name] = argv[++k]!;
      }
    } else positional.push(a);
  }
  return { positional, flags };
}

function intFlag(flags: ParsedArgs['flags'], name: string, dflt: number): number {
  const v = flags[name];
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`--${name} must be a positive integer, got [${String(v)}]`, 64);
  return n;
}

async function health(args: ParsedArgs, out: NodeJS.WritableStream): Promise<number> {
  const conn = connectionFrom(args.flags);
  const client = new NodeClient(conn, 1);
  try {
    let r;
    try {
      r = await client.json('GET', '/_cluster/health');
    } catch (e) {
      throw unreachable(conn, e);
    }
    if (r.status !== 200) throw new CliError(`${conn.url}: ${r.status} ${errorText(r.body)}`, r.status === 401 || r.status === 403 ? 77 : 1);
    const h = r.body;
    if (args.flags['json']) out.write(JSON.stringify(h) + '\n');
    else {
      out.write(
        `${h.status}  cluster [${h.cluster_name}] at ${conn.url}: ${h.number_of_nodes} node(s), ${h.active_primary_shards} primary shard(s), ` +
          `${h.unassigned_shards} unassigned, ${h.active_shards_percent_as_number}% active\n`,
      );
    }
    return h.status === 'red' ? 1 : 0;
  } finally {
    client.close();
  }
}

/** The host's main, in this process (V8 flags come from the command line that started it). */
function start(argv: string[]): void {
  process.argv = [process.argv[0]!, join(__dirname, 'main.cjs'), ...argv];
  // a runtime path: the service bundle sits beside this one and is not bundled into it
  const main = join(__dirname, 'main.cjs');
  require(main);
}

export async function run(argv: string[], io = { out: process.stdout, err: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.out.write(HELP);
    return command ? 0 : 64;
  }
  switch (command) {
    case 'start':
      start(rest);
      return -1;
    case 'load': {
      const args = parseArgs(rest);
      if (args.flags['help']) {
        io.out.write(HELP);
        return 0;
      }
      if (args.positional.length !== 1) throw new CliError('usage: strata load <file> --index <name> [options]', 64);
      if (typeof args.flags['index'] !== 'string') throw new CliError('--index is required', 64);
      const res = await load(connectionFrom(args.flags), {
        file: args.positional[0]!,
        index: args.flags['index'],
        pipeline: typeof args.flags['pipeline'] === 'string' ? args.flags['pipeline'] : undefined,
        batch: intFlag(args.flags, 'batch', 5000),
        concurrency: intFlag(args.flags, 'concurrency', 2),
        resume: args.flags['resume'] === true,
        restart: args.flags['restart'] === true,
        idField: typeof args.flags['id-field'] === 'string' ? args.flags['id-field'] : undefined,
        stateFile: typeof args.flags['state-file'] === 'string' ? args.flags['state-file'] : undefined,
        failuresFile: typeof args.flags['failures-file'] === 'string' ? args.flags['failures-file'] : undefined,
        progress: args.flags['no-progress'] !== true,
        out: io.out,
        err: io.err,
      });
      return res.failed > 0 ? 2 : 0;
    }
    case 'health':
      return health(parseArgs(rest), io.out);
    case 'verify':
      return runVerify(rest);
    case 'service-tokens':
      return serviceTokens(rest, io);
    default:
      throw new CliError(`unknown command [${command}]; try strata help`, 64);
  }
}

/**
 * `strata service-tokens create|list|delete`: the auth library's tool for the file-backed service account
 * tokens (`service_tokens` in the configuration directory: `$STRATA_PATH_CONF`, else `./config`).
 */
async function serviceTokens(argv: string[], io: { out: NodeJS.WritableStream; err: NodeJS.WritableStream }): Promise<number> {
  const config = await loadConfig([]);
  const hashing = config.settings['xpack.security.authc.service_token_hashing.algorithm'];
  return auth.runServiceTokensCli(argv, {
    configDir: config.configDir,
    hashing: hashing === undefined ? undefined : String(hashing),
    out: (line) => io.out.write(line + '\n'),
    err: (line) => io.err.write(line + '\n'),
  });
}

export function main(): void {
  run(process.argv.slice(2)).then(
    (code) => {
      if (code >= 0) process.exitCode = code;
    },
    (e: unknown) => {
      if (e instanceof CliError) {
        process.stderr.write(`strata: ${e.message}\n`);
        process.exitCode = e.exitCode;
      } else {
        process.stderr.write(`strata: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
        process.exitCode = 1;
      }
    },
  );
}
