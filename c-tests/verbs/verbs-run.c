/* Running the cases of the differential test of RDMAVERBS_1.3 (verbs.h): a
 * case begun on the pristine world, run on both (check) and counted under
 * the branches of the original it took; the branches each function has. */
#include <stdio.h>
#include <string.h>

#include "verbs.h"

struct vworld pristine;
static struct vworld base;

/* ---- branches: what each case took, in the original ---- */

enum branch {
	B_OK, B_ERR, B_NEG, B_SZ_EXACT, B_SZ_SHORT, B_OP_NULL, B_NOT_EXT,
	B_SHORT_CALLED, B_COMPAT, B_LEGACY_ABSENT, B_LEGACY_EOPNOTSUPP,
	B_LEGACY_ENOSYS, B_INPUT_MASK, B_INPUT_NULL, B_INPUT_ZERO, B_PLAIN,
	B_PLAIN_NO_CTX, B_MW_TYPE, B_MW_NO_MR, B_MW_OTHER_PD, B_MW_NO_MR_BOUND,
	B_REG_PLAIN, B_REG_OPTIONAL, B_REG_NOT_CONST, B_BAD_SECOND, B_ANY_MASK,
	B_COUNT
};

static const char *const branch_name[B_COUNT] = {
	"op called, success", "op called, an error", "op called, a negative value",
	"sz exactly reaching the op", "sz one pointer short (op hidden)", "op NULL",
	"context not extended", "op called though sz is short", "compat ibv_query_port",
	"legacy query, no op", "legacy query after EOPNOTSUPP", "legacy query after ENOSYS",
	"input comp_mask refused", "input NULL", "input with comp_mask 0",
	"plain ibv_create_*", "plain ibv_create_* without a context", "window not type 1",
	"address or length without an MR", "MR of another PD", "bound without an MR",
	"plain registration", "optional access flag: ibv_reg_mr_iova2",
	"access not constant: ibv_reg_mr_iova2", "the second work request bad",
	"comp_mask bits passed through",
};

static long covered[F_COUNT][B_COUNT];

static int called(const struct voutcome *o, int op)
{
	int i;

	for (i = 0; i < o->world.nlog && i < VFAKE_LOG; i++)
		if (o->world.log[i].op == op)
			return 1;
	return 0;
}

static int is_post(enum vfn f)
{
	return f == F_ibv_post_send || f == F_ibv_post_recv || f == F_ibv_post_srq_recv ||
	       f == F_ibv_post_wq_recv || f == F_ibv_post_srq_ops;
}

static int is_reader(enum vfn f)
{
	return f >= F_ibv_wc_read_opcode && f <= F_ibv_wc_read_flow_tag;
}

/* The result's class: success, an error, a negative value. */
static enum branch result(enum vfn f, const struct voutcome *o)
{
	size_t n = ret_size(f);

	if (n == 0 || is_reader(f))
		return B_OK;
	if (f == F_ibv_query_gid_table)
		return (int64_t)o->ret < 0 ? B_NEG : B_OK;
	if (f == F_ibv_poll_cq)
		return (int)o->ret < 0 ? B_NEG : B_OK;
	if (returns_pointer(f))
		return o->ret ? B_OK : B_ERR;
	if (n == sizeof(int))
		return !(int)o->ret ? B_OK : (int)o->ret > 0 ? B_ERR : B_NEG;
	return B_OK;
}

static uint64_t branches(const struct vcase *c, const struct voutcome *r)
{
	const struct vinfo *i = &vinfo[c->fn];
	const union vargs *u = &c->u;
	uint64_t b = 0;

#define BIT(x) (1ull << (x))
	switch (c->fn) {
	case F____ibv_query_port:
		if (called(r, V_ibv_query_port))
			b |= BIT(B_COMPAT);
		break;
	case F_ibv_query_device_ex:
		if (!u->ibv_query_device_ex.input)
			b |= BIT(B_INPUT_NULL);
		else if (!u->ibv_query_device_ex.input->comp_mask)
			b |= BIT(B_INPUT_ZERO);
		if (r->world.nlog == 0)
			return b | BIT(B_INPUT_MASK);
		if (called(r, V_ibv_query_device))
			return b | BIT(!called(r, V_query_device_ex) ? B_LEGACY_ABSENT :
				       c->script.a[V_query_device_ex].ret == EOPNOTSUPP ?
				       B_LEGACY_EOPNOTSUPP : B_LEGACY_ENOSYS) |
			       (c->config == C_FULL ? 0 : BIT(c->config == C_SHORT ? B_SZ_SHORT :
			       c->config == C_OP_NULL ? B_OP_NULL : B_NOT_EXT));
		break;
	case F_ibv_create_qp_ex:
	case F_ibv_create_srq_ex:
		if (called(r, V_ibv_create_qp) || called(r, V_ibv_create_srq))
			return BIT(B_PLAIN) | BIT(result(c->fn, r)) |
			       (u->ibv_create_qp_ex.context ? 0 : BIT(B_PLAIN_NO_CTX));
		break;
	case F_ibv_create_cq_ex:
		if (u->ibv_create_cq_ex.cq_attr == &W.cq_attr && called(r, V_create_cq_ex) &&
		    (u->ibv_create_cq_ex.cq_attr->comp_mask & ~3u))
			b |= BIT(B_ANY_MASK);
		break;
	case F___ibv_reg_mr:
	case F___ibv_reg_mr_iova: {
		int cnst = c->fn == F___ibv_reg_mr ? u->__ibv_reg_mr.is_access_const :
			   u->__ibv_reg_mr_iova.is_access_const;

		b |= BIT(result(c->fn, r));
		if (!called(r, V_ibv_reg_mr_iova2))
			return b | BIT(B_REG_PLAIN);
		return b | BIT(cnst ? B_REG_OPTIONAL : B_REG_NOT_CONST);
	}
	case F_ibv_bind_mw:
		if (r->world.nlog == 0) {
			const struct ibv_mw_bind_info *bi = &u->ibv_bind_mw.mw_bind->bind_info;

			return BIT(u->ibv_bind_mw.mw->type != IBV_MW_TYPE_1 ? B_MW_TYPE :
				   !bi->mr ? B_MW_NO_MR : B_MW_OTHER_PD);
		}
		if (!u->ibv_bind_mw.mw_bind->bind_info.mr)
			b |= BIT(B_MW_NO_MR_BOUND);
		break;
	default:
		break;
	}
	if (is_post(c->fn) && c->script.bad && (int)r->ret && r->world.nlog)
		b |= BIT(B_BAD_SECOND);
	if (i->kind == K_PURE)
		return b | BIT(B_OK);
	if (called(r, i->op)) {
		b |= BIT(result(c->fn, r));
		if (c->config == C_EXACT && i->kind != K_LEGACY)
			b |= BIT(B_SZ_EXACT);
		if (c->config == C_SHORT && i->kind == K_CTX_ANY)
			b |= BIT(B_SHORT_CALLED);
		return b;
	}
	switch (c->config) {
	case C_SHORT: return b | BIT(B_SZ_SHORT);
	case C_OP_NULL: return b | BIT(B_OP_NULL);
	case C_NOT_EXT: return b | BIT(B_NOT_EXT);
	default: return b;
	}
}

/* The branches each function has. */
static uint64_t expected(enum vfn f)
{
	const struct vinfo *i = &vinfo[f];
	uint64_t b = BIT(B_OK);

	if (i->kind == K_PURE || ret_size(f) == 0 || is_reader(f))
		return b;
	if (f == F_ibv_poll_cq || f == F_ibv_query_gid_table)
		return b | BIT(B_NEG);
	b |= BIT(B_ERR);
	if (!returns_pointer(f))
		b |= BIT(B_NEG);
	if (i->kind == K_CTX)
		b |= BIT(B_SZ_EXACT) | BIT(B_SZ_SHORT) | BIT(B_OP_NULL) | BIT(B_NOT_EXT);
	if (i->kind == K_CTX_ANY)
		b |= BIT(B_SZ_EXACT) | BIT(B_SHORT_CALLED);
	if (f == F_ibv_alloc_mw)
		b |= BIT(B_OP_NULL);
	if (is_post(f))
		b |= BIT(B_BAD_SECOND);
	switch (f) {
	case F____ibv_query_port: return b | BIT(B_COMPAT);
	case F_ibv_query_device_ex:
		return b | BIT(B_LEGACY_ABSENT) | BIT(B_LEGACY_EOPNOTSUPP) | BIT(B_LEGACY_ENOSYS) |
		       BIT(B_INPUT_MASK) | BIT(B_INPUT_NULL) | BIT(B_INPUT_ZERO);
	case F_ibv_create_qp_ex: case F_ibv_create_srq_ex: return b | BIT(B_PLAIN) | BIT(B_PLAIN_NO_CTX);
	case F_ibv_create_cq_ex: return b | BIT(B_ANY_MASK);
	case F___ibv_reg_mr: case F___ibv_reg_mr_iova:
		return BIT(B_OK) | BIT(B_ERR) | BIT(B_REG_PLAIN) | BIT(B_REG_OPTIONAL) | BIT(B_REG_NOT_CONST);
	case F_ibv_bind_mw:	/* its own checks of the bind from rdma-core 39 */
		return b | BIT(B_MW_TYPE) | BIT(B_MW_NO_MR_BOUND) |
		       (RDMAVERBS_RDMA_CORE >= 39 ? BIT(B_MW_NO_MR) | BIT(B_MW_OTHER_PD) : 0);
	default: return b;
	}
}

/* ---- running cases ---- */

void begin(struct vcase *c, enum vfn f, enum vconfig config, const char *what)
{
	memset(c, 0, sizeof(*c));
	W = pristine;
	c->fn = f;
	c->config = config;
	c->what = what;
}

/* Runs the case as W now holds it (the world it starts from). */
const struct voutcome *test(const struct vcase *c)
{
	const struct voutcome *ref;
	uint64_t b;
	int k;

	base = W;
	check(c, &base, &ref);
	b = branches(c, ref);
	for (k = 0; k < B_COUNT; k++)
		covered[c->fn][k] += (b >> k) & 1;
	return ref;
}

/* One case of `f`: fixed arguments, the context, answer variant k. */
void directed_one(enum vfn f, enum vconfig config, int k, const char *what)
{
	struct vcase c;

	begin(&c, f, config, what);
	fill_args(&c, 0);
	apply_config(&c);
	script_variant(&c.script, k);
	test(&c);
}

long not_covered(long *total)
{
	long missing = 0;
	int f, b;

	*total = 0;
	for (f = 0; f < F_COUNT; f++) {
		uint64_t want = expected((enum vfn)f);

		for (b = 0; b < B_COUNT; b++) {
			if (!((want >> b) & 1))
				continue;
			(*total)++;
			if (!covered[f][b]) {
				fprintf(stderr, "NOT COVERED: %s: %s\n", vfn_name[f], branch_name[b]);
				missing++;
			}
		}
	}
	return missing;
}
