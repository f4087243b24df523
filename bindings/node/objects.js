// The object layer (objects/, one module an object): a function of the raw
// layer (index.js's api) giving the objects. Kept at this path for programs
// and tests that require('rdmaverbs/objects.js') with a stand-in of it.
'use strict';

module.exports = require('./objects/index.js');
