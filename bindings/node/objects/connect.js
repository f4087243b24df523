// The short ways: rv.connect, rv.listen, a listener's acceptNext.
'use strict';

module.exports = function connectObjects(ctx) {
  const { Endpoint, EventChannel } = ctx;

  // ---- the short ways ----

  function client(host, port, opts, sync) {
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
        return ep.connectSync(opts.param, t);
      } catch (e) {
        return abandon(e);
      }
    }
    return ep.resolve(host, port, { timeout: t }).then(() => ep.setup(opts))
      .then(() => ep.connect(opts.param, { timeout: t })).catch(abandon);
  }

  /** An RC endpoint connected to host:port: its own event channel, the
   * address and route resolved, setup(opts), rdma_connect (opts.param),
   * each wait bounded by opts.timeout (ms). */
  async function connect(host, port, opts = {}) {
    return client(host, port, opts, false);
  }
  function connectSync(host, port, opts = {}) {
    return client(host, port, opts, true);
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

  Object.assign(ctx, { client, connect, connectSync, listen, serve });
};
