/**
 * The constraint engines `npx inpage-llm schemas check --engine NAME` can measure (the first is
 * the default): each implements `SchemaEngine` (schemas-check.ts). Another engine is plugged in
 * by adding it here.
 * @module
 */
import type { SchemaEngine } from './schemas-check.ts';
import { matcherEngine } from './schemas-check-matcher.ts';
import { xgrammarEngine } from './schemas-check-xgrammar.ts';

/** The schema matcher (what transformers.js models enforce JSON answers with), then xgrammar (web-llm's, and tool calls'). */
export const SCHEMA_ENGINES: readonly SchemaEngine[] = [matcherEngine, xgrammarEngine];
