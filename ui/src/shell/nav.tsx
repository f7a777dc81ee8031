import { PAGES } from '../pages.ts';
import { href, location, matchPath, param } from '../router.ts';
import { isAdmin } from './session.ts';

/** Main navigation; the project in the URL follows every link. */
export function Nav() {
  const project = param('project');
  const here = location.value.path;
  return (
    <nav aria-label="Main">
      <ul>
        {PAGES.filter((p) => p.nav && (!p.admin || isAdmin())).map((p) => {
          const current =
            p.path === '/'
              ? here === '/'
              : here === p.path || here.startsWith(`${p.path}/`) || !!matchPath(p.path, here);
          return (
            <li key={p.path}>
              <a href={href(p.path, { project })} aria-current={current ? 'page' : undefined}>
                {p.nav}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
