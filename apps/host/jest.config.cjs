module.exports = {
  displayName: '@strata/host',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/?(*.)+(spec|test).ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  testTimeout: 60000,
};
