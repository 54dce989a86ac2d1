module.exports = { displayName: '@strata/host', preset: '../../jest.preset.js' };
