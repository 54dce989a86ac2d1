module.exports = { displayName: '@strata/core-api', preset: '../../../jest.preset.js' };
