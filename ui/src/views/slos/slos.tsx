import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 SLOs (to be built). */
export default function Slos(props: PageProps) {
  return <Placeholder {...props} />;
}
