import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Alerts: the inbox and alert configuration (to be built). */
export default function Alerts(props: PageProps) {
  return <Placeholder {...props} />;
}
