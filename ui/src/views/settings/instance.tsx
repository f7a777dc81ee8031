import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Settings: instance settings and prevention defaults (to be built). */
export default function SettingsInstance(props: PageProps) {
  return <Placeholder {...props} />;
}
