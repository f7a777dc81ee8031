import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Settings: audit log (to be built). */
export default function SettingsAudit(props: PageProps) {
  return <Placeholder {...props} />;
}
