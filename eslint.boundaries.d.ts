// Types for eslint.boundaries.js, which test/deps/import-boundaries.test.ts imports.
import type { Linter } from 'eslint';

export const ADAPTERS: string[];
export const HTTP: string[];
export const BASE: string[];
export const STORE: string[];
export const SERVICES: string[];
export const boundaries: Linter.Config[];
