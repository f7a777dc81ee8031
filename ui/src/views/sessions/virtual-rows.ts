import {
  Virtualizer,
  elementScroll,
  observeElementOffset,
  observeElementRect,
  type VirtualItem,
} from '@tanstack/virtual-core';
import { useLayoutEffect, useReducer, useRef } from 'preact/hooks';

/**
 * @tanstack/virtual-core wired into a Preact component: the rows of `count` that the scroll
 * element shows (plus overscan), and the space above and below them for spacer rows.
 */
export function useVirtualRows(
  scroller: { current: HTMLElement | null },
  count: number,
  rowHeight: number,
): { items: VirtualItem[]; before: number; after: number } {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const options = {
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    scrollToFn: elementScroll,
    observeElementRect,
    observeElementOffset,
    onChange: () => rerender(0),
  };
  const ref = useRef<Virtualizer<HTMLElement, Element> | undefined>(undefined);
  ref.current ??= new Virtualizer(options);
  const v = ref.current;
  v.setOptions(options);
  useLayoutEffect(() => v._didMount(), [v]);
  useLayoutEffect(() => v._willUpdate());
  const items = v.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = Math.max(0, v.getTotalSize() - (items.at(-1)?.end ?? 0));
  return { items, before, after };
}
