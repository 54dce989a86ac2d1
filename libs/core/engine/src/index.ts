export * from './lib/index/leaf-reader.js';
export * from './lib/util/small-float.js';
export * from './lib/mapper/parsed-document.js';
export * from './lib/mapper/mapped-field-type.js';
export * from './lib/analysis/analyzer.js';
export * from './lib/cluster/metadata.js';
export * from './lib/spi.js';
export * from './lib/services.js';
