import { render } from 'preact';
import { App } from './App.tsx';
import './styles/base.css';
import './styles/controls.css';
import './styles/surfaces.css';
import './styles/forms.css';
import './styles/content.css';

render(<App />, document.getElementById('app')!);
