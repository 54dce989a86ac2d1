module.exports = { displayName: '@strata/example-ingest-eql-service', preset: '../../jest.preset.js' };
