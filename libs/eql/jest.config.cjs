module.exports = { displayName: '@strata/eql', preset: '../../jest.preset.js' };
