import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Settings: projects (to be built). */
export default function SettingsProjects(props: PageProps) {
  return <Placeholder {...props} />;
}
