/**
 * Node flags of the Spyglass processes that tests start (`spyglass serve`, CLI commands, the
 * first-start initdb): `--liftoff-only` keeps PGlite's WebAssembly on V8's baseline compiler
 * (Liftoff) instead of recompiling its hot functions with the optimising one (TurboFan) on
 * background threads. A test process lives seconds, too short for the optimised code to pay back
 * its compilation: a `spyglass serve` start took 0.4-1.0 s less CPU to ready, a CLI command that
 * opens a data directory about 1 s less, and a first start without a template (initdb and every
 * migration) 2.9 s less (docs/benchmarks.md#test-suite-cpu-2026-11-27-2215-0015-utc). The code
 * runs the same; only V8's choice of compiler differs. The server users run keeps V8's defaults.
 * SPYGLASS_TEST_CHILD_TIER_UP=1 gives the children V8's defaults (for before/after pairs).
 */
export const CHILD_NODE_FLAGS: readonly string[] =
  process.env.SPYGLASS_TEST_CHILD_TIER_UP === '1' ? [] : ['--liftoff-only'];
