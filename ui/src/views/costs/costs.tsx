import type { PageProps } from '../../pages.ts';
import { useQuery } from '../../graphql/hooks.ts';
import { ErrorState, Loading } from '../../shell/states.tsx';
import { Breakdown } from './breakdown.tsx';
import { PriceBook } from './price-book.tsx';
import { COSTS, type CostsData } from './queries.ts';
import { RangePicker, rangeVars, readCostsState } from './range.tsx';
import './costs.css';

/**
 * Costs (`/costs`, docs/ui.md#costs): what a window (24h, 7d, 30d or from/to, in the URL) cost by
 * model, agent and tool, per hour as a chart, and the project's price book.
 */
export default function Costs(_props: PageProps) {
  const s = readCostsState();
  const vars = rangeVars(s);
  const q = useQuery<CostsData>(COSTS, vars);
  return (
    <div class="costs">
      <RangePicker s={s} />
      <div aria-busy={q.fetching}>
        {q.error && <ErrorState error={q.error} retry={q.refetch} />}
        {!q.data && !q.error && <Loading what="costs" />}
        {q.data && <Breakdown data={q.data} project={s.project} />}
      </div>
      <PriceBook projectId={vars.projectId} />
    </div>
  );
}
