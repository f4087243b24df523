// The short ways: rv.connect, rv.createEndpoint, rv.listen, a listener's
// acceptNext and requests (for await).
'use strict';

module.exports = function connectObjects(ctx) {
  const { Endpoint, EventChannel } = ctx;

  // ---- the short ways ----

  // An RC endpoint for host:port on its own event channel: the address and
  // route resolved, setup(opts); then (connect) rdma_connect; each wait
  // bounded by opts.timeout (ms). A failure closes what was made.
  function client(host, port, opts, sync, connect) {
    const channel = new EventChannel();
    let ep;
    try {
      ep = channel.createId();
    } catch (e) {
      channel.close();
      throw e;
    }
    ep._owned.push(channel);
    const t = opts.timeout;
    const abandon = (e) => {
      ep.close();
      throw e;
    };
    if (sync) {
      try {
        ep.resolveSync(host, port, t);
        ep.setup(opts);
        return connect ? ep.connectSync(opts.param, t) : ep;
      } catch (e) {
        return abandon(e);
      }
    }
    return ep.resolve(host, port, { timeout: t }).then(() => ep.setup(opts))
      .then(() => (connect ? ep.connect(opts.param, { timeout: t }) : ep)).catch(abandon);
  }

  /** An RC endpoint connected to host:port: createEndpoint(), then
   * rdma_connect (opts.param), each wait bounded by opts.timeout (ms). */
  async function connect(host, port, opts = {}) {
    return client(host, port, opts, false, true);
  }
  function connectSync(host, port, opts = {}) {
    return client(host, port, opts, true, true);
  }

  /** An RC endpoint for host:port, not connected yet: its own event
   * channel, the address and route resolved, setup(opts) (a PD, a
   * completion channel, a send and a receive CQ, the QP: every send
   * signaled unless opts.sqSigAll is false). Post its receives, then
   * ep.connect(). */
  async function createEndpoint(host, port, opts = {}) {
    return client(host, port, opts, false, false);
  }
  function createEndpointSync(host, port, opts = {}) {
    return client(host, port, opts, true, false);
  }

  /** An endpoint listening on host:port, on its own event channel: take
   * requests with getRequest(), or accept() one whole. */
  function listen(host, port, { backlog = 1 } = {}) {
    const channel = new EventChannel();
    let ep;
    try {
      ep = channel.createId();
      ep._owned.push(channel);
      return ep.listen(host, port, backlog);
    } catch (e) {
      if (ep) ep.close();
      else channel.close();
      throw e;
    }
  }

  // Endpoint.accept on a listener: the next request, set up (opts), accepted.
  function serve(listener, opts, sync) {
    const t = opts.timeout;
    const go = (ep) => {
      try {
        ep.setup(opts);
      } catch (e) {
        ep.close();
        throw e;
      }
      const bad = (e) => {
        ep.close();
        throw e;
      };
      if (sync) {
        try {
          return ep.acceptSync(opts.param, t);
        } catch (e) {
          return bad(e);
        }
      }
      return ep.accept(opts.param, { timeout: t }).catch(bad);
    };
    return sync ? go(listener.getRequestSync(t)) : listener.getRequest({ timeout: t }).then(go);
  }
  /** A listener's next connection, set up (setup's opts) and accepted. */
  Endpoint.prototype.acceptNext = async function acceptNext(opts = {}) {
    return serve(this, opts, false);
  };
  Endpoint.prototype.acceptNextSync = function acceptNextSync(opts = {}) {
    return serve(this, opts, true);
  };

  /** A listener's connection requests, as an async iterable: each an
   * endpoint set up (setup's opts; opts.timeout bounds each wait), not
   * accepted yet: post its receives, then ep.accept(). It ends when the
   * listener is closed. */
  Endpoint.prototype.requests = async function* requests(opts = {}) {
    for (;;) {
      let ep;
      try {
        ep = await this.getRequest({ timeout: opts.timeout });
      } catch (e) {
        if (this.closed) return;   // the listener closed: the end
        throw e;
      }
      try {
        ep.setup(opts);
      } catch (e) {
        ep.close();
        throw e;
      }
      yield ep;
    }
  };
  /** for await (const ep of listener): its requests({}). */
  Endpoint.prototype[Symbol.asyncIterator] = function iterate() {
    return this.requests();
  };

  Object.assign(ctx, { client, connect, connectSync, createEndpoint, createEndpointSync, listen, serve });
};
