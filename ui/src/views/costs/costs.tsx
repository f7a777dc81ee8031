import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Costs and the price book (to be built). */
export default function Costs(props: PageProps) {
  return <Placeholder {...props} />;
}
