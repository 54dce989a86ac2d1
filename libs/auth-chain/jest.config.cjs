module.exports = { displayName: '@strata/auth-chain', preset: '../../jest.preset.js' };
