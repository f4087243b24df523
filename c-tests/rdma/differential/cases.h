/*
 * Cases of the differential test and the fuzzer: one call of one of the 16
 * functions (or of the 2 address functions of <rdma/rdma_cma.h>), with its arguments and what the fake provider answers, run on
 * the inline original (original.c) and on ours, and compared: the return
 * value, errno, the completion written, and every provider call in order
 * with every work request field the original sets. cases.c runs one,
 * cases-compare.c compares, cases-random.c makes them at random.
 */
#ifndef RDMAVERBS_CASES_H
#define RDMAVERBS_CASES_H

#include <stdint.h>

#include "fake.h"
#include "original.h"
#include "random.h"

/* The functions, from the table: F_rdma_seterrno, ..., the address
 * functions of RDMAVERBS_1.2, then F_COUNT. */
#define RDMAVERBS_ENUM(ret, name, params, args) F_##name,
enum fn { RDMAVERBS_1_0_FUNCTIONS(RDMAVERBS_ENUM) RDMAVERBS_1_2_FUNCTIONS(RDMAVERBS_ENUM) F_COUNT };
extern const char *const fn_name[F_COUNT];

/* Input the original would crash on, assert on or truncate (the
 * robustness issue's list), one kind per case; only the fuzzer makes them. */
enum brk {
	BRK_NONE, BRK_NULL_ID, BRK_NO_QP, BRK_NULL_SGL, BRK_NEG_NSGE,
	BRK_BIG_LENGTH, BRK_NULL_MR, BRK_OUTSIDE_MR, BRK_NULL_AH, BRK_NULL_WC,
	BRK_NULL_CQ, BRK_NULL_CHANNEL, BRK_NULL_PD, BRK_FOREIGN_EVENT, BRK_COUNT
};

/* One case: the function, its arguments, and what the fake answers. */
struct args {
	enum fn fn;
	int seterrno_arg;
	void *ctx;
	struct ibv_sge sgl[8];
	int nsge;
	int sgl_null;		/* with nsge 0: sgl NULL, which the original posts */
	int flags;
	uint64_t raddr;
	uint32_t rkey;
	uint64_t addr;		/* offset into the MR for rdma_post_recv */
	size_t length;
	int mr_null;
	int srq;
	struct ibv_ah *ah;
	uint32_t qpn;
	struct fake_script script;
	enum brk brk;		/* one thing made invalid */
	int bounded;		/* rdma_get_*_comp: ours is the _timeout form, */
	int timeout_ms;		/* with this time-out (< 0, or long enough) */
};

struct outcome {
	int ret;
	void *pret;
	int err;
	struct ibv_wc wc;
	int nlog;
	struct fake_rec log[FAKE_MAX_LOG];
};

/* The fake and the objects the cases use; cases_init() sets them up. */
extern struct fake F;
extern struct ibv_cq other_cq;	/* a CQ no id has: a foreign event's */
extern char mr_buf[4096];
void cases_init(void);

/* A case at random, from random.h's case_rnd: a PRNG or the fuzzer's bytes
 * (cases-random.c). */
void random_case(struct args *a);
void run(const struct args *a, int ours, struct outcome *o);
int is_vectored(enum fn f);
/* A registration or an address function: NULL, not -1, is its error. */
int returns_pointer(enum fn f);

/* Runs `a` on both and compares; on a difference says why (the first ten
 * times) and counts it. Returns 1 when equal; `*ref` is the original's
 * outcome. */
int check(const struct args *a, const struct outcome **ref);
extern long compared, failed;
extern char why[512];

#endif
