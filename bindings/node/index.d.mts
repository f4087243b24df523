// The types of index.mjs, the package as an ES module: each export of
// index.d.ts (and api.d.ts) by name, and the whole package as the default
// export (`import rv from 'rdmaverbs'`), which is the object
// require('rdmaverbs') gives.
import * as rv from './index.js';

export * from './index.js';
export default rv;
