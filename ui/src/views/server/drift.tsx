/** The server page's drift tab: drift history, each classified change as a readable diff of the tool schema (to be built). */
export function DriftTab({ name }: { name: string }) {
  return <p class="muted">Not built yet: {name}</p>;
}
