export { compilePainless, parseScriptRef, PainlessScript, PainlessScriptService, type PainlessOptions, type ScriptServiceOptions, type StoredScriptSource } from './lib/painless.js';
export { HostMap, JDouble, dbl as boxDouble, unbox, ScriptDocValues, PainlessDateTime, painlessEquals, str as painlessToString, toJsonValue } from './lib/runtime.js';
export { PainlessRuntimeError, scriptMetadata } from './lib/errors.js';
