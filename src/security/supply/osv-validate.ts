import { Ajv, type ValidateFunction } from 'ajv';
import type { OsvRecord } from './osv-types.ts';

/**
 * The shape CVE lookup relies on, checked once per record so a malformed advisory fails at load
 * with its file named, instead of deep inside a scan. Unknown fields are allowed (OSV grows).
 */
const stringArray = { type: 'array', items: { type: 'string' } };
const event = {
  type: 'object',
  minProperties: 1,
  properties: {
    introduced: { type: 'string' },
    fixed: { type: 'string' },
    last_affected: { type: 'string' },
    limit: { type: 'string' },
  },
  additionalProperties: true,
};
const schema = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string', minLength: 1 },
    aliases: stringArray,
    summary: { type: 'string' },
    details: { type: 'string' },
    withdrawn: { type: 'string' },
    severity: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'score'],
        properties: { type: { type: 'string' }, score: { type: 'string' } },
      },
    },
    affected: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          package: {
            type: 'object',
            required: ['ecosystem', 'name'],
            properties: { ecosystem: { type: 'string' }, name: { type: 'string' } },
          },
          ranges: {
            type: 'array',
            items: {
              type: 'object',
              required: ['type', 'events'],
              properties: { type: { type: 'string' }, events: { type: 'array', items: event } },
            },
          },
          versions: stringArray,
        },
      },
    },
    references: {
      type: 'array',
      items: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
    },
    database_specific: { type: 'object' },
  },
};

// Compiled when first needed (a scan or an advisory import), not while the server starts; the
// schema is ours, so it is not checked against the meta-schema.
let compiled: ValidateFunction<OsvRecord> | null = null;
const validator = () =>
  (compiled ??= new Ajv({ allErrors: false, validateSchema: false }).compile<OsvRecord>(schema));

/** The records in one parsed JSON document (one record or an array); throws naming `source`. */
export function toOsvRecords(doc: unknown, source: string): OsvRecord[] {
  const items = Array.isArray(doc) ? (doc as unknown[]) : [doc];
  return items.map((item, i) => {
    const validate = validator();
    if (!validate(item)) {
      const err = validate.errors?.[0];
      const where = Array.isArray(doc) ? ` record ${i}` : '';
      throw new Error(
        `advisories: ${source}:${where} is not an OSV record (${err?.instancePath || '/'} ${err?.message ?? 'invalid'})`,
      );
    }
    return item;
  });
}
