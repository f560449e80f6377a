// Nest's webpack defaults plus what a command-line entry needs: a shebang and the executable bit.
// Nest loads this file with require(), so it stays CommonJS.
/* eslint-disable @typescript-eslint/no-require-imports */
const { chmodSync, existsSync } = require('node:fs');
const { join } = require('node:path');

module.exports = (options, webpack) => ({
  ...options,
  plugins: [
    ...options.plugins,
    new webpack.BannerPlugin({ banner: '#!/usr/bin/env node', raw: true, entryOnly: true }),
    {
      apply(compiler) {
        compiler.hooks.afterEmit.tap('MakeExecutable', (compilation) => {
          for (const chunk of compilation.chunks) {
            for (const file of chunk.files) {
              const path = join(compilation.outputOptions.path, file);
              if (file.endsWith('.js') && existsSync(path)) chmodSync(path, 0o755);
            }
          }
        });
      },
    },
  ],
});
