/**
 * One error type for the whole service. Each edge (REST, GraphQL, OTLP/HTTP, gRPC) maps it once.
 * `detail` is what a client may see; never put SQL, paths or stack traces in it.
 */
export type ErrorCode =
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'locked'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation'
  | 'rate_limited'
  | 'overloaded'
  | 'unavailable';

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  locked: 423,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation: 422,
  rate_limited: 429,
  overloaded: 503,
  unavailable: 503,
};

export class SpyglassError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: ValidationIssue[] | undefined;
  /** Seconds a client should wait before retrying (429/503). */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { issues?: ValidationIssue[]; retryAfter?: number } = {},
  ) {
    super(message);
    this.name = 'SpyglassError';
    this.code = code;
    this.status = STATUS[code];
    this.issues = opts.issues;
    this.retryAfter = opts.retryAfter;
  }

  /** The `detail` of the JSON error body (docs/api.md). */
  get detail(): string | ValidationIssue[] {
    return this.issues ?? this.message;
  }
}

export const badRequest = (msg: string) => new SpyglassError('bad_request', msg);
export const notFound = (msg: string) => new SpyglassError('not_found', msg);
export const forbidden = (msg: string) => new SpyglassError('forbidden', msg);
