module.exports = { displayName: '@strata/core-http', preset: '../../../jest.preset.js' };
