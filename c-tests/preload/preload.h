/* Between the preload test's parent (preload.c) and its child
 * (preload-child.c). */
#ifndef RDMAVERBS_PRELOAD_H
#define RDMAVERBS_PRELOAD_H

/* The child's case `mode`, under the preload library `preload`: 0, or what
 * failed. */
int preload_child(const char *preload, const char *mode);

#endif
