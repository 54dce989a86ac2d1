module.exports = { displayName: '@strata/request-cache', preset: '../../jest.preset.js' };
