// The package's install script: npm runs it where the package lies (the
// folder above this one).
//
// `npm install <checkout>/bindings/node` links that folder into the project
// and installs none of its dependencies (npm does not, for a folder outside
// the project), and node resolves the package's require('koffi') from the
// link's target: here. So a link gets koffi here, in the clone's
// bindings/node/node_modules, exactly as package-lock.json has it (npm ci).
// Installed as a copy (the README's tarball, --install-links), it has koffi
// beside it already, and this does nothing.
'use strict';
const { execFileSync } = require('child_process');
const path = require('path');

try {
  require.resolve('koffi');
} catch {
  // The npm that runs this, without its settings for the project it
  // installs into (npm_config_global, _save, ...), but those that reach
  // the registry.
  const reach = /^npm_config_(registry|cache|userconfig|globalconfig|proxy|https_proxy|noproxy|cafile|ca|strict_ssl|offline|prefer_offline|prefer_online|fetch_)/;
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') || reach.test(k)));
  const npm = process.env.npm_execpath;
  const [file, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  execFileSync(file, [...args, 'ci', '--omit=dev', '--no-audit', '--no-fund'],
    { cwd: path.join(__dirname, '..'), env, stdio: 'inherit' });
}
