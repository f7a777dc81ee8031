import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard build (docs/ui.md): ui/ compiled into dist/ui, served by the server at `/`
 * (src/rest/ui-routes.ts). Hashed file names under assets/ so they can be cached forever; nothing
 * inlined as data: URLs or inline scripts, so the page runs under `default-src 'self'`.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: {
    // `npm run ui:dev`: the API of a server on the default port, the UI with hot reload.
    proxy: {
      '/graphql': { target: 'http://127.0.0.1:8000', ws: true },
      '/api': 'http://127.0.0.1:8000',
    },
  },
});
