import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Settings: users and invitations (to be built). */
export default function SettingsUsers(props: PageProps) {
  return <Placeholder {...props} />;
}
