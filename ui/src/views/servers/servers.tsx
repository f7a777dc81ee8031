import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Servers: every configured and observed server (to be built). */
export default function Servers(props: PageProps) {
  return <Placeholder {...props} />;
}
