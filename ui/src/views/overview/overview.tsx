import { FirstSpan } from '../../shell/states.tsx';

export function Overview() {
  return <FirstSpan />;
}
