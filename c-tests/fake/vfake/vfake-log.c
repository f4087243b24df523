/* The fake provider of vfake.h, what every op uses: the world W and the
 * script, the log of calls, the answers, the outputs filled, the room the
 * world has, and the names of its ops and of its parts. */
#include "../vfake.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

struct vworld W;
const struct vscript *vfake_script;

#define VFAKE_NAME(n) #n,
const char *const vop_name[V_COUNT] = { "none", VFAKE_ALL(VFAKE_NAME) };

#define U(x) ((uint64_t)(uintptr_t)(x))

/* How much of the world lies from p on, up to its log: the fake reads and
 * writes nothing else (a case may pass any address where the function only
 * passes it on, and any length). */
size_t vfake_room(const void *p)
{
	uintptr_t a = (uintptr_t)p, w = (uintptr_t)&W, end = w + offsetof(struct vworld, nlog);

	return a >= w && a < end ? end - a : 0;
}

static size_t cap(const void *p, size_t n)
{
	size_t r = vfake_room(p);

	return n < r ? n : r;
}

/* Logs a call: the op, its object, its other arguments. */
struct vrec *vfake_rec(int op, const void *obj, int n, ...)
{
	struct vrec *r;
	va_list ap;
	int i;

	if (W.nlog == VFAKE_LOG) {
		W.overflow++;
		return &W.log[VFAKE_LOG - 1];	/* overwritten: the comparison sees it */
	}
	r = &W.log[W.nlog++];
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->obj = obj;
	va_start(ap, n);
	for (i = 0; i < n; i++)
		r->arg[i] = va_arg(ap, uint64_t);
	va_end(ap);
	return r;
}

/* The first bytes of an input struct, as the op sees it. */
void vfake_snap(struct vrec *r, const void *p, size_t n)
{
	n = cap(p, n < VFAKE_IN ? n : VFAKE_IN);
	if (n)
		memcpy(r->in, p, n);
	r->nin = (int)n;
}

/* The scripted answer of `op`; errno set when the script says so. */
int64_t vfake_answer(int op)
{
	const struct vanswer *a = &vfake_script->a[op];

	if (a->err)
		errno = a->err;
	return a->ret;
}

/* An output written: bytes made from the script's seed. */
void vfake_fill(void *p, size_t n)
{
	unsigned char *b = p;
	size_t i;

	n = cap(p, n);
	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(vfake_script->seed + 13 * i + 1);
}

/* An op that makes an object: `obj`, or NULL, as scripted. */
void *vfake_made(int op, void *obj)
{
	return vfake_answer(op) ? obj : NULL;
}

/* The world's parts by name. */
#define REGIONS(X)                                                             \
	X(vctx) X(dev) X(pd) X(other_pd) X(parent_pd) X(qp) X(new_qp) X(srq)  \
	X(new_srq) X(cq) X(mw) X(new_mw) X(mr) X(other_mr) X(new_mr) X(xrcd)  \
	X(td) X(flow) X(action) X(counters) X(dm) X(wq) X(new_wq) X(table)     \
	X(qpx) X(cqx) X(ah) X(swr) X(rwr) X(ops_wr) X(sge) X(bufs) X(mw_bind)  \
	X(bind_info) X(cq_attr) X(srq_attr) X(qp_attr) X(qp_open_attr)         \
	X(wq_attr) X(wq_mod) X(table_attr) X(td_attr) X(parent_attr)           \
	X(xrcd_attr) X(flow_attr) X(esp) X(counters_attr) X(attach_attr)       \
	X(dm_attr) X(cq_mod) X(rate) X(poll_attr) X(qd_input) X(data) X(port)  \
	X(port_guard) X(gid) X(gid_guard) X(dev_attr) X(dev_attr_guard)        \
	X(values) X(srq_num) X(counter_values) X(wc) X(wc_guard) X(tm_info)    \
	X(host) X(bad_swr) X(bad_rwr) X(bad_op) X(nlog) X(overflow) X(log)     \
	RDMAVERBS_IF_ibv_query_comp_cntr_caps(X(cntr_caps) X(cntr_caps_guard))

const char *vfake_region(size_t offset, size_t *start)
{
	static const struct { const char *name; size_t off, size; } r[] = {
#define REGION(m) { #m, offsetof(struct vworld, m), sizeof(W.m) },
		REGIONS(REGION)
	};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		if (offset >= r[i].off && offset < r[i].off + r[i].size) {
			*start = r[i].off;
			return r[i].name;
		}
	}
	*start = offset;
	return "padding";
}
