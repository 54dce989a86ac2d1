import nx from '@nx/eslint-plugin';

const boundaries = (extraCoreDeps = []) => ({
  enforceBuildableLibDependency: false,
  allow: [],
  depConstraints: [
    { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
    { sourceTag: 'type:engine', onlyDependOnLibsWithTags: ['type:util'] },
    { sourceTag: 'type:http', onlyDependOnLibsWithTags: ['type:util'] },
    { sourceTag: 'type:core-api', onlyDependOnLibsWithTags: ['type:util', 'type:engine', 'type:http', ...extraCoreDeps] },
    { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:util', 'type:engine', 'type:http', 'type:core-api', ...extraCoreDeps] },
    {
      sourceTag: 'type:feature',
      onlyDependOnLibsWithTags: ['type:util', 'type:engine', 'type:http', 'type:core-api', 'type:testing'],
      notDependOnLibsWithTags: ['type:feature', 'type:app'],
    },
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:feature', 'type:core-api', 'type:http', 'type:engine', 'type:util', 'type:testing'] },
  ],
});

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/*.cjs', '**/*.mjs', '**/*.js'] },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': ['error', boundaries()],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': 'off',
    },
  },
];
