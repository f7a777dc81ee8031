// rate-limiter-flexible's parts limiter.ts loads on first use. Loaded through this module, not with
// `import('rate-limiter-flexible')`: the bundle gives a dynamic import of a CommonJS package no
// named exports (docs/architecture.md#the-build), a static one here keeps them.
export { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
