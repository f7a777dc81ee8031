import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate` writes reviewed SQL migrations into drizzle/; they run at start.
export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './src/store/schema.ts',
    './src/store/schema-health.ts',
    './src/store/schema-security.ts',
    './src/store/schema-scoring.ts',
    './src/store/schema-anomalies.ts',
    './src/store/schema-costs.ts',
    './src/store/schema-slos.ts',
    './src/store/schema-alerts.ts',
    './src/store/schema-prevention.ts',
  ],
  out: './drizzle',
});
