import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Agents: every agent (to be built). */
export default function Agents(props: PageProps) {
  return <Placeholder {...props} />;
}
