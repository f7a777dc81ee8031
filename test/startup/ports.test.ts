import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/free-port.ts';

/** A port someone else holds (a local OpenTelemetry Collector on 4317) stops `serve` before anything starts. */
let dir: string;
let holders: Server[] = [];

function hold(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      holders.push(srv);
      const addr = srv.address();
      resolve(typeof addr === 'object' && addr ? addr.port : 0);
    });
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-ports-'));
});

afterAll(async () => {
  await Promise.all(holders.map((s) => new Promise((r) => s.close(r))));
  holders = [];
  rmSync(dir, { recursive: true, force: true });
});

describe('spyglass serve with a port already taken', () => {
  it('names SPYGLASS_GRPC_PORT, exits 1, and never opens the database or the HTTP port', async () => {
    const grpc = await hold();
    const http = await freePort();
    const dataDir = join(dir, 'grpc');
    const r = await runCli(['serve'], {
      SPYGLASS_PORT: String(http),
      SPYGLASS_GRPC_PORT: String(grpc),
      SPYGLASS_DATA_DIR: dataDir,
      SPYGLASS_LOG_LEVEL: 'info',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`spyglass: OTLP/gRPC port 127.0.0.1:${grpc} is already in use`);
    expect(r.stderr).toContain('set SPYGLASS_GRPC_PORT to a free port');
    expect(r.stderr).not.toMatch(/No address added|listening|storage ready/);
    expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
  });

  it('reports both ports at once when both are taken', async () => {
    const [http, grpc] = [await hold(), await hold()];
    const r = await runCli(['serve'], {
      SPYGLASS_PORT: String(http),
      SPYGLASS_GRPC_PORT: String(grpc),
      SPYGLASS_DATA_DIR: join(dir, 'both'),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `HTTP port 127.0.0.1:${http} is already in use; set SPYGLASS_PORT to a free port`,
    );
    expect(r.stderr).toContain(`OTLP/gRPC port 127.0.0.1:${grpc} is already in use`);
  });
});
