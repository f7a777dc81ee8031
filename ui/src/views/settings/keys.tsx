import type { PageProps } from '../../pages.ts';
import { Placeholder } from '../placeholder.tsx';

/** #27 Settings: API keys (to be built). */
export default function SettingsKeys(props: PageProps) {
  return <Placeholder {...props} />;
}
