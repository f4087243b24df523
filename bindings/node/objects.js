// The object layer (objects/, one module an object): a function of the raw
// layer (index.js's api) giving the objects. Nothing requires this path any
// more: package.json's exports do not expose it (require('rdmaverbs/
// objects.js') is ERR_PACKAGE_PATH_NOT_EXPORTED) and the tests' stand-in
// requires objects/index.js. It goes once package.json's "files" and
// bindings/bindings.mk no longer list it.
'use strict';

module.exports = require('./objects/index.js');
