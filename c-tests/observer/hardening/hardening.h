/*
 * What the files of the hardening program (the environment and the trace
 * file, as an attacker or an unlucky user would meet them) share: the
 * library under test, the child's cases (hardening-child.c), running a case
 * and reading what it left (hardening-run.c), and the parent's groups of
 * checks: set-user-ID (hardening-setuid.c), the counters' directory
 * (hardening-stats.c), the settings' values and the descriptors
 * (hardening-values.c), the trace file itself (hardening-files.c), the
 * library's load, unload and signals (hardening-lifetime.c).
 */
#ifndef OBSERVER_HARDENING_H
#define OBSERVER_HARDENING_H

#include "../scaffold.h"

/* The library's path (given; in the dlclose case and after, a copy). */
extern const char *lib;

/* ---- the child (hardening-child.c) ---- */

/* "hardening LIB DIR CASE": the case's calls in DIR/CASE; its exit status
 * tells what went wrong. */
int child(const char *lib, const char *mode);

/* ---- running a case, and what it left (hardening-run.c) ---- */

/* The entries of a directory (not . and ..). */
int count_in(const char *path);
/* The path of the last case's stderr, DIR/CASE.err. */
extern char err_path[8400];
/* Runs CASE with the environment `env` (NULL-terminated "VAR=value"s), as
 * `uid` unless it is -1; returns its exit status (128 + signal). */
int run_as(const char *exe, const char *mode, const char *const *env, int uid);
int run(const char *mode, const char *const *env);
/* The case's stderr, whole; how many times `needle` is in it. */
const char *err_text(void);
int lines_with(const char *needle);
int exists(const char *path);

/* ---- the parent's checks, in the order they run ---- */

void setuid_case(void);		/* hardening-setuid.c */
void stats_dir_cases(void);	/* hardening-stats.c */
void value_cases(void);		/* hardening-values.c */
void file_cases(void);		/* hardening-files.c */
void lifetime_cases(void);	/* hardening-lifetime.c */

#endif
