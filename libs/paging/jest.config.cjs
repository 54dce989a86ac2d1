module.exports = { displayName: '@strata/paging', preset: '../../jest.preset.js' };
