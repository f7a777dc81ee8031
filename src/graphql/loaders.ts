import DataLoader from 'dataloader';
import type { Context } from './builder.ts';

/**
 * One DataLoader per request and per kind of object: sibling fields that each ask for one item
 * (every server's scorecard, its latest scan) are answered by one batched service call.
 * `batch` gets the distinct keys of a tick and returns the items it found, in any order;
 * `keyOf` names a key and the item that answers it the same way.
 */
export function loaderFor<K, V>(
  ctx: Context,
  kind: LoaderKind<K, V>,
): DataLoader<K, V | null, string> {
  let perContext = loaders.get(ctx);
  if (!perContext) {
    perContext = new Map();
    loaders.set(ctx, perContext);
  }
  let loader = perContext.get(kind) as DataLoader<K, V | null, string> | undefined;
  if (!loader) {
    loader = new DataLoader<K, V | null, string>(
      async (keys) => {
        const found = new Map((await kind.batch(ctx, keys)).map((v) => [kind.keyOf(v), v]));
        return keys.map((k) => found.get(kind.keyOf(k)) ?? null);
      },
      { cacheKeyFn: kind.keyOf },
    );
    perContext.set(kind, loader);
  }
  return loader;
}

export interface LoaderKind<K, V> {
  batch: (ctx: Context, keys: readonly K[]) => Promise<V[]>;
  keyOf: (keyOrValue: K | V) => string;
}

/** Defines a kind of batched lookup (a module-level constant: the identity names the loader). */
export function loaderKind<K, V>(kind: LoaderKind<K, V>): LoaderKind<K, V> {
  return kind;
}

const loaders = new WeakMap<Context, Map<object, unknown>>();
