#!/usr/bin/env bash
# Scaffolds a library: tools/scripts/new-lib.sh <dir> <package-name> <tags comma-separated>
set -euo pipefail
dir=$1; name=$2; tags=$3
depth=$(echo "$dir" | awk -F/ '{print NF}')
up=$(printf '../%.0s' $(seq 1 "$depth"))
mkdir -p "$dir/src/lib"
tagjson=$(echo "$tags" | awk -F, '{for(i=1;i<=NF;i++){printf "%s\"%s\"", (i>1?", ":""), $i}}')
cat > "$dir/package.json" <<JSON
{
  "name": "$name",
  "version": "0.1.0",
  "private": true,
  "type": "module",
  "main": "./src/index.ts",
  "types": "./src/index.ts",
  "exports": {
    ".": { "@strata/source": "./src/index.ts", "types": "./src/index.ts", "default": "./src/index.ts" },
    "./package.json": "./package.json"
  },
  "nx": { "tags": [$tagjson] }
}
JSON
cat > "$dir/jest.config.cjs" <<JS
module.exports = { displayName: '$name', preset: '${up}jest.preset.js' };
JS
cat > "$dir/eslint.config.mjs" <<JS
import baseConfig from '${up}eslint.config.mjs';
export default [...baseConfig];
JS
[ -f "$dir/src/index.ts" ] || echo "export {};" > "$dir/src/index.ts"
