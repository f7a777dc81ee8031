import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Anomalies (to be built). */
export default function Anomalies(props: PageProps) {
  return <Placeholder {...props} />;
}
