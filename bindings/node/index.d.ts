// TypeScript declarations of the rdmaverbs package: the functions, structs
// and constants of api.js (api.d.ts, generated), what index.js adds to
// them, and the objects of objects.js.
import type { Memory, Pointer, RawFunctions, ibv_wc, rdma_conn_param, ibv_qp_cap } from './api';

export * from './api';

/** A failed call: .syscall the function, .errno (negative, as Node's system errors) and .code ('EINVAL'). */
export declare class RdmaVerbsError extends Error {
  constructor(fn: string, errno: number);
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
export declare const constants: Record<string, number>;
/** This binding's layout lines: 'STRUCT sizeof N', 'STRUCT.FIELD offset N', 'NAME value N'. */
export declare function layout(): string[];

/** A 32-bit value's bytes swapped: host to network order and back (imm_data). */
export declare function htonl(value: number): number;
export declare function ntohl(value: number): number;

/** The C objects whose destroy failed (close() threw): kept for the rest of
 * the process, with what they hold (an MR's buffer) and depend on. */
export declare const leaked: ReadonlyArray<{ readonly kind: string; readonly ptr: bigint }>;

/** The bound of a Promise's wait, in milliseconds (undefined: none, as long as it takes). */
export interface Bounded {
  timeout?: number;
}

/** What every object has: close() (its C objects once nothing depends on them; again: nothing). */
export declare abstract class Closable {
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
  constructor();
  readonly ptr: bigint;
  readonly fd: number;
  /** A new id on this channel (rdma_create_id; RDMA_PS_TCP by default). */
  createId(ps?: number): Endpoint;
}

/** An rdma_cm id with its QP. */
export declare class Endpoint extends Closable {
  /** An id made with the raw functions (its QP too): not destroyed by close(). */
  static adopt(id: bigint): Endpoint;
  readonly id: bigint;
  readonly channel: EventChannel | null;
  /** The id's device context (id->verbs). */
  readonly context: bigint;
  readonly qp: bigint | null;
  readonly qpNum: number | null;
  pd: ProtectionDomain | null;
  sendCq: CompletionQueue | null;
  recvCq: CompletionQueue | null;
  srq: SharedReceiveQueue | null;
  /** The local and the peer's port, in host order. */
  readonly srcPort: number;
  readonly dstPort: number;
  /** Resolves host:port's address and route (each event awaited). */
  resolve(host: string, port: string | number, options?: Bounded): Promise<this>;
  resolveSync(host: string, port: string | number, timeoutMs?: number): this;
  /** Binds to host:port and listens. */
  listen(host: string, port: string | number, backlog?: number): this;
  /** A listener's next connection request: a new Endpoint, no QP yet. */
  getRequest(options?: Bounded): Promise<Endpoint>;
  getRequestSync(timeoutMs?: number): Endpoint;
  /** A listener's next connection, set up and accepted. */
  acceptNext(options?: ConnectOptions): Promise<Endpoint>;
  acceptNextSync(options?: ConnectOptions): Endpoint;
  /** A listener's connection requests: each an endpoint set up (options),
   * not accepted yet (post its receives, then accept()); it ends when the
   * listener is closed. */
  requests(options?: ConnectOptions): AsyncGenerator<Endpoint, void, undefined>;
  /** for await (const ep of listener): requests(). */
  [Symbol.asyncIterator](): AsyncGenerator<Endpoint, void, undefined>;
  /** Makes the id's QP on these objects (rdma_create_qp). */
  createQp(options: QpOptions & { pd: ProtectionDomain; sendCq: CompletionQueue; recvCq: CompletionQueue }): this;
  /** The objects not given made, then the QP. */
  setup(options?: QpOptions): this;
  connect(param?: Partial<rdma_conn_param>, options?: Bounded): Promise<this>;
  connectSync(param?: Partial<rdma_conn_param>, timeoutMs?: number): this;
  accept(param?: Partial<rdma_conn_param>, options?: Bounded): Promise<this>;
  acceptSync(param?: Partial<rdma_conn_param>, timeoutMs?: number): this;
  /** rdma_disconnect, then DISCONNECTED. */
  disconnect(options?: Bounded): Promise<void>;
  disconnectSync(timeoutMs?: number): void;
  /** Waits for DISCONNECTED (the peer's rdma_disconnect). */
  disconnected(options?: Bounded): Promise<void>;
  disconnectedSync(timeoutMs?: number): void;
  /** An MR on the endpoint's PD, closed with the endpoint unless closed before. */
  reg(buffer: ArrayBuffer | ArrayBufferView, access?: number): MemoryRegion;
  postSend(wrs: SendRequest | SendRequest[]): void;
  postRecv(wrs: RecvRequest | RecvRequest[]): void;
}

/** ibv_alloc_pd on a context (or an Endpoint's: its id destroyed after the PD). */
export declare class ProtectionDomain extends Closable {
  constructor(context: bigint | Endpoint);
  readonly ptr: bigint;
  /** Registers buffer (ibv_reg_mr_iova2, iova its address; IBV_ACCESS_LOCAL_WRITE by default): an MR that holds it. */
  reg(buffer: ArrayBuffer | ArrayBufferView, access?: number): MemoryRegion;
}

/** A registered buffer, held as long as the MR is registered. */
export declare class MemoryRegion extends Closable {
  /** An MR made with the raw functions, over buffer: held as any, not deregistered by close(). */
  static adopt(ptr: bigint, buffer: ArrayBuffer | ArrayBufferView): MemoryRegion;
  readonly ptr: bigint;
  readonly buffer: ArrayBuffer | ArrayBufferView;
  readonly addr: bigint;
  readonly length: number;
  readonly lkey: number;
  readonly rkey: number;
  /** An SGE of length bytes at offset (the rest of the MR by default). */
  sge(offset?: number, length?: number): { mr: MemoryRegion; offset: number; length: number };
}

/** ibv_create_comp_channel on a context (or an Endpoint's: its id destroyed after it), its fd non-blocking. */
export declare class CompletionChannel extends Closable {
  constructor(context: bigint | Endpoint);
  readonly ptr: bigint;
  readonly fd: number;
  /** The next completion event, already acknowledged: arm the CQ again, then poll it. */
  getEvent(options?: Bounded): Promise<{ cq: CompletionQueue | bigint; context: Pointer }>;
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
  constructor(context: bigint | Endpoint, options?: CqOptions);
  /** A CQ made with the raw functions: not destroyed by close(). */
  static adopt(ptr: bigint): CompletionQueue;
  readonly ptr: bigint;
  readonly channel: CompletionChannel | null;
  /** Up to max (16) completions, without waiting; their work requests' holds released. */
  poll(max?: number): Completion[];
  /** Arms the CQ (ibv_req_notify_cq). */
  reqNotify(solicitedOnly?: boolean): void;
  /** Exactly n completions, within the bound (ETIMEDOUT after); never blocks the event loop. */
  next(n: number, options?: Bounded): Promise<Completion[]>;
  nextSync(n: number, timeoutMs?: number): Completion[];
}

/** ibv_create_srq on a PD. */
export declare class SharedReceiveQueue extends Closable {
  constructor(pd: ProtectionDomain, options?: { maxWr?: number; maxSge?: number; limit?: number });
  readonly ptr: bigint;
  postRecv(wrs: RecvRequest | RecvRequest[]): void;
}

/** An RC endpoint connected to host:port (its own event channel, PD, CQs and QP, closed with it). */
export declare function connect(host: string, port: string | number, options?: ConnectOptions): Promise<Endpoint>;
export declare function connectSync(host: string, port: string | number, options?: ConnectOptions): Endpoint;
/** An RC endpoint for host:port, resolved and set up (its own event channel,
 * PD, CQs and QP, closed with it), not connected yet: post its receives,
 * then connect(). */
export declare function createEndpoint(host: string, port: string | number, options?: ConnectOptions): Promise<Endpoint>;
export declare function createEndpointSync(host: string, port: string | number, options?: ConnectOptions): Endpoint;
/** An endpoint listening on host:port, on its own event channel. */
export declare function listen(host: string, port: string | number, options?: { backlog?: number }): Endpoint;
