import { CombinedError } from '@urql/core';
import { describeError } from '../../graphql/client.ts';

/** A server validation error: its message, and the message for each field it names. */
export interface FormError {
  message: string;
  code: string;
  hint: string;
  /** Field (the API's snake_case name, last part of the issue's loc) → what is wrong with it. */
  fields: Record<string, string>;
}

/** Reads a failed mutation: GraphQL's message and code, and the issues of a validation error. */
export function formError(err: unknown): FormError {
  const fields: Record<string, string> = {};
  const issues =
    err instanceof CombinedError ? err.graphQLErrors[0]?.extensions?.issues : undefined;
  if (Array.isArray(issues))
    for (const i of issues as { loc?: unknown; msg?: unknown }[]) {
      const name = Array.isArray(i.loc) ? String(i.loc.at(-1)) : '';
      if (name && typeof i.msg === 'string') fields[name] ??= i.msg;
    }
  return { ...describeError(err), fields };
}

/** The error beside a form: the server's words, its code, and each field's problem. */
export function FormErrorBox({ error, id }: { error: FormError; id: string }) {
  const entries = Object.entries(error.fields);
  return (
    <div class="form-error" role="alert" id={id}>
      <p>
        {error.message} <code>{error.code}</code>
      </p>
      {entries.length > 0 ? (
        <ul>
          {entries.map(([f, msg]) => (
            <li key={f}>
              <code>{f}</code>: {msg}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{error.hint}</p>
      )}
    </div>
  );
}
