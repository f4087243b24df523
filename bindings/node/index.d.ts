// TypeScript declarations of the rdmaverbs package, its reference: the
// functions, structs and constants of api.js (api.d.ts, generated: each
// function throws RdmaVerbsError as its C function fails, api.js says how),
// what index.js adds to them, and the objects of objects/. Every function
// and method says what it throws (test/test.js checks that each has
// @throws, and that every export of the package is declared).
import type { Memory, Pointer, RawFunctions, ibv_wc, rdma_conn_param, ibv_qp_cap } from './api';

export * from './api';

/** A failed call: .syscall the C function, .errno (negative, as Node's
 * system errors) and .code ('EINVAL'); its message says them all, and what
 * else is known ('ibv_poll_cq: EBADF (errno 9, Bad file descriptor): the
 * CompletionQueue is closed'). */
export declare class RdmaVerbsError extends Error {
  /** @throws nothing. */
  constructor(fn: string, errno: number, detail?: string);
  readonly syscall: string;
  readonly errno: number;
  readonly code: string;
  /** postSend/postRecv: the index of the first work request not posted. */
  badIndex?: number;
}

/** An rdma_cm event other than the one awaited (or with a status), after
 * .syscall (rdma_connect, rdma_accept, rdma_resolve_addr, ...): .errno and
 * .code as RdmaVerbsError's (ECONNREFUSED for REJECTED; EHOSTUNREACH for
 * UNREACHABLE, ADDR_ERROR, ROUTE_ERROR; ECONNRESET for CONNECT_ERROR; a
 * negative status's own errno; EPROTO otherwise). */
export declare class RdmaCmEventError extends RdmaVerbsError {
  readonly event: number;
  readonly status: number;
  readonly want: number;
}

/** The functions as C has them, unchecked. */
export declare const raw: RawFunctions;
/** The structs and unions as koffi types, by name. */
export declare const types: Record<string, unknown>;
/** koffi itself (koffi.decode, koffi.address, ...). */
export declare const koffi: any;
/** The librdmaverbs this package loaded (RDMAVERBS_LIBRARY, or librdmaverbs.so.1). */
export declare const library: string;
/** The address each of librdmaverbs' functions is called at (dlvsym), by name. */
export declare const addresses: Record<string, bigint>;
/** The constants by name (each also an export of its own). */
export declare const constants: Record<string, number>;
/** This binding's layout lines: 'STRUCT sizeof N', 'STRUCT.FIELD offset N', 'NAME value N'.
 * @throws nothing. */
export declare function layout(): string[];

/** A 32-bit value's bytes swapped: host to network order (imm_data). @throws nothing. */
export declare function htonl(value: number): number;
/** A 32-bit value's bytes swapped: network to host order. @throws nothing. */
export declare function ntohl(value: number): number;

/** The C objects whose destroy failed (close() threw): kept for the rest of
 * the process, with what they hold (an MR's buffer) and depend on. */
export declare const leaked: ReadonlyArray<{ readonly kind: string; readonly ptr: bigint }>;

/** The bound of a Promise's wait, in milliseconds (undefined: none, as long as it takes). */
export interface Bounded {
  timeout?: number;
}

/** What every object has: close() and closed. A closed object's methods
 * throw RdmaVerbsError EBADF ('... is closed'), and every Promise pending on
 * it, or on an object its close closes, rejects so at once. */
export declare abstract class Closable {
  /** Closes the object (its C objects once nothing depends on them); again: nothing.
   * @throws RdmaVerbsError: a destroy's failure (the object closed all the same, its C object in leaked). */
  close(): void;
  readonly closed: boolean;
}

/** An SGE of the object API: an MR (all of it) or a part of one. */
export type Sge = MemoryRegion | { mr: MemoryRegion; offset?: number; length?: number };

/** A send work request (ibv_post_send); its MRs are held until its completion is reaped. */
export interface SendRequest {
  wrId?: number | bigint;
  sg?: Sge[];
  /** IBV_WR_* (IBV_WR_SEND by default). */
  opcode?: number;
  /** IBV_SEND_* flags. */
  flags?: number;
  /** Immediate data, in host order. */
  imm?: number;
  rdma?: { remoteAddr: number | bigint; rkey: number };
  atomic?: { remoteAddr: number | bigint; rkey: number; compareAdd?: number | bigint; swap?: number | bigint };
  ud?: { ah: Pointer; remoteQpn: number; remoteQkey: number };
}

/** A receive work request (ibv_post_recv, ibv_post_srq_recv). */
export interface RecvRequest {
  wrId?: number | bigint;
  sg?: Sge[];
}

/** A completion: struct ibv_wc's fields (imm_data in network order). */
export type Completion = ibv_wc;

/** The objects of a QP: those not given are made (and closed with the endpoint). */
export interface QpOptions {
  pd?: ProtectionDomain;
  sendCq?: CompletionQueue;
  recvCq?: CompletionQueue;
  srq?: SharedReceiveQueue | null;
  cap?: Partial<ibv_qp_cap>;
  /** IBV_QPT_RC by default. */
  qpType?: number;
  /** Every send signaled (true by default): each produces a completion;
   * false: only the sends posted with IBV_SEND_SIGNALED complete. */
  sqSigAll?: boolean;
}

export interface ConnectOptions extends QpOptions {
  /** struct rdma_conn_param's fields (responder_resources and initiator_depth 1, retry_count and rnr_retry_count 7 by default). */
  param?: Partial<rdma_conn_param>;
  /** The bound of each wait, in ms. */
  timeout?: number;
}

/** An rdma_cm event channel (rdma_create_event_channel), its fd non-blocking. */
export declare class EventChannel extends Closable {
  /** @throws RdmaVerbsError: rdma_create_event_channel's errno, or fcntl's. */
  constructor();
  readonly ptr: bigint;
  readonly fd: number;
  /** A new id on this channel (rdma_create_id; RDMA_PS_TCP by default).
   * @throws RdmaVerbsError: rdma_create_id's errno; EBADF closed. */
  createId(ps?: number): Endpoint;
}

/** An rdma_cm id with its QP. Each wait has a Promise form (never blocking
 * the event loop) and a NAMESync form (blocking); each Promise rejects with
 * what its Sync form throws. */
export declare class Endpoint extends Closable {
  /** An id made with the raw functions (its QP too): not destroyed by close(). @throws nothing. */
  static adopt(id: bigint): Endpoint;
  readonly id: bigint;
  readonly channel: EventChannel | null;
  /** The id's device context (id->verbs); reading it throws RdmaVerbsError EBADF once closed. */
  readonly context: bigint;
  readonly qp: bigint | null;
  readonly qpNum: number | null;
  pd: ProtectionDomain | null;
  sendCq: CompletionQueue | null;
  recvCq: CompletionQueue | null;
  srq: SharedReceiveQueue | null;
  /** The local and the peer's port, in host order; reading them throws RdmaVerbsError EBADF once closed. */
  readonly srcPort: number;
  readonly dstPort: number;
  /** Resolves host:port's address and route (each event awaited).
   * @throws RdmaVerbsError: rdma_getaddrinfo's, rdma_resolve_addr's or rdma_resolve_route's errno;
   * ETIMEDOUT; EBADF closed. RdmaCmEventError: ADDR_ERROR, ROUTE_ERROR (EHOSTUNREACH), ... */
  resolve(host: string, port: string | number, options?: Bounded): Promise<this>;
  /** @throws as resolve. */
  resolveSync(host: string, port: string | number, timeoutMs?: number): this;
  /** Binds to host:port and listens.
   * @throws RdmaVerbsError: rdma_getaddrinfo's, rdma_bind_addr's or rdma_listen's errno; EBADF closed. */
  listen(host: string, port: string | number, backlog?: number): this;
  /** A listener's next connection request: a new Endpoint, no QP yet.
   * @throws RdmaVerbsError: rdma_get_cm_event's errno; ETIMEDOUT; EBADF closed. RdmaCmEventError: another event. */
  getRequest(options?: Bounded): Promise<Endpoint>;
  /** @throws as getRequest. */
  getRequestSync(timeoutMs?: number): Endpoint;
  /** A listener's next connection, set up and accepted.
   * @throws as getRequest, setup and accept. */
  acceptNext(options?: ConnectOptions): Promise<Endpoint>;
  /** @throws as acceptNext. */
  acceptNextSync(options?: ConnectOptions): Endpoint;
  /** A listener's connection requests: each an endpoint set up (options),
   * not accepted yet (post its receives, then accept()); it ends when the
   * listener is closed.
   * @throws (from the iteration) as getRequest and setup, but EBADF for the listener closed, which ends it. */
  requests(options?: ConnectOptions): AsyncGenerator<Endpoint, void, undefined>;
  /** for await (const ep of listener): requests(). @throws as requests. */
  [Symbol.asyncIterator](): AsyncGenerator<Endpoint, void, undefined>;
  /** Makes the id's QP on these objects (rdma_create_qp); every send signaled unless sqSigAll is false.
   * @throws RdmaVerbsError: rdma_create_qp's errno; EINVAL a QP already; EBADF it or an object given closed. */
  createQp(options: QpOptions & { pd: ProtectionDomain; sendCq: CompletionQueue; recvCq: CompletionQueue }): this;
  /** The objects not given made (a PD, a completion channel, two CQs), then the QP.
   * @throws RdmaVerbsError: ibv_alloc_pd's, ibv_create_comp_channel's, ibv_create_cq's or rdma_create_qp's
   * errno (what it made closed again); EBADF closed. */
  setup(options?: QpOptions): this;
  /** rdma_connect, then ESTABLISHED.
   * @throws RdmaVerbsError: rdma_connect's errno; ETIMEDOUT; EBADF closed. RdmaCmEventError: REJECTED
   * (ECONNREFUSED), UNREACHABLE (EHOSTUNREACH), ... */
  connect(param?: Partial<rdma_conn_param>, options?: Bounded): Promise<this>;
  /** @throws as connect. */
  connectSync(param?: Partial<rdma_conn_param>, timeoutMs?: number): this;
  /** rdma_accept, then ESTABLISHED. @throws as connect, rdma_accept's errno. */
  accept(param?: Partial<rdma_conn_param>, options?: Bounded): Promise<this>;
  /** @throws as accept. */
  acceptSync(param?: Partial<rdma_conn_param>, timeoutMs?: number): this;
  /** rdma_disconnect, then DISCONNECTED.
   * @throws RdmaVerbsError: rdma_disconnect's errno; ETIMEDOUT; EBADF closed. RdmaCmEventError: another event. */
  disconnect(options?: Bounded): Promise<void>;
  /** @throws as disconnect. */
  disconnectSync(timeoutMs?: number): void;
  /** Waits for DISCONNECTED (the peer's rdma_disconnect).
   * @throws RdmaVerbsError: rdma_get_cm_event's errno; ETIMEDOUT; EBADF closed. RdmaCmEventError: another event. */
  disconnected(options?: Bounded): Promise<void>;
  /** @throws as disconnected. */
  disconnectedSync(timeoutMs?: number): void;
  /** An MR on the endpoint's PD (access: IBV_ACCESS_LOCAL_WRITE by default; with
   * IBV_ACCESS_REMOTE_READ | _WRITE | _ATOMIC, the peer's too), closed with the endpoint unless closed before.
   * @throws RdmaVerbsError: ibv_reg_mr_iova2's errno; EINVAL no QP (no PD) yet; EBADF closed. TypeError: not memory. */
  reg(buffer: ArrayBuffer | ArrayBufferView, access?: number): MemoryRegion;
  /** ibv_post_send of a work request or a list; their MRs held until their completions are reaped.
   * @throws RdmaVerbsError: ibv_post_send's errno (.badIndex: the first not posted); EINVAL no QP; EBADF it or
   * an MR closed. RangeError: an SGE outside its MR, or no request. TypeError: an SGE not an MR. */
  postSend(wrs: SendRequest | SendRequest[]): void;
  /** ibv_post_recv of a work request or a list (the QP's own receive queue). @throws as postSend, ibv_post_recv's. */
  postRecv(wrs: RecvRequest | RecvRequest[]): void;
}

/** ibv_alloc_pd on a context (or an Endpoint's: its id destroyed after the PD). */
export declare class ProtectionDomain extends Closable {
  /** @throws RdmaVerbsError: ibv_alloc_pd's errno; EBADF the endpoint closed. */
  constructor(context: bigint | Endpoint);
  readonly ptr: bigint;
  /** Registers buffer (ibv_reg_mr_iova2, iova its address; IBV_ACCESS_LOCAL_WRITE by default): an MR that holds it.
   * @throws RdmaVerbsError: ibv_reg_mr_iova2's errno; EBADF closed. TypeError: not a Buffer, typed array or ArrayBuffer. */
  reg(buffer: ArrayBuffer | ArrayBufferView, access?: number): MemoryRegion;
}

/** A registered buffer, held as long as the MR is registered. */
export declare class MemoryRegion extends Closable {
  /** An MR made with the raw functions, over buffer: held as any, not deregistered by close(). @throws nothing. */
  static adopt(ptr: bigint, buffer: ArrayBuffer | ArrayBufferView): MemoryRegion;
  readonly ptr: bigint;
  readonly buffer: ArrayBuffer | ArrayBufferView;
  readonly addr: bigint;
  readonly length: number;
  readonly lkey: number;
  readonly rkey: number;
  /** An SGE of length bytes at offset (the rest of the MR by default). @throws nothing (a post checks it). */
  sge(offset?: number, length?: number): { mr: MemoryRegion; offset: number; length: number };
}

/** ibv_create_comp_channel on a context (or an Endpoint's: its id destroyed after it), its fd non-blocking. */
export declare class CompletionChannel extends Closable {
  /** @throws RdmaVerbsError: ibv_create_comp_channel's errno, or fcntl's; EBADF the endpoint closed. */
  constructor(context: bigint | Endpoint);
  readonly ptr: bigint;
  readonly fd: number;
  /** The next completion event, already acknowledged: arm the CQ again, then poll it.
   * @throws RdmaVerbsError: ibv_get_cq_event's errno; ETIMEDOUT; EBADF closed. */
  getEvent(options?: Bounded): Promise<{ cq: CompletionQueue | bigint; context: Pointer }>;
  /** @throws as getEvent. */
  getEventSync(timeoutMs?: number): { cq: CompletionQueue | bigint; context: Pointer };
}

export interface CqOptions {
  /** Entries (16 by default). */
  cqe?: number;
  channel?: CompletionChannel | null;
  /** Its cq_context. */
  context?: Memory;
  compVector?: number;
}

/** ibv_create_cq on a context (or an Endpoint's: its id destroyed after the CQ). */
export declare class CompletionQueue extends Closable {
  /** @throws RdmaVerbsError: ibv_create_cq's errno; EBADF the endpoint closed. */
  constructor(context: bigint | Endpoint, options?: CqOptions);
  /** A CQ made with the raw functions: not destroyed by close(). @throws nothing. */
  static adopt(ptr: bigint): CompletionQueue;
  readonly ptr: bigint;
  readonly channel: CompletionChannel | null;
  /** Up to max (16) completions, without waiting; their work requests' holds released.
   * @throws RdmaVerbsError: ibv_poll_cq's errno; EBADF closed. */
  poll(max?: number): Completion[];
  /** Arms the CQ (ibv_req_notify_cq). @throws RdmaVerbsError: ibv_req_notify_cq's errno; EBADF closed. */
  reqNotify(solicitedOnly?: boolean): void;
  /** Exactly n completions, within the bound; never blocks the event loop.
   * @throws RdmaVerbsError: ibv_poll_cq's, ibv_req_notify_cq's or ibv_get_cq_event's errno; ETIMEDOUT;
   * EBADF it or its channel closed. */
  next(n: number, options?: Bounded): Promise<Completion[]>;
  /** @throws as next. */
  nextSync(n: number, timeoutMs?: number): Completion[];
}

/** ibv_create_srq on a PD. */
export declare class SharedReceiveQueue extends Closable {
  /** @throws RdmaVerbsError: ibv_create_srq's errno; EBADF the PD closed. */
  constructor(pd: ProtectionDomain, options?: { maxWr?: number; maxSge?: number; limit?: number });
  readonly ptr: bigint;
  /** ibv_post_srq_recv of a work request or a list. @throws as Endpoint.postRecv, ibv_post_srq_recv's. */
  postRecv(wrs: RecvRequest | RecvRequest[]): void;
}

/** An RC endpoint connected to host:port (its own event channel, PD, CQs and QP, closed with it).
 * @throws as createEndpoint and Endpoint.connect (what it made closed again). */
export declare function connect(host: string, port: string | number, options?: ConnectOptions): Promise<Endpoint>;
/** @throws as connect. */
export declare function connectSync(host: string, port: string | number, options?: ConnectOptions): Endpoint;
/** An RC endpoint for host:port, resolved and set up (its own event channel,
 * PD, CQs and QP, closed with it), not connected yet: post its receives,
 * then connect().
 * @throws RdmaVerbsError: rdma_create_event_channel's or rdma_create_id's errno, and as Endpoint.resolve and
 * setup (what it made closed again). */
export declare function createEndpoint(host: string, port: string | number, options?: ConnectOptions): Promise<Endpoint>;
/** @throws as createEndpoint. */
export declare function createEndpointSync(host: string, port: string | number, options?: ConnectOptions): Endpoint;
/** An endpoint listening on host:port, on its own event channel.
 * @throws RdmaVerbsError: rdma_create_event_channel's or rdma_create_id's errno, and as Endpoint.listen. */
export declare function listen(host: string, port: string | number, options?: { backlog?: number }): Endpoint;
