module.exports = { displayName: '@strata/ingest', preset: '../../jest.preset.js' };
