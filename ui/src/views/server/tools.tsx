/** The server page's tools tab: the tools with their schemas (to be built). */
export function ToolsTab({ name }: { name: string }) {
  return <p class="muted">Not built yet: {name}</p>;
}
