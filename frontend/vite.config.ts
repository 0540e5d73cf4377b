/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const backend = process.env.SWITCHBOARD_DEV_BACKEND ?? 'http://127.0.0.1:8080';

// The console is served by the Go binary under /user/ (with SPA fallback) from the embedded
// folder backend/web/dist. The Makefile clears old assets there before a build, so Vite must
// not empty the folder (it holds a committed .gitkeep).
export default defineConfig({
  base: '/user/',
  plugins: [react()],
  build: {
    outDir: '../backend/web/dist',
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: false,
    // Vite's default chunk size warning limit (500 kB) applies: every console page is a lazy
    // chunk, so the entry holds React, the router, the GraphQL client, the shell and sign-in.
    // `npm run size` fails when the entry exceeds it or initial JS exceeds 300 KB gzipped.
  },
  server: {
    proxy: {
      '/graphql': { target: backend, ws: true, changeOrigin: false },
      '/api': { target: backend, changeOrigin: false },
    },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: { modules: { classNameStrategy: 'non-scoped' } },
    // A form test that types into every field takes seconds of jsdom on two busy cores; the
    // default 5 s failed one under load. Tests assert behaviour, not speed.
    testTimeout: 15_000,
  },
});
