import { defineConfig } from 'vite';
import { inpageLLM } from 'inpage-llm/vite';

// `models: true` ships the tiny generated models, so the app runs offline with no download.
export default defineConfig({ plugins: [inpageLLM({ models: true })] });
