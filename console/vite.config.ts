import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console is served by the gateway under /console from console/dist. Everything is bundled
// (no CDN, no inline script or style) so that a self-only Content-Security-Policy holds.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
});
