/* Between opstrace's parent (opstrace.c) and its child (opstrace-child.c). */
#ifndef RDMAVERBS_OPSTRACE_H
#define RDMAVERBS_OPSTRACE_H

/* The child's MODE ("ops" or "full"), its files in DIR: 0, or what failed. */
int opstrace_child(const char *dir, const char *mode);

#endif
