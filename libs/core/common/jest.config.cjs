module.exports = { displayName: '@strata/core-common', preset: '../../../jest.preset.js' };
