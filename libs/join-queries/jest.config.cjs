module.exports = { displayName: '@strata/join-queries', preset: '../../jest.preset.js' };
