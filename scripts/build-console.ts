// Builds the web console into console/dist (run by `npm install`/`npm ci` through "prepare",
// and by `npm start` when the build is missing). Offline: Vite and the front-end packages come
// from node_modules. Without them (an install that omitted dev dependencies) it says so and
// leaves the gateway to serve the API alone.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const config = fileURLToPath(new URL('../console/vite.config.ts', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../console/dist/index.html', import.meta.url)));

if (process.argv.includes('--if-missing') && built) process.exit(0);

let vite: typeof import('vite');
try {
  vite = await import('vite');
} catch {
  console.warn('modelgate: Vite is not installed (dev dependencies omitted?), so the web console was not built. Run "npm install" then "npm run build:console".');
  process.exit(0);
}
await vite.build({ configFile: config, root: fileURLToPath(new URL('../console', import.meta.url)), logLevel: 'warn', envDir: root });
console.log('modelgate: web console built into console/dist');
