import { PothosValidationError } from '@pothos/core';
import {
  cursorToOffset,
  resolveArrayConnection,
  resolveOffsetConnection,
} from '@pothos/plugin-relay';
import { MAX_PAGE } from '../audit/audit-log.ts';
import { SpyglassError } from '../errors.ts';
import type { ApiKey, CreatedApiKey } from '../model/api-key.ts';
import type { AuditEvent } from '../model/audit-event.ts';
import type { Invitation, User } from '../model/user.ts';
import { builder } from './builder.ts';

/**
 * Users, invitations, API keys and the audit log: the GraphQL side of /api/users, /api/auth/api-keys
 * and /api/audit/logs. Who may do what is decided by the services (UsersService, KeyAdmin, AuditLog).
 */
export const UserRef = builder.node(builder.objectRef<User>('User'), {
  description: 'A person who logs in with e-mail and password (GET /api/users)',
  id: { resolve: (u) => u.id },
  loadOne: (id, ctx) => ctx.services.users.get(ctx.principal, id),
  fields: (t) => ({
    id: t.exposeString('id'),
    email: t.exposeString('email'),
    role: t.exposeString('role', { description: 'admin or viewer' }),
    status: t.exposeString('status', { description: 'invited, active or deactivated' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastLoginAt: t.expose('lastLoginAt', { type: 'DateTime', nullable: true }),
  }),
});

const InvitationRef = builder.objectRef<Invitation>('Invitation').implement({
  description: 'An invitation: the token is shown this once (POST /api/users/invite)',
  fields: (t) => ({
    user: t.field({ type: UserRef, resolve: (i) => i.user }),
    inviteToken: t.exposeString('inviteToken'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

export const ApiKeyRef = builder.node(builder.objectRef<ApiKey>('ApiKey'), {
  description: 'An API key; the key itself is shown only when it is created',
  id: { resolve: (k) => k.id },
  loadOne: (id, ctx) => ctx.services.keyAdmin.get(ctx.principal, id),
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix', {
      description: 'The first characters of the key, to recognise it',
    }),
    role: t.exposeString('role', { description: 'admin or viewer' }),
    projectId: t.exposeString('projectId', {
      nullable: true,
      description: 'The project the key is bound to; null for every project',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
  }),
});

const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>('CreatedApiKey').implement({
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The key: shown this once, store it now' }),
    apiKey: t.field({ type: ApiKeyRef, resolve: (c) => c.apiKey }),
  }),
});

const AuditEventRef = builder.objectRef<AuditEvent>('AuditEvent').implement({
  description: 'One audit log entry (GET /api/audit/logs)',
  fields: (t) => ({
    eventId: t.exposeString('eventId'),
    timestamp: t.expose('timestamp', { type: 'DateTime' }),
    actor: t.exposeString('actor', { description: 'Masked e-mail or key prefix' }),
    action: t.exposeString('action'),
    resource: t.exposeString('resource'),
    result: t.exposeString('result', { description: 'success or failure' }),
    projectId: t.exposeString('projectId', { nullable: true }),
  }),
});

builder.queryField('users', (t) =>
  t.field({
    type: [UserRef],
    description: 'Every user (global admins)',
    resolve: (_r, _a, ctx) => ctx.services.users.list(ctx.principal),
  }),
);

builder.queryField('apiKeys', (t) =>
  t.field({
    type: [ApiKeyRef],
    description: 'API keys newest first (admins; a project-bound admin sees its project only)',
    args: { projectId: t.arg.string({ required: false }) },
    resolve: (_r, a, ctx) => ctx.services.keyAdmin.list(ctx.principal, a.projectId),
  }),
);

builder.queryField('usersConnection', (t) =>
  t.connection({
    type: UserRef,
    description: 'Every user, paged, optionally of one role or status (global admins)',
    args: {
      role: t.arg.string({ required: false, description: 'admin or viewer' }),
      status: t.arg.string({ required: false, description: 'invited, active or deactivated' }),
    },
    resolve: async (_r, args, ctx) => {
      const users = (await ctx.services.users.list(ctx.principal)).filter(
        (u) => (!args.role || u.role === args.role) && (!args.status || u.status === args.status),
      );
      return page(args, () =>
        resolveArrayConnection({ args, defaultSize: 50, maxSize: 200 }, users),
      );
    },
  }),
);

builder.queryField('apiKeysConnection', (t) =>
  t.connection({
    type: ApiKeyRef,
    description:
      'API keys newest first, paged (admins; a project-bound admin sees its project only)',
    args: {
      projectId: t.arg.string({ required: false }),
      includeRevoked: t.arg.boolean({ required: false, description: 'default true' }),
    },
    resolve: async (_r, args, ctx) => {
      const keys = (await ctx.services.keyAdmin.list(ctx.principal, args.projectId)).filter(
        (k) => args.includeRevoked !== false || k.revokedAt === null,
      );
      return page(args, () =>
        resolveArrayConnection({ args, defaultSize: 50, maxSize: 200 }, keys),
      );
    },
  }),
);

builder.queryField('auditLog', (t) =>
  t.connection({
    type: AuditEventRef,
    description: 'The audit log newest first (admins; a project-bound admin sees its project only)',
    args: {
      action: t.arg.string({ required: false, description: 'e.g. api_key.created' }),
      actor: t.arg.string({ required: false, description: 'masked e-mail or key:<prefix>' }),
      result: t.arg.string({ required: false, description: 'success or failure' }),
      target: t.arg.string({
        required: false,
        description: 'the resource starts with this text, e.g. project: or project:acme',
      }),
      since: t.arg({ type: 'DateTime', required: false, description: 'at or after' }),
      until: t.arg({ type: 'DateTime', required: false, description: 'before' }),
    },
    resolve: (_r, args, ctx) => {
      if (args.result && args.result !== 'success' && args.result !== 'failure')
        throw new SpyglassError('validation', "result should be 'success' or 'failure'");
      const filter = {
        action: args.action ?? undefined,
        actor: args.actor ?? undefined,
        result: (args.result ?? undefined) as 'success' | 'failure' | undefined,
        resourcePrefix: args.target ?? undefined,
        since: args.since ?? undefined,
        until: args.until ?? undefined,
      };
      return page(args, () =>
        resolveOffsetConnection({ args, defaultSize: 50, maxSize: MAX_PAGE }, (p) =>
          ctx.services.audit.list(ctx.principal, p, filter),
        ),
      );
    },
  }),
);

builder.mutationField('inviteUser', (t) =>
  t.field({
    type: InvitationRef,
    args: {
      email: t.arg.string({ required: true }),
      role: t.arg.string({ required: false, description: 'admin or viewer (default)' }),
    },
    resolve: (_r, a, ctx) => ctx.services.users.invite(ctx.principal, a.email, a.role ?? 'viewer'),
  }),
);

builder.mutationField('changeUserRole', (t) =>
  t.field({
    type: UserRef,
    args: {
      id: t.arg.string({ required: true }),
      role: t.arg.string({ required: true, description: 'admin or viewer' }),
    },
    resolve: (_r, a, ctx) => ctx.services.users.changeRole(ctx.principal, a.id, a.role),
  }),
);

builder.mutationField('deactivateUser', (t) =>
  t.field({
    type: UserRef,
    description: 'Deactivates the user and revokes their keys; the last admin cannot be removed',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.users.deactivate(ctx.principal, a.id),
  }),
);

const ApiKeyInput = builder.inputType('ApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    role: t.string({ required: false, description: 'admin or viewer (default)' }),
    projectId: t.string({ required: false, description: 'Bind the key to one project' }),
    expiresAt: t.field({ type: 'DateTime', required: false }),
    expiresInDays: t.float({ required: false }),
  }),
});

builder.mutationField('createApiKey', (t) =>
  t.field({
    type: CreatedApiKeyRef,
    args: { input: t.arg({ type: ApiKeyInput, required: true }) },
    resolve: (_r, { input }, ctx) => ctx.services.keyAdmin.create(ctx.principal, input),
  }),
);

builder.mutationField('revokeApiKey', (t) =>
  t.field({
    type: ApiKeyRef,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.keyAdmin.revoke(ctx.principal, a.id),
  }),
);

/** Runs a connection's paging; a forged cursor or a bad page size is the client's error (422). */
async function page<T>(
  args: { before?: string | null; after?: string | null },
  resolve: () => Promise<T> | T,
): Promise<T> {
  try {
    for (const cursor of [args.after, args.before]) {
      if (cursor && !Number.isSafeInteger(cursorToOffset(cursor)))
        throw new PothosValidationError(`Invalid cursor ${cursor}`);
    }
    return await resolve();
  } catch (err) {
    if (err instanceof PothosValidationError) throw new SpyglassError('validation', err.message);
    throw err;
  }
}
