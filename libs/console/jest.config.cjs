module.exports = { displayName: '@strata/console', preset: '../../jest.preset.js' };
