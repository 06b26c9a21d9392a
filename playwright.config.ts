import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/chromium.ts';

// Overridable so that two test runs on one machine do not share a server or a build folder.
const port = Number(process.env.E2E_PORT ?? 4173);
const outDir = process.env.E2E_DIST ?? 'build';

export default defineConfig({
  testDir: 'e2e',
  timeout: 180_000,
  expect: { timeout: 60_000 },
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  outputDir: process.env.E2E_RESULTS ?? 'test-results',
  use: {
    baseURL: `http://localhost:${port}`,
    trace: 'retain-on-failure',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  webServer: {
    command: `npm run assets && npx vite build --mode e2e --outDir ${outDir} && npx vite preview --outDir ${outDir} --port ${port} --strictPort`,
    url: `http://localhost:${port}/`,
    timeout: 300_000,
    reuseExistingServer: !process.env.CI,
  },
});
