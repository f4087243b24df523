// How a wait waits: libc's poll() on a channel's fd (the blocking forms), and
// the reactor (the Promises: one koffi async poll() at a time over every fd
// waited on).
'use strict';

const os = require('os');
const { EBADF, EINTR } = os.constants.errno;

module.exports = function asyncObjects(ctx) {
  const { fail, koffi } = ctx;

  // ---- libc: poll, fcntl, an eventfd ----
  const libc = koffi.load('libc.so.6');
  const c = {
    poll: libc.func('int poll(void *fds, unsigned long nfds, int timeout)'),
    fcntl: libc.func('int fcntl(int fd, int cmd, ...)'),
    eventfd: libc.func('int eventfd(unsigned int initval, int flags)'),
    read: libc.func('long read(int fd, void *buf, unsigned long count)'),
    write: libc.func('long write(int fd, void *buf, unsigned long count)'),
  };
  const POLLIN = 1, POLLERR = 8, POLLHUP = 16, POLLNVAL = 32;
  const F_GETFL = 3, F_SETFL = 4, O_NONBLOCK = 0o4000, EFD_CLOEXEC = 0o2000000;

  // A wait's deadline: undefined or Infinity is none.
  function deadline(ms) {
    if (ms === undefined || ms === null || ms === Infinity) return Infinity;
    if (typeof ms !== 'number' || !(ms >= 0)) throw new TypeError(`a timeout in ms, not ${ms}`);
    return Date.now() + ms;
  }
  const left = (end) => (end === Infinity ? Infinity : Math.max(0, end - Date.now()));

  function nonblocking(fd, fn) {
    const flags = c.fcntl(fd, F_GETFL, 'int', 0);
    if (flags < 0 || c.fcntl(fd, F_SETFL, 'int', flags | O_NONBLOCK) < 0) throw fail(fn, koffi.errno());
  }

  // Blocks until fd is readable (true) or ms pass (false).
  function readableSync(fd, ms, fn) {
    const p = Buffer.alloc(8);
    p.writeInt32LE(fd, 0);
    p.writeInt16LE(POLLIN, 4);
    const end = ms === Infinity ? Infinity : Date.now() + ms;
    for (;;) {
      const wait = end === Infinity ? -1 : Math.min(left(end), 0x7fffffff);
      const n = c.poll(p, 1, wait);
      if (n >= 0) return n > 0;
      const errno = koffi.errno();
      if (errno !== EINTR) throw fail(`${fn}: poll`, errno);
    }
  }

  // ---- the reactor: one async poll() at a time over the fds waited on ----
  const reactor = {
    waiting: new Map(),   // fd -> Set of waiters {fd, done, timer, owners}
    polling: null,        // the fds of the poll in flight, or null
    wake: -1,

    // A Promise of fd being readable (true) within ms (false after); woken
    // (true) at once when one of owners (Natives) is closed: the caller
    // then finds it closed (EBADF).
    readable(fd, ms, owners = []) {
      return new Promise((resolve) => {
        const w = { fd, timer: null, owners, done: (ok) => {
          for (const o of owners) o.waiters.delete(w);
          resolve(ok);
        } };
        for (const o of owners) o.waiters.add(w);
        if (ms !== Infinity) {
          w.timer = setTimeout(() => {
            this.remove(w);
            w.done(false);
          }, ms);
        }
        if (!this.waiting.has(fd)) this.waiting.set(fd, new Set());
        this.waiting.get(fd).add(w);
        if (this.polling && !this.polling.includes(fd)) this.kick();
        this.start();
      });
    },

    // Wakes the Promises waiting on fd (its channel was closed: each then
    // reads it, and rejects with EBADF).
    wakeAll(fd) {
      const set = this.waiting.get(fd);
      if (!set) return;
      this.waiting.delete(fd);
      for (const w of set) {
        if (w.timer) clearTimeout(w.timer);
        w.done(true);
      }
      if (this.polling) this.kick();
    },

    // Ends w's wait now (an object it waits on was closed).
    end(w) {
      this.remove(w);
      if (w.timer) clearTimeout(w.timer);
      w.done(true);
    },

    remove(w) {
      const set = this.waiting.get(w.fd);
      if (!set) return;
      set.delete(w);
      if (!set.size) this.waiting.delete(w.fd);
      if (this.polling && !this.waiting.size) this.kick();   // nothing left to wait for: free the thread
    },

    // Wakes the poll in flight (it starts again with the fds waited on now).
    kick() {
      const one = Buffer.alloc(8);
      one.writeBigUInt64LE(1n);
      c.write(this.wake, one, 8);
    },

    start() {
      if (this.polling || !this.waiting.size) return;
      if (this.wake < 0) {
        this.wake = c.eventfd(0, EFD_CLOEXEC);
        if (this.wake < 0) throw fail('eventfd', koffi.errno());
        nonblocking(this.wake, 'eventfd');
      }
      const fds = [this.wake, ...this.waiting.keys()];
      const p = Buffer.alloc(8 * fds.length);
      fds.forEach((fd, i) => {
        p.writeInt32LE(fd, 8 * i);
        p.writeInt16LE(POLLIN, 8 * i + 4);
      });
      this.polling = fds;
      c.poll.async(p, fds.length, -1, (err, n) => {
        this.polling = null;
        c.read(this.wake, Buffer.alloc(8), 8);   // drained (non-blocking)
        for (let i = 1; i < fds.length && (err || n > 0); i++) {
          // A failed call wakes every waiter: each reads its fd, and its
          // error, if any, is its own. (poll's own -1 is EINTR: again.)
          const revents = p.readInt16LE(8 * i + 6);
          if (!err && !(revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL))) continue;
          const set = this.waiting.get(fds[i]);
          if (!set) continue;
          this.waiting.delete(fds[i]);
          for (const w of set) {
            if (w.timer) clearTimeout(w.timer);
            w.done(true);
          }
        }
        this.start();
      });
    },
  };

  Object.assign(ctx, { c, POLLIN, deadline, left, nonblocking, readableSync, reactor });
};
