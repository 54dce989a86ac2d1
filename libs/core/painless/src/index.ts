export { compilePainless, parseScriptRef, PainlessScript, PainlessScriptService, type PainlessOptions, type ScriptServiceOptions, type StoredScriptSource } from './lib/painless.js';
export { HostMap, ScriptDocValues, PainlessDateTime, painlessEquals, str as painlessToString } from './lib/runtime.js';
export { PainlessRuntimeError, scriptMetadata } from './lib/errors.js';
