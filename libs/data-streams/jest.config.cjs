module.exports = { displayName: '@strata/data-streams', preset: '../../jest.preset.js' };
