/** The server page's impact tab: blast radius and drift impact: who is hit if this server goes down or a tool changes (to be built). */
export function ImpactTab({ name }: { name: string }) {
  return <p class="muted">Not built yet: {name}</p>;
}
