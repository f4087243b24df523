/* Calling a case on the original and on ours, and comparing (verbs.h). */
#define _GNU_SOURCE	/* dlvsym */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs.h"

/* Each original has exactly the type of the system header's inline. */
RDMAVERBS_VERBS_H_FUNCTIONS(RDMAVERBS_SAME_TYPE)

#define V_NAME(ret, name, params, args) #name,
const char *const vfn_name[F_COUNT] = { RDMAVERBS_VERBS_H_FUNCTIONS(V_NAME) };

/* Ours, by dlvsym at its node, with the original's type. */
#define V_OURS(ret, name, params, args) static ret (*ours_##name) params;
RDMAVERBS_VERBS_H_FUNCTIONS(V_OURS)

int find_ours(void)
{
	void *lib = dlopen("librdmaverbs.so.1", RTLD_NOW);
	int missing = 0;
	void *p;

	if (!lib) {
		fprintf(stderr, "verbs: %s\n", dlerror());
		return -1;
	}
#define V_FIND(ret, name, params, args)                                         \
	p = dlvsym(lib, #name, RDMAVERBS_NODE_##name);                               \
	if (!p) {                                                              \
		fprintf(stderr, "verbs: no %s@%s\n", #name, RDMAVERBS_NODE_##name); \
		missing++;                                                     \
	}                                                                      \
	memcpy(&ours_##name, &p, sizeof(p));
	RDMAVERBS_VERBS_H_FUNCTIONS(V_FIND)
	return missing ? -1 : 0;
}

#define V_CALL_VALUE(ret, name, params, args)                                   \
	case F_##name: {                                                       \
		const struct a_##name *s = &c->u.name;                         \
		ret r = ours ? ours_##name(V_FROM args) : original_##name(V_FROM args); \
		memcpy(out, &r, sizeof(r));                                    \
		break;                                                         \
	}
#define V_CALL_VOID(ret, name, params, args)                                    \
	case F_##name: {                                                       \
		const struct a_##name *s = &c->u.name;                         \
		if (ours)                                                      \
			ours_##name(V_FROM args);                              \
		else                                                           \
			original_##name(V_FROM args);                          \
		break;                                                         \
	}

void call(const struct vcase *c, int ours, uint64_t *out)
{
	*out = 0;
	switch (c->fn) {
	RDMAVERBS_VERBS_H_VALUES(V_CALL_VALUE)
	RDMAVERBS_VERBS_H_VOIDS(V_CALL_VOID)
	case F_COUNT:
		break;
	}
}

size_t ret_size(enum vfn f)
{
#define V_SIZE(ret, name, params, args) case F_##name: return sizeof(ret);
#define V_ZERO(ret, name, params, args) case F_##name: return 0;
	switch (f) {
	RDMAVERBS_VERBS_H_VALUES(V_SIZE)
	RDMAVERBS_VERBS_H_VOIDS(V_ZERO)
	case F_COUNT:
		break;
	}
	return 0;
}

int returns_pointer(enum vfn f)
{
#define V_PTR(ret, name, params, args) case F_##name: return __builtin_classify_type((ret)0) == 5;
	switch (f) {
	RDMAVERBS_VERBS_H_VALUES(V_PTR)
	default:
		return 0;
	}
}

const char *const config_name[C_COUNT] = {
	"full context", "sz exactly reaching the op", "sz one pointer short",
	"op NULL", "context not extended", "random context",
};

void print_case(const struct vcase *c)
{
	fprintf(stderr, "  %s(", vfn_name[c->fn]);
#define V_P1(a) fprintf(stderr, #a "=%#llx", (unsigned long long)(uintptr_t)s->a);
#define V_P2(a, b) V_P1(a) fprintf(stderr, ", "); V_P1(b)
#define V_P3(a, b, c) V_P2(a, b) fprintf(stderr, ", "); V_P1(c)
#define V_P4(a, b, c, d) V_P3(a, b, c) fprintf(stderr, ", "); V_P1(d)
#define V_P5(a, b, c, d, e) V_P4(a, b, c, d) fprintf(stderr, ", "); V_P1(e)
#define V_P6(a, b, c, d, e, f) V_P5(a, b, c, d, e) fprintf(stderr, ", "); V_P1(f)
#define V_PRINT(ret, name, params, args)                                        \
	case F_##name: {                                                       \
		const struct a_##name *s = &c->u.name;                         \
		V_CAT(V_P, V_N args) args                                      \
		break;                                                         \
	}
	switch (c->fn) {
	RDMAVERBS_VERBS_H_FUNCTIONS(V_PRINT)
	case F_COUNT:
		break;
	}
	fprintf(stderr, ") on a %s (sz %zu, abi_compat %p); world at %p%s%s\n",
		config_name[c->config], W.vctx.sz, W.vctx.context.abi_compat, (void *)&W,
		c->what ? ": " : "", c->what ? c->what : "");
}

/* ---- comparing ---- */

long compared, failed;
long differing[F_COUNT];
static char why[640];

static int say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return 0;
}

static int same_rec(int i, const struct vrec *r, const struct vrec *o)
{
	int k;

	if (r->op != o->op)
		return say("call %d: original %s, ours %s", i + 1, vop_name[r->op], vop_name[o->op]);
	if (r->obj != o->obj)
		return say("call %d (%s): object %p, ours %p", i + 1, vop_name[r->op], r->obj, o->obj);
	for (k = 0; k < 6; k++)
		if (r->arg[k] != o->arg[k])
			return say("call %d (%s): argument %d: original %#llx, ours %#llx", i + 1,
				   vop_name[r->op], k + 2, (unsigned long long)r->arg[k],
				   (unsigned long long)o->arg[k]);
	if (r->nin != o->nin || memcmp(r->in, o->in, (size_t)r->nin))
		return say("call %d (%s): the input struct's bytes differ", i + 1, vop_name[r->op]);
	return 1;
}

/* Watched (RDMAVERBS_TRACE or RDMAVERBS_STATS set), ours reads the
 * completion a poll made current, to show and count it: read_opcode and
 * read_byte_len, or read_vendor_err, right after start_poll or next_poll
 * (observe/src/record/show.rs, current). Those reads are taken out of its
 * log before the comparison; every other call must be the original's. */
static int watched = -1;

static void drop_observer_reads(struct vworld *w)
{
	int i, n = 0, after_poll = 0;

	for (i = 0; i < w->nlog && i < VFAKE_LOG; i++) {
		int op = w->log[i].op;

		if (after_poll && (op == V_read_opcode || op == V_read_byte_len || op == V_read_vendor_err))
			continue;
		after_poll = op == V_start_poll || op == V_next_poll;
		w->log[n++] = w->log[i];
	}
	for (i = n; i < w->nlog && i < VFAKE_LOG; i++)
		memset(&w->log[i], 0, sizeof(w->log[i]));
	w->nlog = n;
}

static int same(const struct vcase *c, struct voutcome *r, struct voutcome *o)
{
	const unsigned char *a = (const void *)&r->world, *b = (const void *)&o->world;
	size_t i, start;
	int k;

	if (watched < 0)
		watched = getenv("RDMAVERBS_TRACE") || getenv("RDMAVERBS_STATS");
	if (watched)
		drop_observer_reads(&o->world);
	if (r->ret != o->ret)
		return say("returned %#llx, ours %#llx", (unsigned long long)r->ret,
			   (unsigned long long)o->ret);
	if (r->err != o->err)
		return say("errno %d (%s), ours %d (%s)", r->err, strerror(r->err), o->err,
			   strerror(o->err));
	if (r->world.nlog != o->world.nlog || r->world.overflow != o->world.overflow)
		return say("%d calls, ours %d (the first: %s, ours %s)", r->world.nlog, o->world.nlog,
			   vop_name[r->world.nlog ? r->world.log[0].op : 0],
			   vop_name[o->world.nlog ? o->world.log[0].op : 0]);
	for (k = 0; k < r->world.nlog && k < VFAKE_LOG; k++)
		if (!same_rec(k, &r->world.log[k], &o->world.log[k]))
			return 0;
	for (i = 0; i < offsetof(struct vworld, nlog); i++) {	/* the log is compared above */
		if (a[i] != b[i]) {
			const char *name = vfake_region(i, &start);

			return say("byte %zu of %s written: original %#x, ours %#x", i - start, name,
				   a[i], b[i]);
		}
	}
	(void)c;
	return 1;
}

#define SENTINEL 4242

static void run(const struct vcase *c, const struct vworld *base, int ours, struct voutcome *o)
{
	W = *base;
	vfake_script = &c->script;
	errno = SENTINEL;
	call(c, ours, &o->ret);
	o->err = errno;
	o->world = W;
}

int check(const struct vcase *c, const struct vworld *base, const struct voutcome **ref)
{
	static struct voutcome r, o;

	run(c, base, 0, &r);
	run(c, base, 1, &o);
	compared++;
	*ref = &r;
	W = *base;	/* the case as it was, for print_case */
	if (same(c, &r, &o))
		return 1;
	differing[c->fn]++;
	if (failed++ < 10) {
		fprintf(stderr, "DIFFERENT: %s: %s\n", vfn_name[c->fn], why);
		print_case(c);
	}
	return 0;
}

/* ---- the functions that call nothing, over many values ---- */

static int pure_differs(enum vfn f, uint64_t v, uint64_t want, uint64_t got, int err)
{
	if (want == got && err == SENTINEL)
		return 0;
	differing[f]++;
	if (failed++ < 10)
		fprintf(stderr, "DIFFERENT: %s(%#llx): original %#llx, ours %#llx, errno %d\n", vfn_name[f],
			(unsigned long long)v, (unsigned long long)want, (unsigned long long)got, err);
	return 1;
}

#define PURE(f, v, want)                                                       \
	do {                                                                   \
		uint64_t got_;                                                 \
		errno = SENTINEL;                                              \
		got_ = ours_##f(v);                                            \
		n++;                                                           \
		pure_differs(F_##f, v, want, got_, errno);                        \
	} while (0)

long sweeps(void)
{
	/* watched, each call is a trace line: every 61st value then */
	uint32_t v, q, step = getenv("RDMAVERBS_TRACE") ? 61 : 1;
	long n = 0;
	int i;

	/* every flow label (20 bits), and any 32-bit value */
	for (v = 0; v < 1u << 20; v += step)
		PURE(ibv_flow_label_to_udp_sport, v, original_ibv_flow_label_to_udp_sport(v));
	for (i = 0; i < 1 << 16; i += (int)step) {
		v = (uint32_t)case_rnd();
		PURE(ibv_flow_label_to_udp_sport, v, original_ibv_flow_label_to_udp_sport(v));
	}
	/* every key of the low 17 bits, the top ones, any */
	for (v = 0; v < 1u << 17; v += step)
		PURE(ibv_inc_rkey, v, original_ibv_inc_rkey(v));
	for (v = 0xffff0000u; v >= 0xffff0000u; v += step)
		PURE(ibv_inc_rkey, v, original_ibv_inc_rkey(v));
	for (i = 0; i < 1 << 16; i += (int)step) {
		v = (uint32_t)case_rnd();
		PURE(ibv_inc_rkey, v, original_ibv_inc_rkey(v));
	}
	/* each QP type of the 32 bits, against masks with and without its bit */
	for (q = 0; q < 32; q++) {
		for (i = 0; i < 64; i++) {
			uint32_t caps = i == 0 ? 0 : i == 1 ? ~0u : i == 2 ? 1u << q : i == 3 ? ~(1u << q) :
					(uint32_t)case_rnd();
			uint64_t want, got;

#ifdef __SANITIZE_ADDRESS__
			/* The original's 1 << 31 overflows int: UBSan (the sanitizer
			 * build) stops there. What the plain build's original gives. */
			want = q == 31 ? caps >> 31 : (uint64_t)original_ibv_is_qpt_supported(caps, q);
#else
			want = (uint64_t)original_ibv_is_qpt_supported(caps, q);
#endif
			errno = SENTINEL;
			got = (uint64_t)ours_ibv_is_qpt_supported(caps, q);
			n++;
			pure_differs(F_ibv_is_qpt_supported, (uint64_t)caps << 32 | q, want, got, errno);
		}
	}
	return n;
}
