import type { Check } from '../types.ts';
import { placesToFindings } from './findings.ts';
import { collectPlaces } from './strings.ts';

/** Tool poisoning (OWASP-MCP-03) over every string of the observed surface; nothing is called. */
export const poisoningCheck: Check = (ctx) =>
  ctx.observation.reachable ? placesToFindings(collectPlaces(ctx.observation)) : [];
