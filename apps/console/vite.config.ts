import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the API under /console/ (apps/api/src/console.ts): every asset URL starts there, and no
// script is inlined into index.html (the API's CSP allows scripts from 'self' only).
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, modulePreload: { polyfill: false }, assetsInlineLimit: 0 },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
