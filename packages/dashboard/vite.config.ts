import react from "@vitejs/plugin-react"
import { defineConfig } from "vite"

/**
 * The console is served by the server at /dashboard (same origin as the API, so the
 * session cookie and the CSRF rule apply unchanged); `npm run dev` proxies the API
 * to a server on PLATFORM_BASE_URL (default http://localhost:8080).
 */
const api = process.env.PLATFORM_BASE_URL ?? "http://localhost:8080"

export default defineConfig({
  base: "/dashboard/",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", sourcemap: false, chunkSizeWarningLimit: 400 },
  server: { proxy: { "/platform": { target: api, changeOrigin: false } } }
})
