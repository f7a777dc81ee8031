/** The server page's security tab: security findings: severity, evidence shown escaped, remediation (to be built). */
export function SecurityTab({ name }: { name: string }) {
  return <p class="muted">Not built yet: {name}</p>;
}
