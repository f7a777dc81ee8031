import { href, location, param } from '../../router.ts';

const SECTIONS = [
  ['/settings/projects', 'Projects'],
  ['/settings/users', 'Users'],
  ['/settings/keys', 'API keys'],
  ['/settings/audit', 'Audit log'],
  ['/settings/instance', 'Instance'],
] as const;

/** The settings sections (admins only), above each settings page. */
export function SettingsNav() {
  const here = location.value.path === '/settings' ? '/settings/projects' : location.value.path;
  const project = param('project');
  return (
    <nav aria-label="Settings" class="settings-nav">
      <ul>
        {SECTIONS.map(([path, label]) => (
          <li key={path}>
            <a href={href(path, { project })} aria-current={here === path ? 'page' : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
