// The web UI: built into web/dist, which the service serves under its context path. Assets are
// referenced relative to the page's <base>, which the service sets, so one build serves any path.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: 'dist',
    assetsDir: 'static',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 800,
    target: 'es2022',
    rollupOptions: {
      // react-router marks itself "use client" (for server components, which this app does not use).
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  logLevel: 'warn',
});
