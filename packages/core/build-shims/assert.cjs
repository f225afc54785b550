'use strict';
// Stands in for node:assert inside core's bundled dependencies (signal-exit checks one
// argument with assert.equal). Loading the real module reads process.stderr to pick colours,
// which builds the stderr pipe stream, and with it net and the stream modules, in every hook
// process: about 2 ms for one argument check.
function fail(message) {
  const error = new Error(message || 'assertion failed');
  error.code = 'ERR_ASSERTION';
  throw error;
}
function ok(value, message) {
  if (!value) fail(message);
}
function equal(actual, expected, message) {
  // eslint-disable-next-line eqeqeq -- assert.equal is loose equality
  if (actual != expected) fail(message);
}
function strictEqual(actual, expected, message) {
  if (actual !== expected) fail(message);
}
module.exports = Object.assign(ok, { ok, equal, strictEqual, fail });
