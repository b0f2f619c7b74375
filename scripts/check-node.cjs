// Runs before npm start, npm test, npm install's console build and the CLI scripts: the gateway
// is TypeScript run by Node's own type stripping, so an older Node fails on the first .ts file
// with a stack trace that names no version. Plain CommonJS of the oldest syntax, so any Node runs it.
'use strict';
var fs = require('fs');
var path = require('path');

var range = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).engines.node; // ">=24"
var needed = Number(/(\d+)/.exec(range)[1]);
var found = process.versions.node;
if (Number(found.split('.')[0]) < needed) {
  process.stderr.write('modelgate needs Node.js ' + needed + ' or newer; this is Node.js ' + found + ' (' + process.execPath + '). Install Node.js ' + needed + ' (https://nodejs.org, or "nvm install ' + needed + '") and run the command again.\n');
  process.exit(1);
}
