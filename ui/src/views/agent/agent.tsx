import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Agent: one agent (to be built). */
export default function Agent(props: PageProps) {
  return <Placeholder {...props} />;
}
