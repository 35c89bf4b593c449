// Builds the dashboard into web/dist (npm run build:web). Relative asset URLs (base './') let the
// same build work at / on port 8080 and at /apis/api.rehearsal.dev/v1/dashboard/ behind the
// Kubernetes API aggregation layer. Assets are flat (no assets/ folder) and named app-*: behind
// kube-apiserver, /dashboard/<file> is "get dashboard <file>" for RBAC, a deeper path would be a
// subresource RBAC cannot grant by pattern; the server caches app-* for a year (names are hashed).
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: '',
    target: 'es2022',
    rollupOptions: {
      output: {
        entryFileNames: 'app-[hash].js',
        chunkFileNames: 'app-[name]-[hash].js',
        assetFileNames: 'app-[hash][extname]',
      },
    },
  },
});
