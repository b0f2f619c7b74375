/**
 * The layers of src/ and what each may import (docs/architecture.md draws them).
 * `npm run check:imports` runs this in CI; there are no exceptions: a breach fails the build.
 */
const notTypeOnly = {};
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'import circles make the order of start-up and the flow of a request unreadable', from: { path: '^(src|simulators)/' }, to: { circular: true } },
    { name: 'core-imports-only-core', severity: 'error', comment: 'core is the ground floor: the IR, money, errors and every contract the layers meet on', from: { path: '^src/core/' }, to: { path: '^src/', pathNot: '^src/core/' } },
    { name: 'vendors-import-only-core', severity: 'error', comment: 'a vendor family translates IR to its wire and back; it never sees the pipeline, a dialect or the store', from: { path: '^src/vendors/' }, to: { path: '^src/', pathNot: '^src/(core|vendors)/' } },
    { name: 'vendor-families-never-meet', severity: 'error', comment: 'a family imports its own folder and the shared kit only; the registry lists them all', from: { path: '^src/vendors/([^/_]+)/' }, to: { path: '^src/vendors/([^/_]+)/', pathNot: '^src/vendors/$1/' } },
    { name: 'vendor-internals-stay-inside', severity: 'error', comment: 'outside vendors/, a family is reached only through the registry', from: { path: '^src/', pathNot: '^src/vendors/' }, to: { path: '^src/vendors/(?!registry\\.ts$)' } },
    { name: 'dialects-import-only-core', severity: 'error', comment: 'a dialect turns one client wire format into IR and back; it never sees a vendor, the pipeline or the store', from: { path: '^src/dialects/' }, to: { path: '^src/', pathNot: '^src/(core|dialects)/' } },
    { name: 'dialects-never-meet', severity: 'error', comment: 'a dialect imports its own folder and the shared kit only', from: { path: '^src/dialects/([^/_]+)/' }, to: { path: '^src/dialects/([^/_]+)/', pathNot: '^src/dialects/$1/' } },
    { name: 'store-imports-only-core', severity: 'error', comment: 'the store persists; it knows no layer above it', from: { path: '^src/store/' }, to: { path: '^src/', pathNot: '^src/(core|store)/' } },
    { name: 'billing-imports-only-store-and-core', severity: 'error', comment: 'the ledger knows money and the store, nothing above', from: { path: '^src/billing/' }, to: { path: '^src/', pathNot: '^src/(core|store|billing)/' } },
    { name: 'pipeline-stays-below-http', severity: 'error', comment: 'the request lifecycle is driven by routes and admin; it never reaches up to them', from: { path: '^src/pipeline/' }, to: { path: '^src/(http|admin|console|config|realtime|jobs|health|dialects)/' } },
    { name: 'services-stay-below-http', severity: 'error', comment: 'the realtime relay, the job workers and the health checks are driven by the composition root; they never reach up to the routes, the back office or the configuration loader', from: { path: '^src/(realtime|jobs|health)/' }, to: { path: '^src/(http|admin|console|config)/' } },
    { name: 'gateway-object-only-at-the-root', severity: 'error', comment: 'layers take the narrow dependencies they use; only the composition root and the app shell see the whole gateway', from: { path: '^src/', pathNot: '^src/(main|app|gateway)\\.ts$' }, to: { path: '^src/gateway\\.ts$' } },
    { name: 'simulators-are-not-product-code', severity: 'error', comment: 'simulators serve demo mode, tests and the benchmark; the product reaches them only from the composition root', from: { path: '^src/', pathNot: '^src/main\\.ts$' }, to: { path: '^simulators/' } },
    { name: 'simulators-stand-alone', severity: 'error', comment: 'a simulator speaks a vendor wire from its own code; it shares only core types with the product', from: { path: '^simulators/' }, to: { path: '^src/', pathNot: '^src/core/' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|console/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
