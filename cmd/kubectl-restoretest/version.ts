// The plugin's version. Kept equal to package.json's "version" (a unit test checks it), so the
// compiled plugin needs no package.json at run time.
export const PLUGIN_VERSION = '0.1.0';
