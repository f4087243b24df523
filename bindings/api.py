"""The one description of what the bindings give, beside the library's own
exports, which c-tests/functions.h lists with their C signatures (generated
from abi/src/functions.rs, the library's one table of functions).

generate.py turns both into each language's declarations, and into a C
program that prints, from the system headers, the size of every struct,
the offset of every field and the value of every constant: each binding's
test compares its own with them (layouts are checked, never trusted).
"""

# librdmacm's functions of a connection's set-up and teardown, as its
# header declares them; every one is an exported symbol of librdmacm.so.1
# (the bindings' tests check it with the dynamic symbol table).
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
"""

# libibverbs' functions, as its header declares them (an enum as its
# 32-bit value); each an exported symbol of libibverbs.so.1, checked as
# librdmacm's are. (Its static inline functions, ibv_req_notify_cq among
# them, have no symbol: no binding can reach them by name.)
VERBS_FUNCTIONS = """
const char *ibv_wc_status_str(enum ibv_wc_status status);
"""

# A parameter that points to the first of an array of structs, and the
# parameter that counts them. Each binding takes an ordinary array of its
# language there, copied into contiguous C memory if its FFI does not lay
# it out so, and refuses a count larger than the array with its own error
# (C would read past the array).
ARRAYS = {"sgl": "nsge"}

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
}

# Structs a program fills, reads or passes an array of: (C struct name,
# [(field, type)]) in the C order, every field (so that the binding's size
# is the header's). Types: int, uint8_t, uint16_t, uint32_t, uint64_t,
# size_t, ptr (any pointer), uint8_t[N] (bytes the binding does not name),
# struct NAME (a struct of this list, by value). Enums are uint32_t, as
# their values are; ibv_wc's union of imm_data and invalidated_rkey is
# imm_data.
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
}

# The other constants a program of an RC exchange needs, by their C names:
# the opcodes of its completions (a receive's with immediate data too, and
# the flags that say so), the access flags of its MRs, the address
# families, the errno values of its calls. Their
# values, and the enums', are taken from the system headers when the
# bindings are generated, and checked again at test time.
CONSTANTS = [name for names in ENUMS.values() for name in names] + [
    "RAI_PASSIVE", "RDMA_PS_TCP", "RDMA_PS_UDP", "IBV_QPT_RC", "IBV_QPT_UD",
    "IBV_WC_SEND", "IBV_WC_RDMA_WRITE", "IBV_WC_RDMA_READ", "IBV_WC_RECV",
    "IBV_WC_RECV_RDMA_WITH_IMM", "IBV_WC_GRH", "IBV_WC_WITH_IMM",
    "IBV_ACCESS_LOCAL_WRITE", "IBV_ACCESS_REMOTE_WRITE", "IBV_ACCESS_REMOTE_READ",
    "AF_INET", "AF_INET6", "EINVAL", "ETIMEDOUT", "ENOMEM", "EIO",
]

# The structs that a function takes a pointer to as the struct itself (to
# fill in, read back, or an array of), rather than as an object of
# librdmacm's (an id, an MR) that the program only hands on. A const one
# (rdma_getaddrinfo's hints) is always the struct.
BY_POINTER = ["ibv_wc", "ibv_sge", "ibv_qp_init_attr", "rdma_conn_param"]
