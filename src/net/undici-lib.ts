// undici's parts guarded-fetch.ts loads on first use. Loaded through this module, not with
// `import('undici')`: the bundle gives a dynamic import of a CommonJS package no named exports
// (docs/architecture.md#the-build), a static one here keeps them.
export { Agent, buildConnector, fetch } from 'undici';
