const nxPreset = require('@nx/jest/preset').default;

const swcTs = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  swcrc: false,
};

module.exports = {
  ...nxPreset,
  testEnvironment: 'node',
  transform: {
    '^.+\\.[cm]?ts$': ['@swc/jest', swcTs],
    '^.+\\.[cm]?js$': ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' }, swcrc: false }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  testMatch: ['**/?(*.)+(spec|test).ts'],
  testEnvironmentOptions: { customExportConditions: ['@strata/source', 'node', 'require', 'default'] },
  globalSetup: require.resolve('./tools/scripts/jest-merge-worker.js'),
  setupFiles: [require.resolve('./tools/scripts/jest-setup.js')],
};
