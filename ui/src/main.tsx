import { render } from 'preact';
import { App } from './shell/app.tsx';
import { interceptLinks } from './router.ts';
import { applyTheme } from './shell/prefs.ts';
import './styles.css';

applyTheme();
const root = document.getElementById('app') as HTMLElement;
interceptLinks(root);
render(<App />, root);
