import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.rdmaverbs.Completion;
import org.rdmaverbs.Endpoint;
import org.rdmaverbs.EventChannel;
import org.rdmaverbs.Listener;
import org.rdmaverbs.RdmaVerbs;
import org.rdmaverbs.SendWork;

/** The verbs exchange of bindings/verbs-protocol.md through the Java
 * object API's CompletableFuture waits (resolveAsync, connectAsync,
 * getRequestAsync, acceptAsync, a CQ's awaitAsync and pollAsync,
 * disconnectAsync), its RoCE profile, as client against "peer verbs
 * server" and as server against "peer verbs client". Every step runs on one
 * thread (a single-threaded executor, the program's event loop) and no step
 * blocks it: a wait is a future, whose next step is queued on that thread
 * when it completes. A second task on the same thread, every millisecond,
 * counts how often it ran while a wait was pending; printed at the end:
 * "async: other task ran N times while waiting". The objects and checks are
 * VerbsObjects' (compiled with it).
 * Usage: VerbsAsync client|server ADDR PORT */
public final class VerbsAsync {
    static final int W = VerbsObjects.WAIT_MS, SLOT = VerbsObjects.SLOT;
    static final ScheduledExecutorService LOOP = Executors.newSingleThreadScheduledExecutor();
    static int waiting, ran;   // (on LOOP only)

    /** A step of the exchange: what it starts, or null (nothing to wait for). */
    interface Step {
        CompletableFuture<?> run() throws Exception;
    }

    /** Runs the steps on LOOP, each once the previous one's wait is over. */
    static CompletableFuture<Void> seq(Step... steps) {
        CompletableFuture<Void> f = CompletableFuture.completedFuture(null);
        for (Step s : steps) {
            f = f.thenComposeAsync(v -> {
                try {
                    CompletableFuture<?> w = s.run();
                    if (w == null) return CompletableFuture.completedFuture(null);
                    waiting++;
                    return w.handleAsync((x, e) -> {
                        waiting--;
                        if (e != null) throw new java.util.concurrent.CompletionException(e);
                        return null;
                    }, LOOP);
                } catch (Exception e) {
                    return CompletableFuture.failedFuture(e);
                }
            }, LOOP);
        }
        return f;
    }

    static Endpoint ep;
    static VerbsObjects.Side s;
    static List<Completion> wc;

    /** wrs posted in one list, their completions (of the send CQ) into wc. */
    static CompletableFuture<?> post(SendWork... wrs) throws Exception {
        s.qp.postSend(wrs);
        return s.scq.pollAsync(wrs.length, W).thenAccept(x -> wc = x);
    }

    /** The receive CQ's next event, the CQ armed again, one poll into wc. */
    static CompletableFuture<?> nextEvent(boolean solicitedOnly) {
        return s.rcq.awaitAsync(W).thenRun(() -> {
            try {
                s.rcq.arm(solicitedOnly);
                wc = s.rcq.poll(8);
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
    }

    static CompletableFuture<Void> client(String addr, int port) throws Exception {
        EventChannel events = new EventChannel();
        long[] keys = new long[2];
        CompletableFuture<Void> f = seq(
            () -> Endpoint.resolveAsync(events, addr, port, W).thenAccept(e -> ep = e),
            () -> {
                s = new VerbsObjects.Side(ep);
                s.rcq.arm(false);
                return ep.connectAsync(W);
            },
            () -> nextEvent(true),
            () -> {   // 1. keys
                VerbsObjects.check(wc.size() == 1, "the keys' event: " + wc.size() + " completions");
                VerbsObjects.completion(wc.get(0), 0x100, RdmaVerbs.IBV_WC_RECV, SLOT, RdmaVerbs.IBV_WC_GRH, 0, s.qp);
                ByteBuffer k = s.recv.buffer();
                keys[0] = k.getLong(0);
                keys[1] = k.getInt(8);
                VerbsObjects.check(k.getLong(16) == VerbsObjects.INITIAL, "the word's value is not the initial one");
                long word = keys[0];
                int rkey = (int) keys[1];
                return post(SendWork.fetchAdd(0x700, s.atom.sge(0, 8), word, rkey, VerbsObjects.ADD),
                            SendWork.compareSwap(0x701, s.atom.sge(8, 8), word, rkey,
                                                 VerbsObjects.INITIAL + VerbsObjects.ADD, VerbsObjects.SWAP),
                            SendWork.compareSwap(0x702, s.atom.sge(16, 8), word, rkey,
                                                 VerbsObjects.INITIAL + VerbsObjects.ADD, VerbsObjects.STALE_SWAP));
            },
            () -> {   // 2. the atomics' old values; 3. four sends
                VerbsObjects.completion(wc.get(0), 0x700, RdmaVerbs.IBV_WC_FETCH_ADD, 8, 0, 0, s.qp);
                VerbsObjects.completion(wc.get(1), 0x701, RdmaVerbs.IBV_WC_COMP_SWAP, 8, 0, 0, s.qp);
                VerbsObjects.completion(wc.get(2), 0x702, RdmaVerbs.IBV_WC_COMP_SWAP, 8, 0, 0, s.qp);
                ByteBuffer old = s.atom.buffer();
                VerbsObjects.check(old.getLong(0) == VerbsObjects.INITIAL
                                   && old.getLong(8) == VerbsObjects.INITIAL + VerbsObjects.ADD
                                   && old.getLong(16) == VerbsObjects.SWAP, "the atomics' old values are not the word's");
                SendWork[] sends = new SendWork[4];
                for (int k = 0; k < 4; k++) {
                    VerbsObjects.fill(s.send.buffer(), SLOT * k, SLOT, 0xc1, k);
                    sends[k] = SendWork.sendWithImm(0x300 + k, 0xc0de0000 + k, s.send.sge(SLOT * k, 16),
                                                    s.send.sge(SLOT * k + 16, SLOT - 16));
                }
                return post(sends);
            },
            () -> {
                for (int k = 0; k < 4; k++) {
                    VerbsObjects.completion(wc.get(k), 0x300 + k, RdmaVerbs.IBV_WC_SEND, SLOT, RdmaVerbs.IBV_WC_WITH_IMM,
                                            0, s.qp);
                }
                return nextEvent(false);   // 4. the server's five, at its solicited last
            },
            () -> {
                VerbsObjects.check(wc.size() == 5, "the solicited event: " + wc.size() + " completions, not 5");
                for (int k = 0; k < 5; k++) {
                    VerbsObjects.completion(wc.get(k), 0x101 + k, RdmaVerbs.IBV_WC_RECV, VerbsObjects.SERVER_LENS[k],
                                            RdmaVerbs.IBV_WC_GRH | RdmaVerbs.IBV_WC_WITH_IMM, 0x5e4d0000 + k, s.qp);
                    VerbsObjects.check(VerbsObjects.same(s.bytes(s.recv, SLOT * (1 + k), VerbsObjects.SERVER_LENS[k]),
                                                         0x51, k), "a message byte differs");
                }
                s.send.buffer().put(0, new byte[SLOT]).put(0, "DONE".getBytes(StandardCharsets.US_ASCII));
                return post(SendWork.send(0x500, s.send.sge(0, SLOT)));   // 5. DONE
            },
            () -> {
                VerbsObjects.completion(wc.get(0), 0x500, RdmaVerbs.IBV_WC_SEND, SLOT, 0, 0, s.qp);
                return nextEvent(false);
            },
            () -> {
                VerbsObjects.check(wc.size() == 1, "the DONE event: " + wc.size() + " completions");
                VerbsObjects.completion(wc.get(0), 0x106, RdmaVerbs.IBV_WC_RECV, SLOT, RdmaVerbs.IBV_WC_GRH, 0, s.qp);
                VerbsObjects.check(new String(s.bytes(s.recv, 6 * SLOT, 4), StandardCharsets.US_ASCII).equals("DONE")
                                   && s.recv.buffer().getLong(6 * SLOT + 8) == VerbsObjects.SWAP,
                                   "no DONE with the word's value");
                return ep.disconnectAsync(W);   // 6.
            },
            () -> {
                System.out.println("verbs: PASS role=client completions=15 bytes=248");
                return null;
            });
        return f.whenComplete((v, e) -> closeAll(events));
    }

    static CompletableFuture<Void> server(String addr, int port) throws Exception {
        EventChannel events = new EventChannel();
        Listener listener = Listener.listen(events, addr, port, 1);
        System.out.println("verbs: listening");
        System.out.flush();
        List<SendWork> five = new ArrayList<>();
        long[] word = new long[1];
        CompletableFuture<Void> f = seq(
            () -> listener.getRequestAsync(W).thenAccept(e -> ep = e),
            () -> {
                s = new VerbsObjects.Side(ep);
                s.atom.buffer().putLong(0, VerbsObjects.INITIAL);
                return ep.acceptAsync(W);
            },
            () -> {   // 1. keys
                s.send.buffer().putLong(0, s.atom.address()).putInt(8, s.atom.rkey()).putInt(12, 0)
                    .putLong(16, VerbsObjects.INITIAL);
                return post(SendWork.send(0x200, s.send.sge(0, SLOT)));
            },
            () -> {
                VerbsObjects.completion(wc.get(0), 0x200, RdmaVerbs.IBV_WC_SEND, SLOT, 0, 0, s.qp);
                return s.rcq.pollAsync(4, W).thenAccept(x -> wc = x);   // 3. the client's four sends
            },
            () -> {
                for (int k = 0; k < 4; k++) {
                    VerbsObjects.completion(wc.get(k), 0x100 + k, RdmaVerbs.IBV_WC_RECV, SLOT,
                                            RdmaVerbs.IBV_WC_GRH | RdmaVerbs.IBV_WC_WITH_IMM, 0xc0de0000 + k, s.qp);
                    VerbsObjects.check(VerbsObjects.same(s.bytes(s.recv, SLOT * k, SLOT), 0xc1, k), "a message byte differs");
                }
                for (int k = 0; k < 5; k++) {   // 4. five sends, the last solicited
                    VerbsObjects.fill(s.send.buffer(), SLOT * k, VerbsObjects.SERVER_LENS[k], 0x51, k);
                    five.add(SendWork.sendWithImm(0x300 + k, 0x5e4d0000 + k, s.send.sge(SLOT * k, VerbsObjects.SERVER_LENS[k])));
                }
                five.get(4).solicited();
                return post(five.toArray(new SendWork[0]));
            },
            () -> {
                for (int k = 0; k < 5; k++) {
                    VerbsObjects.completion(wc.get(k), 0x300 + k, RdmaVerbs.IBV_WC_SEND, VerbsObjects.SERVER_LENS[k],
                                            RdmaVerbs.IBV_WC_WITH_IMM, 0, s.qp);
                }
                return s.rcq.pollAsync(1, W).thenAccept(x -> wc = x);   // 5. DONE
            },
            () -> {
                VerbsObjects.completion(wc.get(0), 0x104, RdmaVerbs.IBV_WC_RECV, SLOT, RdmaVerbs.IBV_WC_GRH, 0, s.qp);
                VerbsObjects.check(new String(s.bytes(s.recv, 4 * SLOT, 4), StandardCharsets.US_ASCII).equals("DONE"),
                                   "no DONE");
                word[0] = s.atom.buffer().getLong(0);
                VerbsObjects.check(word[0] == VerbsObjects.SWAP, "the word is not the compare-and-swap's value");
                s.send.buffer().put(0, new byte[SLOT]).put(0, "DONE".getBytes(StandardCharsets.US_ASCII))
                    .putLong(8, word[0]);
                return post(SendWork.send(0x400, s.send.sge(0, SLOT)));
            },
            () -> {
                VerbsObjects.completion(wc.get(0), 0x400, RdmaVerbs.IBV_WC_SEND, SLOT, 0, 0, s.qp);
                return ep.awaitDisconnectAsync(W);   // 6. the client's disconnect
            },
            () -> {
                System.out.println("verbs: PASS role=server completions=12 word=0x" + Long.toHexString(word[0]));
                return null;
            });
        return f.whenComplete((v, e) -> closeAll(events));
    }

    /** Closes the channel, and with it the listener, the endpoint and what
     * was made on it, in the order C needs. */
    static void closeAll(EventChannel events) {
        try {
            events.close();
        } catch (Exception e) {
            System.err.println("verbs: close: " + e);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !(args[0].equals("client") || args[0].equals("server"))
            || VerbsObjects.IWARP) {
            System.err.println("usage: VerbsAsync client|server ADDR PORT (the RoCE profile only)");
            System.exit(2);
        }
        VerbsObjects.role = args[0];
        LOOP.scheduleAtFixedRate(() -> {
            if (waiting > 0) ran++;
        }, 1, 1, TimeUnit.MILLISECONDS);
        String addr = args[1];
        int port = Integer.parseInt(args[2]);
        CompletableFuture<Void> done = CompletableFuture.supplyAsync(() -> {
            try {
                return args[0].equals("client") ? client(addr, port) : server(addr, port);
            } catch (Exception e) {
                return CompletableFuture.<Void>failedFuture(e);
            }
        }, LOOP).thenCompose(f -> f);
        try {
            done.get(2L * W, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            System.err.println("verbs " + args[0] + ": " + e.getCause());
            System.exit(1);
        }
        int n = LOOP.submit(() -> ran).get();
        LOOP.shutdownNow();
        System.out.println("async: other task ran " + n + " times while waiting");
    }
}
