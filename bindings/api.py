"""The one description of what the bindings give, beside the library's own
exports, which abi/exports.tsv lists with their C signatures (generated
from abi/src/table.rs, the library's one table of functions).

describe.py reads both; each language's emit.py turns them into its
declarations (generate.py writes them), and describe.py into a C
program that prints, from the system headers, the size of every struct
and union, the offset of every field and the value of every constant: each
binding's test compares its own with them (layouts are checked, never
trusted).
"""

# librdmacm's functions of a connection's set-up and teardown, as its
# header declares them; every one is an exported symbol of librdmacm.so.1
# (the bindings' tests check it with the dynamic symbol table): the
# rdma_create_ep form, and the event-driven one (an event channel, an id,
# address and route resolution, the id's QP on the program's own CQs).
CM_FUNCTIONS = """
int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints, struct rdma_addrinfo **res);
void rdma_freeaddrinfo(struct rdma_addrinfo *res);
int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr);
void rdma_destroy_ep(struct rdma_cm_id *id);
int rdma_listen(struct rdma_cm_id *id, int backlog);
int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id);
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param);
int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param);
int rdma_disconnect(struct rdma_cm_id *id);
__be16 rdma_get_src_port(struct rdma_cm_id *id);
__be16 rdma_get_dst_port(struct rdma_cm_id *id);
struct rdma_event_channel *rdma_create_event_channel(void);
void rdma_destroy_event_channel(struct rdma_event_channel *channel);
int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context, enum rdma_port_space ps);
int rdma_destroy_id(struct rdma_cm_id *id);
int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr);
int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr, int timeout_ms);
int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms);
int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event);
int rdma_ack_cm_event(struct rdma_cm_event *event);
const char *rdma_event_str(enum rdma_cm_event_type event);
int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr);
void rdma_destroy_qp(struct rdma_cm_id *id);
"""

# libibverbs' functions, as its header declares them (an enum as its
# 32-bit value); each an exported symbol of libibverbs.so.1, checked as
# librdmacm's are: a completion channel and the wait on it, the objects a
# program makes on a context (PD, CQs, SRQ, address handle, MR). (Its
# static inline functions, ibv_post_send and ibv_req_notify_cq among them,
# have no symbol there: they are librdmaverbs' exports at RDMAVERBS_1.3.)
VERBS_FUNCTIONS = """
const char *ibv_wc_status_str(enum ibv_wc_status status);
struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context);
int ibv_destroy_comp_channel(struct ibv_comp_channel *channel);
int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context);
void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents);
struct ibv_pd *ibv_alloc_pd(struct ibv_context *context);
int ibv_dealloc_pd(struct ibv_pd *pd);
struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context, struct ibv_comp_channel *channel, int comp_vector);
int ibv_destroy_cq(struct ibv_cq *cq);
struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr);
int ibv_destroy_srq(struct ibv_srq *srq);
struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int ibv_destroy_ah(struct ibv_ah *ah);
struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access);
int ibv_dereg_mr(struct ibv_mr *mr);
"""

# How a failure shows, for the functions that do not follow the rule
# describe.py applies (Fn.error): a pointer is NULL with errno set; an int of
# librdmacm (rdma_*) is -1 with errno set; an int of libibverbs or of
# verbs.h (ibv_*, and the RDMAVERBS_1.3 exports) is 0 or the errno value
# itself, errno left alone (ibv_post_send, ibv_dealloc_pd, ...); anything
# else cannot fail. Kinds: "int" (a negative value, the errno left),
# "errno" (a value other than 0 is the errno), "neg" (a negative value is
# minus the errno), "ptr" (NULL, the errno left), None (returned as it is:
# it cannot fail, or its value is a result to read, as ibv_start_poll's
# ENOENT: nothing to poll). ibv_poll_cq's negative value is the provider's
# own, not an errno: the errno it left is all there is.
ERRORS = {
    "ibv_get_cq_event": "int",
    "ibv_poll_cq": "int",
    "ibv_query_gid_table": "neg",
    "ibv_start_poll": None,
    "ibv_next_poll": None,
    "ibv_is_qpt_supported": None,
    "ibv_cq_ex_to_cq": None,
}

# A parameter that points to the first of an array of structs, and the
# parameter that counts them, where a function has both (a "wc" without a
# "num_entries" is one struct). Each binding takes an ordinary array of its
# language there, copied into contiguous C memory if its FFI does not lay
# it out so (and, for an array C fills, ibv_poll_cq's, copied back), and
# refuses a count larger than the array with its own error (C would read
# or write past the array).
ARRAYS = {"sgl": "nsge", "sg_list": "num_sge", "wc": "num_entries"}

# The functions whose value is in network byte order (__be16, every one:
# generate.py checks it), each with the name of the function each binding
# adds beside it, which returns the value in host order. The C function
# stays as C has it, so documented.
HOST_ORDER = {"rdma_get_src_port": "src_port", "rdma_get_dst_port": "dst_port"}

# What each binding's documentation says of a function beyond its C
# declaration.
NOTES = {
    "rdma_get_src_port": "the local port in network byte order (src_port: in host order)",
    "rdma_get_dst_port": "the peer's port in network byte order (dst_port: in host order)",
    "ibv_wc_status_str": "the text of a completion's status, from libibverbs "
                         "(\"unknown\" for a value it does not know)",
    "ibv_poll_cq": "up to num_entries completions into the array wc: how many; a negative "
                   "value (the provider's) is a failure, with the errno left",
    "ibv_req_notify_cq": "arms the CQ: the next completion (solicited_only: the next solicited "
                         "one) makes an event on its completion channel",
    "ibv_get_cq_event": "waits for an event on the channel: the CQ and its cq_context; "
                        "each event is acknowledged (ibv_ack_cq_events) before the CQ is destroyed",
    "ibv_start_poll": "0, ENOENT (nothing to poll) or an errno value, returned as it is",
    "ibv_next_poll": "0, ENOENT (no more) or an errno value, returned as it is",
    "rdma_get_cm_event": "waits for the channel's next event; each is acknowledged "
                         "(rdma_ack_cm_event) before its id is destroyed",
}

# The types a program fills, reads or passes an array of, dependencies
# first: (NAME, [(field, type)]) in the C order, every field (so that the
# binding's size is the header's). NAME is `name` (struct name), `union
# name`, or a member's path `root.member[.member]` (prefixed `union ` for
# a union) for a struct or union declared inside another, which has no C
# name: the bindings call it root_member (ibv_send_wr.wr is
# ibv_send_wr_wr). Field types: int, uint8_t, uint16_t, uint32_t,
# uint64_t, size_t, ptr (any pointer), uint8_t[N] (bytes the binding does
# not name), struct NAME or union NAME (a type of this list, by value, by
# the bindings' name). Enums are uint32_t, as their values are. An
# anonymous union is its first member, the largest (the struct's size is
# checked); its other members are ALIASES.
STRUCTS = [
    ("ibv_sge", [("addr", "uint64_t"), ("length", "uint32_t"), ("lkey", "uint32_t")]),
    ("ibv_wc", [
        ("wr_id", "uint64_t"), ("status", "uint32_t"), ("opcode", "uint32_t"),
        ("vendor_err", "uint32_t"), ("byte_len", "uint32_t"), ("imm_data", "uint32_t"),
        ("qp_num", "uint32_t"), ("src_qp", "uint32_t"), ("wc_flags", "uint32_t"),
        ("pkey_index", "uint16_t"), ("slid", "uint16_t"), ("sl", "uint8_t"),
        ("dlid_path_bits", "uint8_t"),
    ]),
    ("rdma_addrinfo", [
        ("ai_flags", "int"), ("ai_family", "int"), ("ai_qp_type", "int"),
        ("ai_port_space", "int"), ("ai_src_len", "uint32_t"), ("ai_dst_len", "uint32_t"),
        ("ai_src_addr", "ptr"), ("ai_dst_addr", "ptr"), ("ai_src_canonname", "ptr"),
        ("ai_dst_canonname", "ptr"), ("ai_route_len", "size_t"), ("ai_route", "ptr"),
        ("ai_connect_len", "size_t"), ("ai_connect", "ptr"), ("ai_next", "ptr"),
    ]),
    ("ibv_qp_cap", [
        ("max_send_wr", "uint32_t"), ("max_recv_wr", "uint32_t"), ("max_send_sge", "uint32_t"),
        ("max_recv_sge", "uint32_t"), ("max_inline_data", "uint32_t"),
    ]),
    ("ibv_qp_init_attr", [
        ("qp_context", "ptr"), ("send_cq", "ptr"), ("recv_cq", "ptr"), ("srq", "ptr"),
        ("cap", "struct ibv_qp_cap"), ("qp_type", "uint32_t"), ("sq_sig_all", "int"),
    ]),
    ("rdma_conn_param", [
        ("private_data", "ptr"), ("private_data_len", "uint8_t"),
        ("responder_resources", "uint8_t"), ("initiator_depth", "uint8_t"),
        ("flow_control", "uint8_t"), ("retry_count", "uint8_t"), ("rnr_retry_count", "uint8_t"),
        ("srq", "uint8_t"), ("qp_num", "uint32_t"),
    ]),
    ("ibv_mr", [
        ("context", "ptr"), ("pd", "ptr"), ("addr", "ptr"), ("length", "size_t"),
        ("handle", "uint32_t"), ("lkey", "uint32_t"), ("rkey", "uint32_t"),
    ]),
    # The fields of an id a program reads (its QP, CQs, PD ...); the route
    # is bytes here (rdma_get_local_addr and rdma_get_peer_addr point into
    # it).
    ("rdma_cm_id", [
        ("verbs", "ptr"), ("channel", "ptr"), ("context", "ptr"), ("qp", "ptr"),
        ("route", "uint8_t[312]"), ("ps", "uint32_t"), ("port_num", "uint8_t"), ("event", "ptr"),
        ("send_cq_channel", "ptr"), ("send_cq", "ptr"), ("recv_cq_channel", "ptr"),
        ("recv_cq", "ptr"), ("srq", "ptr"), ("pd", "ptr"), ("qp_type", "uint32_t"),
    ]),
    # What rdma_get_local_addr and rdma_get_peer_addr point to, for IPv4
    # (network byte order: sin_port and sin_addr as the bytes are).
    ("sockaddr_in", [
        ("sin_family", "uint16_t"), ("sin_port", "uint16_t"), ("sin_addr", "uint32_t"),
        ("sin_zero", "uint8_t[8]"),
    ]),
    # A send work request (ibv_post_send): its anonymous union of imm_data
    # (network byte order) and invalidate_rkey is imm_data; the wr union
    # (rdma, atomic, ud) and the qp_type union (xrc) are unions; the last
    # anonymous union, of bind_mw and tso, is bind_mw.
    ("ibv_mw_bind_info", [
        ("mr", "ptr"), ("addr", "uint64_t"), ("length", "uint64_t"), ("mw_access_flags", "uint32_t"),
    ]),
    ("ibv_send_wr.wr.rdma", [("remote_addr", "uint64_t"), ("rkey", "uint32_t")]),
    ("ibv_send_wr.wr.atomic", [
        ("remote_addr", "uint64_t"), ("compare_add", "uint64_t"), ("swap", "uint64_t"),
        ("rkey", "uint32_t"),
    ]),
    ("ibv_send_wr.wr.ud", [("ah", "ptr"), ("remote_qpn", "uint32_t"), ("remote_qkey", "uint32_t")]),
    ("union ibv_send_wr.wr", [
        ("rdma", "struct ibv_send_wr_wr_rdma"), ("atomic", "struct ibv_send_wr_wr_atomic"),
        ("ud", "struct ibv_send_wr_wr_ud"),
    ]),
    ("ibv_send_wr.qp_type.xrc", [("remote_srqn", "uint32_t")]),
    ("union ibv_send_wr.qp_type", [("xrc", "struct ibv_send_wr_qp_type_xrc")]),
    ("ibv_send_wr.bind_mw", [
        ("mw", "ptr"), ("rkey", "uint32_t"), ("bind_info", "struct ibv_mw_bind_info"),
    ]),
    ("ibv_send_wr", [
        ("wr_id", "uint64_t"), ("next", "ptr"), ("sg_list", "ptr"), ("num_sge", "int"),
        ("opcode", "uint32_t"), ("send_flags", "uint32_t"), ("imm_data", "uint32_t"),
        ("wr", "union ibv_send_wr_wr"), ("qp_type", "union ibv_send_wr_qp_type"),
        ("bind_mw", "struct ibv_send_wr_bind_mw"),
    ]),
    ("ibv_recv_wr", [("wr_id", "uint64_t"), ("next", "ptr"), ("sg_list", "ptr"), ("num_sge", "int")]),
    ("ibv_srq_attr", [("max_wr", "uint32_t"), ("max_sge", "uint32_t"), ("srq_limit", "uint32_t")]),
    ("ibv_srq_init_attr", [("srq_context", "ptr"), ("attr", "struct ibv_srq_attr")]),
    # An address handle's attributes (ibv_create_ah; a UD peer's, as
    # rdma_cm's event gives them in param.ud.ah_attr).
    ("ibv_gid.global", [("subnet_prefix", "uint64_t"), ("interface_id", "uint64_t")]),
    ("union ibv_gid", [("raw", "uint8_t[16]"), ("global", "struct ibv_gid_global")]),
    ("ibv_global_route", [
        ("dgid", "union ibv_gid"), ("flow_label", "uint32_t"), ("sgid_index", "uint8_t"),
        ("hop_limit", "uint8_t"), ("traffic_class", "uint8_t"),
    ]),
    ("ibv_ah_attr", [
        ("grh", "struct ibv_global_route"), ("dlid", "uint16_t"), ("sl", "uint8_t"),
        ("src_path_bits", "uint8_t"), ("static_rate", "uint8_t"), ("is_global", "uint8_t"),
        ("port_num", "uint8_t"),
    ]),
    # An event of rdma_get_cm_event: its param union (conn, ud).
    ("rdma_ud_param", [
        ("private_data", "ptr"), ("private_data_len", "uint8_t"), ("ah_attr", "struct ibv_ah_attr"),
        ("qp_num", "uint32_t"), ("qkey", "uint32_t"),
    ]),
    ("union rdma_cm_event.param", [("conn", "struct rdma_conn_param"), ("ud", "struct rdma_ud_param")]),
    ("rdma_cm_event", [
        ("id", "ptr"), ("listen_id", "ptr"), ("event", "uint32_t"), ("status", "int"),
        ("param", "union rdma_cm_event_param"),
    ]),
    # The channels' file descriptors (for poll, select, an event loop), and
    # a QP's number (id->qp->qp_num); a mutex and a condition variable are
    # bytes.
    ("rdma_event_channel", [("fd", "int")]),
    ("ibv_comp_channel", [("context", "ptr"), ("fd", "int"), ("refcnt", "int")]),
    ("ibv_qp", [
        ("context", "ptr"), ("qp_context", "ptr"), ("pd", "ptr"), ("send_cq", "ptr"),
        ("recv_cq", "ptr"), ("srq", "ptr"), ("handle", "uint32_t"), ("qp_num", "uint32_t"),
        ("state", "uint32_t"), ("qp_type", "uint32_t"), ("mutex", "uint8_t[40]"),
        ("cond", "uint8_t[48]"), ("events_completed", "uint32_t"),
    ]),
]

# The other members of an anonymous union, each at its first member's
# offset and no larger (the layout program asserts both, from the system
# headers): (struct, member, the field that holds it).
ALIASES = [
    ("ibv_wc", "invalidated_rkey", "imm_data"),
    ("ibv_send_wr", "invalidate_rkey", "imm_data"),
    ("ibv_send_wr", "tso", "bind_mw"),
]

# Enumerations bound whole: every name of the system header's enum, in its
# order (generate.py fails when the header has a name this list has not,
# or the reverse). The values, as the constants' below, are the header's.
ENUMS = {
    "ibv_wc_status": [
        "IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_LOC_EEC_OP_ERR",
        "IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR",
        "IBV_WC_LOC_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR",
        "IBV_WC_REM_OP_ERR", "IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR",
        "IBV_WC_LOC_RDD_VIOL_ERR", "IBV_WC_REM_INV_RD_REQ_ERR", "IBV_WC_REM_ABORT_ERR",
        "IBV_WC_INV_EECN_ERR", "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
        "IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR", "IBV_WC_TM_ERR",
        "IBV_WC_TM_RNDV_INCOMPLETE",
    ],
    "ibv_send_flags": [
        "IBV_SEND_FENCE", "IBV_SEND_SIGNALED", "IBV_SEND_SOLICITED", "IBV_SEND_INLINE",
        "IBV_SEND_IP_CSUM",
    ],
    "ibv_wc_opcode": [
        "IBV_WC_SEND", "IBV_WC_RDMA_WRITE", "IBV_WC_RDMA_READ", "IBV_WC_COMP_SWAP",
        "IBV_WC_FETCH_ADD", "IBV_WC_BIND_MW", "IBV_WC_LOCAL_INV", "IBV_WC_TSO", "IBV_WC_FLUSH",
        "IBV_WC_ATOMIC_WRITE", "IBV_WC_RECV", "IBV_WC_RECV_RDMA_WITH_IMM", "IBV_WC_TM_ADD",
        "IBV_WC_TM_DEL", "IBV_WC_TM_SYNC", "IBV_WC_TM_RECV", "IBV_WC_TM_NO_TAG",
        "IBV_WC_DRIVER1", "IBV_WC_DRIVER2", "IBV_WC_DRIVER3",
    ],
    "ibv_wc_flags": [
        "IBV_WC_GRH", "IBV_WC_WITH_IMM", "IBV_WC_IP_CSUM_OK", "IBV_WC_WITH_INV",
        "IBV_WC_TM_SYNC_REQ", "IBV_WC_TM_MATCH", "IBV_WC_TM_DATA_VALID",
    ],
    "ibv_wr_opcode": [
        "IBV_WR_RDMA_WRITE", "IBV_WR_RDMA_WRITE_WITH_IMM", "IBV_WR_SEND", "IBV_WR_SEND_WITH_IMM",
        "IBV_WR_RDMA_READ", "IBV_WR_ATOMIC_CMP_AND_SWP", "IBV_WR_ATOMIC_FETCH_AND_ADD",
        "IBV_WR_LOCAL_INV", "IBV_WR_BIND_MW", "IBV_WR_SEND_WITH_INV", "IBV_WR_TSO",
        "IBV_WR_DRIVER1", "IBV_WR_FLUSH", "IBV_WR_ATOMIC_WRITE",
    ],
    "ibv_access_flags": [
        "IBV_ACCESS_LOCAL_WRITE", "IBV_ACCESS_REMOTE_WRITE", "IBV_ACCESS_REMOTE_READ",
        "IBV_ACCESS_REMOTE_ATOMIC", "IBV_ACCESS_MW_BIND", "IBV_ACCESS_ZERO_BASED",
        "IBV_ACCESS_ON_DEMAND", "IBV_ACCESS_HUGETLB", "IBV_ACCESS_FLUSH_GLOBAL",
        "IBV_ACCESS_FLUSH_PERSISTENT", "IBV_ACCESS_RELAXED_ORDERING",
    ],
    "ibv_qp_type": [
        "IBV_QPT_RC", "IBV_QPT_UC", "IBV_QPT_UD", "IBV_QPT_RAW_PACKET", "IBV_QPT_XRC_SEND",
        "IBV_QPT_XRC_RECV", "IBV_QPT_DRIVER",
    ],
    "rdma_port_space": ["RDMA_PS_IPOIB", "RDMA_PS_TCP", "RDMA_PS_UDP", "RDMA_PS_IB"],
    "rdma_cm_event_type": [
        "RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR", "RDMA_CM_EVENT_ROUTE_RESOLVED",
        "RDMA_CM_EVENT_ROUTE_ERROR", "RDMA_CM_EVENT_CONNECT_REQUEST",
        "RDMA_CM_EVENT_CONNECT_RESPONSE", "RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE",
        "RDMA_CM_EVENT_REJECTED", "RDMA_CM_EVENT_ESTABLISHED", "RDMA_CM_EVENT_DISCONNECTED",
        "RDMA_CM_EVENT_DEVICE_REMOVAL", "RDMA_CM_EVENT_MULTICAST_JOIN",
        "RDMA_CM_EVENT_MULTICAST_ERROR", "RDMA_CM_EVENT_ADDR_CHANGE",
        "RDMA_CM_EVENT_TIMEWAIT_EXIT", "RDMA_CM_EVENT_ADDRINFO_RESOLVED",
        "RDMA_CM_EVENT_ADDRINFO_ERROR", "RDMA_CM_EVENT_USER", "RDMA_CM_EVENT_INTERNAL",
    ],
}

# The enumerators of ENUMS that an rdma-core release later than the oldest
# the library is proven on (describe.py's OLDEST_RDMA_CORE) brought, each
# with that release and its value: a header older than the release lacks
# the name, and the bindings declare it with this value all the same (the
# value is an ABI's, fixed once released). Where the system header has it,
# generate.py checks the value is the header's; an enumerator of the header
# that ENUMS lacks, or one that ENUMS has and neither the header nor this
# table, fails it.
LATER = {
    "IBV_WC_DRIVER2": (36, 136),
    "IBV_WC_DRIVER3": (37, 137),
    "IBV_WC_ATOMIC_WRITE": (44, 9),
    "IBV_WR_ATOMIC_WRITE": (44, 15),
    "IBV_WC_FLUSH": (45, 8),
    "IBV_WR_FLUSH": (45, 14),
    "IBV_ACCESS_FLUSH_GLOBAL": (45, 1 << 8),
    "IBV_ACCESS_FLUSH_PERSISTENT": (45, 1 << 9),
    "RDMA_CM_EVENT_ADDRINFO_RESOLVED": (60, 16),
    "RDMA_CM_EVENT_ADDRINFO_ERROR": (60, 17),
    "RDMA_CM_EVENT_USER": (60, 18),
    "RDMA_CM_EVENT_INTERNAL": (60, 19),
}

# The other constants a program needs, by their C names: RAI_PASSIVE,
# rdma_cm's qkey of its UD QPs, the address families, the errno values its
# calls return or set (ENOENT: ibv_start_poll's nothing to poll). Their
# values, and the enums' (but those of LATER a header lacks), are taken
# from the system headers when the bindings are generated, and checked
# again at test time.
CONSTANTS = [name for names in ENUMS.values() for name in names] + [
    "RAI_PASSIVE", "RDMA_UDP_QKEY", "AF_INET", "AF_INET6", "EINVAL", "ETIMEDOUT", "ENOMEM",
    "EIO", "ENOENT", "EAGAIN", "EBUSY", "EOPNOTSUPP",
]

# The structs that a function takes a pointer to as the struct itself (to
# fill in, read back, or an array of), rather than as an object of
# librdmacm's or libibverbs' (an id, an MR, a QP, an event) that the
# program only hands on (and may read through the type of this list it
# points to: rdma_cm_event, ibv_comp_channel ...). A const one is the
# struct when this list has it (rdma_getaddrinfo's hints).
BY_POINTER = ["ibv_wc", "ibv_sge", "ibv_qp_init_attr", "rdma_conn_param", "ibv_send_wr",
              "ibv_recv_wr", "ibv_srq_init_attr", "ibv_ah_attr"]

# The structs C writes into through a pointer (the bindings copy them
# back: an out parameter, an output array).
OUT = ["ibv_wc"]
