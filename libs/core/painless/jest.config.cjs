module.exports = { displayName: '@strata/core-painless', preset: '../../../jest.preset.js' };
