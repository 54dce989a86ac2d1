export * from './user-regex.js';
export * from './lucene-regexp.js';
export * from './glob.js';
export { translateJavaRegex, type TranslatedPattern } from './java-syntax.js';
