import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, Kind, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LOCAL_ADMIN, SIGNED_OUT, type Principal } from '../auth/principal.ts';
import { sessionCookie, sessionTokenFrom, type SignedIn } from '../auth/ui-sessions.ts';
import { SpyglassError } from '../errors.ts';
import type { User } from '../model/user.ts';
import { builder, type Context, type HttpSignIn } from './builder.ts';

/**
 * Sign-in for the dashboard (docs/ui.md#auth), in GraphQL: `login`, `loginWithApiKey`, `logout`
 * and `viewer`. A dashboard request without credentials runs as SIGNED_OUT and may only select
 * these fields; anything else answers UNAUTHENTICATED (401) as a request without a key would.
 */
const SIGNED_OUT_FIELDS = new Set(['viewer', 'login', 'loginWithApiKey', 'logout', '__typename']);

export function signedOutOperations(): Plugin {
  return {
    onExecute: ({ args, setResultAndStopExecution }) => {
      if ((args.contextValue as unknown as Context).principal !== SIGNED_OUT) return;
      const op = getOperationAST(args.document, args.operationName);
      const allowed =
        !!op &&
        op.operation !== 'subscription' &&
        op.selectionSet.selections.every(
          (s) => s.kind === Kind.FIELD && SIGNED_OUT_FIELDS.has(s.name.value),
        );
      if (!allowed)
        setResultAndStopExecution({
          errors: [
            new GraphQLError('sign in first: an API key or a dashboard session is required', {
              extensions: { code: 'UNAUTHENTICATED', status: 401, http: { status: 401 } },
            }),
          ],
        });
    },
  };
}

/** The sign-in context of an HTTP request: its session token, https or not, the client address. */
export function httpSignIn(req: FastifyRequest, reply: FastifyReply): HttpSignIn {
  return {
    sessionToken: sessionTokenFrom(req.headers.cookie),
    // req.protocol reads X-Forwarded-Proto only from trusted proxies (Fastify's trustProxy).
    secure: req.protocol === 'https',
    clientAddress: req.ip,
    setCookie: (value) => void reply.header('Set-Cookie', value),
  };
}

interface ViewerShape {
  principal: Principal;
  authDisabled: boolean;
}

const ViewerUserRef = builder.objectRef<Pick<User, 'id' | 'email'>>('ViewerUser').implement({
  description: 'The signed-in user of a dashboard session',
  fields: (t) => ({ id: t.exposeString('id'), email: t.exposeString('email') }),
});

const ViewerRef = builder.objectRef<ViewerShape>('Viewer').implement({
  description: 'Who is calling: role and project scope exactly as the API enforces them',
  fields: (t) => ({
    role: t.string({ resolve: (v) => v.principal.role }),
    projectId: t.string({
      nullable: true,
      description: 'The project the caller is bound to; null for every project',
      resolve: (v) => v.principal.projectId,
    }),
    actor: t.string({
      description: 'As the audit log names the caller',
      resolve: (v) => v.principal.actor,
    }),
    authDisabled: t.boolean({
      description: 'The server runs in local mode without keys: everyone is an admin',
      resolve: (v) => v.authDisabled,
    }),
    via: t.string({
      description: '`local` (auth off), `user` (a signed-in user) or `key` (an API key)',
      resolve: (v) => (v.principal === LOCAL_ADMIN ? 'local' : v.principal.userId ? 'user' : 'key'),
    }),
    user: t.field({
      type: ViewerUserRef,
      nullable: true,
      resolve: (v, _a, ctx) => ctx.services.users.self(v.principal),
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: ViewerRef,
    nullable: true,
    description: 'The caller; null for a dashboard that has not signed in',
    resolve: async (_r, _a, ctx) =>
      ctx.principal === SIGNED_OUT
        ? null
        : { principal: ctx.principal, authDisabled: await ctx.services.auth.authDisabled() },
  }),
);

builder.mutationField('login', (t) =>
  t.field({
    type: ViewerRef,
    description:
      'Signs a user in to the dashboard: sets an httpOnly session cookie (docs/ui.md#auth)',
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) =>
      signIn(ctx, () => ctx.services.uiSessions.loginUser(a.email, a.password)),
  }),
);

builder.mutationField('loginWithApiKey', (t) =>
  t.field({
    type: ViewerRef,
    description: "Signs in to the dashboard with an API key: the key's role and project scope",
    args: { key: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => signIn(ctx, () => ctx.services.uiSessions.loginKey(a.key)),
  }),
);

builder.mutationField('logout', (t) =>
  t.boolean({
    description: 'Ends the dashboard session and clears its cookie',
    resolve: async (_r, _a, ctx) => {
      if (!ctx.http) return false;
      await ctx.services.uiSessions.logout(ctx.http.sessionToken, ctx.principal);
      ctx.http.setCookie(sessionCookie(null, ctx.http.secure));
      return true;
    },
  }),
);

async function signIn(ctx: Context, open: () => Promise<SignedIn>): Promise<ViewerShape> {
  const http = ctx.http;
  if (!http)
    throw new SpyglassError('bad_request', 'sign in over HTTP (POST /graphql), not a WebSocket');
  await limitSignIns(ctx, http.clientAddress);
  const signed = await open();
  // A new session replaces the one the browser had.
  if (http.sessionToken) await ctx.services.uiSessions.logout(http.sessionToken, signed.principal);
  http.setCookie(sessionCookie(signed.token, http.secure));
  return { principal: signed.principal, authDisabled: await ctx.services.auth.authDisabled() };
}

/** Sign-in attempts per client address share the limit of POST /api/users/verify (docs/auth.md#rate-limits). */
async function limitSignIns(ctx: Context, address: string): Promise<void> {
  const { rateLimits } = ctx.services.config;
  if (!rateLimits.enabled) return;
  const r = await ctx.services.limiter.take('verify', rateLimits.verify, `ip:${address}`);
  if (!r.ok)
    throw new SpyglassError('rate_limited', `Rate limit exceeded: ${r.limit} per 1 minute`, {
      retryAfter: r.retryAfterSeconds,
    });
}
