module.exports = { displayName: '@strata/core-engine', preset: '../../../jest.preset.js' };
