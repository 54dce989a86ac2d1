module.exports = { displayName: '@strata/core-testing', preset: '../../../jest.preset.js' };
