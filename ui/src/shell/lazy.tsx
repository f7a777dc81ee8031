import { signal, type Signal } from '@preact/signals';
import type { ComponentType } from 'preact';
import { useEffect } from 'preact/hooks';
import { describeError } from '../graphql/client.ts';
import type { PageProps } from '../pages.ts';
import { ErrorState, Loading } from './states.tsx';

type Loaded = { default: ComponentType<PageProps> };

/**
 * A page whose code is fetched the first time it is opened (its own chunk, so the pages of part
 * one and the first paint do not carry the heavy ones: charts, forms, diffs).
 */
export function lazyPage(load: () => Promise<Loaded>, what: string): ComponentType<PageProps> {
  const view: Signal<ComponentType<PageProps> | null> = signal(null);
  const failed = signal<unknown>(null);
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    failed.value = null;
    load().then(
      (m) => (view.value = m.default),
      (err) => {
        started = false;
        failed.value = err;
      },
    );
  };
  return function LazyPage(props: PageProps) {
    useEffect(start, []);
    if (failed.value) return <ErrorState error={describeError(failed.value)} retry={start} />;
    const View = view.value;
    return View ? <View {...props} /> : <Loading what={what} />;
  };
}
