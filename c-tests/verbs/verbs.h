/*
 * The differential test of RDMAVERBS_1.3 (verbs.c, verbs-run.c, verbs-call.c,
 * verbs-cases.c, verbs-args.c, verbs-directed.c, verbs-libibverbs.c,
 * verbs-refusals.c): a case
 * is one call of one of the 94 functions of <infiniband/verbs.h> that
 * librdmaverbs.so.1 exports, with its arguments (pointers into the fake's
 * world, vfake.h), the context it finds (verbs_context's sz, abi_compat,
 * an op taken away) and what the fake answers; it runs on the inline
 * original (original_<name>, original.c) and on ours (dlvsym(...,
 * "RDMAVERBS_1.3")), each on a fresh copy of the world, and the two are
 * compared: the value returned, errno, every byte of the world (every
 * output, every object) and every call the fake saw, argument by argument.
 */
#ifndef RDMAVERBS_VERBS_H
#define RDMAVERBS_VERBS_H

#include <stdint.h>
#include <rdma/rdma_cma.h>	/* the types original.h's other lists name */

#include "vfake.h"
#include "original.h"
#include "random.h"

/* X-macro helpers: a parameter list as struct fields, an argument list
 * taken from a struct `s`, up to six of each. */
#define V_N(...) V_N_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define V_N_(a, b, c, d, e, f, n, ...) n
#define V_CAT(a, b) V_CAT_(a, b)
#define V_CAT_(a, b) a##b
#define V_FIELDS(...) V_CAT(V_F, V_N(__VA_ARGS__))(__VA_ARGS__)
#define V_F1(a) a;
#define V_F2(a, b) a; b;
#define V_F3(a, b, c) a; b; c;
#define V_F4(a, b, c, d) a; b; c; d;
#define V_F5(a, b, c, d, e) a; b; c; d; e;
#define V_F6(a, b, c, d, e, f) a; b; c; d; e; f;
#define V_FROM(...) V_CAT(V_A, V_N(__VA_ARGS__))(__VA_ARGS__)
#define V_A1(a) s->a
#define V_A2(a, b) s->a, s->b
#define V_A3(a, b, c) s->a, s->b, s->c
#define V_A4(a, b, c, d) s->a, s->b, s->c, s->d
#define V_A5(a, b, c, d, e) s->a, s->b, s->c, s->d, s->e
#define V_A6(a, b, c, d, e, f) s->a, s->b, s->c, s->d, s->e, s->f

/* The functions: F_ibv_wr_atomic_cmp_swp, ..., F_COUNT. */
#define V_ENUM(ret, name, params, args) F_##name,
enum vfn { RDMAVERBS_VERBS_H_FUNCTIONS(V_ENUM) F_COUNT };
extern const char *const vfn_name[F_COUNT];

/* Each function's arguments, as a struct of its parameters, and a union
 * of them all: c->u.ibv_post_send.qp. */
#define V_STRUCT(ret, name, params, args) struct a_##name { V_FIELDS params };
RDMAVERBS_VERBS_H_FUNCTIONS(V_STRUCT)
#define V_MEMBER(ret, name, params, args) struct a_##name name;
union vargs { RDMAVERBS_VERBS_H_FUNCTIONS(V_MEMBER) };

/* The context a case gives: how verbs_get_ctx_op finds the function's op. */
enum vconfig {
	C_FULL,		/* extended, sz the whole struct, every op set */
	C_EXACT,	/* sz exactly reaching the function's op */
	C_SHORT,	/* sz one pointer short of it: the op hidden */
	C_OP_NULL,	/* the op NULL */
	C_NOT_EXT,	/* abi_compat not __VERBS_ABI_IS_EXTENDED */
	C_RANDOM,	/* any sz, any op taken away (random cases) */
	C_COUNT
};
extern const char *const config_name[C_COUNT];

struct vcase {
	enum vfn fn;
	enum vconfig config;
	union vargs u;
	struct vscript script;
	const char *what;	/* a directed case's name, for its report */
};

struct voutcome {
	uint64_t ret;		/* the value returned, its bytes */
	int err;
	struct vworld world;
};

/* ---- verbs-call.c ---- */

/* Finds ours by dlvsym; 0, or -1 with a message when one is missing. */
int find_ours(void);
/* Calls c->fn, the original or ours, on the world as it is. */
void call(const struct vcase *c, int ours, uint64_t *ret);
/* Runs the case on both, each on the world `base` (which the case's
 * pointers point into as W), and compares; 1 when equal. On a difference
 * says where (the first ten times) and counts it; *ref is the original's. */
int check(const struct vcase *c, const struct vworld *base, const struct voutcome **ref);
extern long compared, failed;
/* The cases of each function that differed. */
extern long differing[F_COUNT];
/* The size of the function's result (0: void), whether it is a pointer. */
size_t ret_size(enum vfn f);
int returns_pointer(enum vfn f);
void print_case(const struct vcase *c);

/* ---- verbs-cases.c, verbs-args.c ---- */

/* What each function calls: the op (V_*), and how it finds it. */
enum vkind {
	K_PURE,		/* no call */
	K_CTX,		/* a verbs_context op, through verbs_get_ctx_op */
	K_CTX_ANY,	/* close_xrcd: verbs_get_ctx, no test of sz or op */
	K_LEGACY,	/* an op of struct ibv_context_ops, always set */
	K_OBJECT,	/* a call of the extended QP or CQ, the WQ or the DM */
	K_LIBRARY,	/* a libibverbs function */
};
struct vinfo {
	int op;
	enum vkind kind;
	size_t offset;	/* K_CTX: the op's place in struct verbs_context */
};
extern const struct vinfo vinfo[F_COUNT];

/* Random values come from random.h (c-tests/common). */

/* Fills c->u with valid arguments for c->fn (random ones when `rnd`),
 * given the world W as it is now (the base world, which they point into). */
void fill_args(struct vcase *c, int rnd);
/* Sets the world for the case's config (the function's op per vinfo). */
void apply_config(struct vcase *c);
/* Every op answering success (a made object, 0, a count of 1). */
void script_ok(struct vscript *s);
/* Directed answers: variant 0 success, 1 to NVARIANTS - 1 failures. */
#define NVARIANTS 8
void script_variant(struct vscript *s, int k);
/* Whether the op makes an object (its answer: made or NULL). */
int op_makes(int op);
/* A random answer for every op. */
void script_random(struct vscript *s);
/* Answers a real provider could give for the case's room. */
void script_fit(struct vcase *c);
/* A random case over all functions, its world set in W. */
void random_case(struct vcase *c);

/* ---- verbs-run.c: running cases ---- */

/* The world as vfake_init made it. */
extern struct vworld pristine;
/* A case of f begun: W pristine, the case empty. */
void begin(struct vcase *c, enum vfn f, enum vconfig config, const char *what);
/* Runs the case from the world W holds now, counts the branches it took;
 * the original's outcome. */
const struct voutcome *test(const struct vcase *c);
/* One case of f: fixed arguments, the context, answer variant k. */
void directed_one(enum vfn f, enum vconfig config, int k, const char *what);
/* Says which branch of which function no case took (NOT COVERED); how many
 * there are (*total) and how many no case took. */
long not_covered(long *total);

/* ---- verbs-directed.c ---- */

void directed(void);

/* ---- verbs-libibverbs.c ---- */

/* Ours calls the test's libibverbs functions, not libibverbs' own: 0. */
int replaced(void);
/* ibv_poll_cq answered 95 by libibverbs' stub, with room for fewer: 0
 * when ours behaves as the original (each in a child process). */
int poll_overrun(void);

/* ---- verbs-call.c ---- */

/* The functions that call nothing, over many values (a difference counts
 * in `failed`); how many values. */
long sweeps(void);

/* ---- verbs-refusals.c ---- */

/* Ours given each NULL its doc refuses; 0 when every one is refused. */
int refusals(void);

#endif
