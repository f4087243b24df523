// The C objects behind the JS ones (Native), closed in the order they depend
// on each other; what every object shares (Base); the objects leaked.
'use strict';

const os = require('os');
const { EBADF } = os.constants.errno;

module.exports = function nativeObjects(ctx) {
  const { fail, reactor } = ctx;

  // ---- the C objects behind the JS ones, closed in order ----

  // The C objects whose destroy failed (an ibv_dereg_mr refused, ...):
  // still there in C, so kept here for the life of the process with what
  // they hold (an MR's buffer, a QP's or SRQ's posted requests) and what
  // they depend on, which a card could otherwise reach once collected.
  const leaked = [];

  // One C object: destroyed once, when closed and no object that depends
  // on it (nor any posted work request, for an MR) is left.
  class Native {
    constructor(kind, ptr, destroy, deps = []) {
      this.kind = kind;
      this.ptr = ptr;
      this.destroy = destroy;   // null: adopted, not ours to destroy
      this.deps = deps.filter(Boolean);
      this.refs = 0;
      this.state = 'open';
      this.keep = [];            // what must live as long as the C object (an MR's buffer)
      this.onDestroy = [];       // what else goes with it (a QP's held work requests)
      this.waiters = new Set();  // the reactor's waiters for it: woken by its close
      for (const d of this.deps) d.refs++;
    }

    check(fn) {
      if (this.state !== 'open') throw fail(fn, EBADF, `the ${this.kind} is closed`);
      return this.ptr;
    }

    drop() {
      if (--this.refs === 0 && this.state === 'closing') return this.finish();
      return null;
    }

    // Closes it now, or once nothing depends on it; the first error.
    close() {
      if (this.state !== 'open') return null;
      this.state = 'closing';
      for (const w of [...this.waiters]) reactor.end(w);   // each then finds it closed
      return this.refs === 0 ? this.finish() : null;
    }

    // Destroys it; a failure (thrown to the caller) leaves it in `leaked`,
    // holding its buffer, its posted requests and what it depends on.
    finish() {
      this.state = 'closed';
      try {
        if (this.destroy) this.destroy(this.ptr);
      } catch (e) {
        this.state = 'leaked';
        leaked.push(this);
        return e;
      }
      let error = null;
      for (const f of this.onDestroy) f();
      this.keep = this.onDestroy = null;
      for (const d of this.deps) error = d.drop() || error;
      this.deps = [];
      return error;
    }
  }

  function closeAll(natives) {
    let error = null;
    for (const n of natives) error = n.close() || error;
    return error;
  }

  // The safety net: an object collected unclosed is closed, with a warning.
  const collector = new FinalizationRegistry(({ kind, natives }) => {
    const error = closeAll(natives);
    process.emitWarning(`rdmaverbs: ${kind} closed by the garbage collector: close() it` +
      (error ? ` (${error.message})` : ''), 'RdmaVerbsWarning');
  });

  // An object: its natives (closed by close(), in that order; the rest
  // waits for what depends on it) and whether the collector closes them.
  class Base {
    constructor(kind, natives, collect = true) {
      this._natives = natives;
      if (collect) collector.register(this, { kind, natives }, this);
    }

    /** Closes the object (its C objects once nothing depends on them); again: nothing. */
    close() {
      collector.unregister(this);
      const error = closeAll(this._natives);
      if (error) throw error;
    }

    get closed() {
      return this._natives[0].state !== 'open';
    }
  }
  if (Symbol.dispose) Base.prototype[Symbol.dispose] = Base.prototype.close;

  // A context given as an Endpoint (its id->verbs) or as a pointer: the
  // context, and the native of the id (what is made on it is destroyed
  // before the id, which holds librdmacm's reference to the device).
  function contextOf(context) {
    return context instanceof ctx.Endpoint ? [context.context, context._id] : [context, null];
  }

  Object.assign(ctx, { leaked, Native, closeAll, collector, Base, contextOf });
};
