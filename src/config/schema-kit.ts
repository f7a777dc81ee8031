import { Type as T, type TSchema } from 'typebox';

/** Options our loader reads besides JSON Schema's. */
export interface SettingOptions {
  description: string;
  /** Older environment names, still read (the rule's name wins when both are set). */
  alias?: string[];
  /** What a valid value looks like, when the type alone does not say it. */
  expect?: string;
  /** The default computed at start, in words (the reference's default column). */
  computed?: string;
  /** A key, token or URL that may hold a password: never repeated in a problem. */
  secret?: boolean;
}

export const int = (min: number, max: number, dflt: number | undefined, o: SettingOptions) =>
  T.Integer({ minimum: min, maximum: max, ...(dflt === undefined ? {} : { default: dflt }), ...o });
export const num = (min: number, max: number, dflt: number, o: SettingOptions) =>
  T.Number({ minimum: min, maximum: max, default: dflt, ...o });
export const bool = (dflt: boolean, o: SettingOptions) => T.Boolean({ default: dflt, ...o });
/** A string without a default: absent when unset. */
export const optStr = (o: SettingOptions) => T.Optional(T.String({ minLength: 1, ...o }));
export const str = (dflt: string, o: SettingOptions) =>
  T.String({ minLength: 1, default: dflt, ...o });
/** A list of strings; in the environment (or as a YAML string) comma-separated. */
export const list = (o: SettingOptions, dflt: string[] = []) =>
  T.Array(T.String({ minLength: 1 }), { default: dflt, ...o });
export const section = <P extends Record<string, TSchema>>(props: P, description: string) =>
  T.Object(props, { additionalProperties: false, default: {}, description });
