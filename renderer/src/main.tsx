import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { connectEngine } from './engine/bridge.js';
import { applySettings, readSettings } from './local/settings.js';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
applySettings(readSettings());

void connectEngine().then((conn) =>
  createRoot(root).render(
    <StrictMode>
      <App conn={conn} />
    </StrictMode>,
  ),
);
