/*
 * The table of verbs.c and siw-verbs.c (verbs-table.h says what it holds),
 * filled: with librdmaverbs.so.1's exports found with dlvsym(..., NODE)
 * when VERBS_LIBRARY names the library (ours), else with the inline
 * originals themselves (stock); each pointer checked to lie in the object
 * it should. And what both programs print (fail, obs, verified) and the
 * messages' bytes (fill, expect).
 */
#define _GNU_SOURCE	/* dlvsym, dlinfo */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "verbs-table.h"

/* ---- the table ---- */

struct verbs_table v;
const char *role = "?";
long msgs, bytes;	/* messages and bytes verified */

void fail(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	va_start(ap, fmt);
	printf("FAIL: verbs %s: ", role);
	vprintf(fmt, ap);
	printf(" (errno %d %s)\n", err, strerror(err));
	printf("RESULT verbs FAIL msgs=%ld bytes=%ld\n", msgs, bytes);
	va_end(ap);
	fflush(stdout);
	_exit(1);
}

/* obs: lines are compared between the two builds: only values the library
 * and the provider decide, never pointers, keys or QP numbers. */
void obs(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("obs: verbs %s: ", role);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

void verified(long n_msgs, long n_bytes)
{
	msgs += n_msgs;
	bytes += n_bytes;
}

/* The object (its base address) holding the function a pointer points to. */
static const void *object_of(const void *fn, size_t size, const char *name)
{
	Dl_info info;
	void *f = NULL;

	CHECK(size == sizeof(f), "%s: a function pointer is not a data pointer's size", name);
	memcpy(&f, fn, size);
	CHECK(f && dladdr(f, &info) && info.dli_fbase, "%s: no object holds it", name);
	return info.dli_fbase;
}

static int table_size;
#define COUNT(ret, name, params, args) table_size++;
#define WHERE(ret, name, params, args)                                        \
	CHECK(object_of(&v.name, sizeof(v.name), #name) == base,              \
	      "%s is not in %s", #name, where);

#ifdef VERBS_LIBRARY
/* ours: v.name = name@NODE of the library (memcpy: ISO C has no cast from
 * void * to a function pointer). */
static void find(void *lib, void *fn, size_t size, const char *name, const char *node)
{
	void *f = dlvsym(lib, name, node);

	CHECK(f && size == sizeof(f), "no %s@%s in %s: %s", name, node, VERBS_LIBRARY, dlerror());
	memcpy(fn, &f, size);
}
#define FIND(ret, name, params, args) find(lib, &v.name, sizeof(v.name), #name, RDMAVERBS_NODE_##name);

void fill_table(void)
{
	void *lib = dlopen(VERBS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	struct link_map *map;
	const void *base;
	const char *where = VERBS_LIBRARY;

	CHECK(lib, "dlopen %s: %s", VERBS_LIBRARY, dlerror());
	RDMAVERBS_VERBS_H_FUNCTIONS(FIND)
	CHECK(!dlinfo(lib, RTLD_DI_LINKMAP, &map), "dlinfo: %s", dlerror());
	base = object_of(&map->l_ld, sizeof(void *), "the library's dynamic section");
	RDMAVERBS_VERBS_H_FUNCTIONS(WHERE)
	RDMAVERBS_VERBS_H_FUNCTIONS(COUNT)
	printf("verbs: the table: %d functions, each name@NODE of %s\n", table_size,
	       map->l_name);
}
#else
/* stock: v.name = the inline original, compiled into this program. */
#define TAKE(ret, name, params, args) v.name = name;

void fill_table(void)
{
	void (*self)(void) = fill_table;	/* in this program, as main is */
	const void *base = object_of(&self, sizeof(self), "fill_table");
	const char *where = "this program";

	RDMAVERBS_VERBS_H_FUNCTIONS(TAKE)
	RDMAVERBS_VERBS_H_FUNCTIONS(WHERE)
	RDMAVERBS_VERBS_H_FUNCTIONS(COUNT)
	printf("verbs: the table: %d functions, each the inline original in this program\n",
	       table_size);
}
#endif

/* ---- the data both exchanges send: message `seed`, byte by byte ---- */

static uint8_t pattern(int seed, size_t i)
{
	return (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

void fill(void *buf, size_t len, int seed, size_t from)
{
	size_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)buf)[i] = pattern(seed, from + i);
}

/* `len` bytes of message `seed`, starting at its byte `from`. */
void expect(const void *buf, size_t len, int seed, size_t from, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		CHECK(((const uint8_t *)buf)[i] == pattern(seed, from + i),
		      "%s: byte %zu differs", what, from + i);
}
