/*
 * The scaffolding the observer's test programs share (trace, verbs-trace,
 * live; hardening its FAIL, OK and paths): their FAIL, OK and counts, their
 * start (the child's mode or the parent's paths) and end (the summary
 * line), running a re-executed child with its environment set, reading
 * the scratch directory's files back, the monotonic clock, the " t=" of a
 * trace line checked and taken out, and the exit table's columns checked.
 */
#ifndef OBSERVER_SCAFFOLD_H
#define OBSERVER_SCAFFOLD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The program's name ("trace", ...), which starts each line it prints. */
extern const char *test_name;
extern int failures, passed;

/* A check that failed ("NAME: FAIL: ..." on stderr), one that passed
 * ("NAME: ok: ..." on stdout). */
#define FAIL(...) do { fprintf(stderr, "%s: FAIL: ", test_name); fprintf(stderr, __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)
#define OK(...) do { printf("%s: ok: ", test_name); printf(__VA_ARGS__); putchar('\n'); \
	passed++; } while (0)

/* This program (from /proc/self/exe) and the scratch directory, absolute. */
extern char self[4096], dir[4096];

/* What each main does first. As "PROG child A B": child(A, B)'s exit
 * status. As "PROG SCRATCH_DIR" (with at most `extra` arguments more):
 * self and dir set, -1 (the parent goes on). Otherwise 2, after the usage
 * line ("usage: PROG `usage`") or the error. */
int start_program(const char *name, int argc, char **argv,
		  int (*child)(const char *, const char *), int extra, const char *usage);

/* The last line, "NAME: all checks passed" or "NAME: FAILED"; main's exit
 * status. */
int end_program(void);

/* Forks "self child A B", its environment without RDMAVERBS_TRACE,
 * RDMAVERBS_STATS and RDMAVERBS_POLL_SPIN but with `env` (NAME=VALUE
 * strings, NULL ended), its stderr the file `errpath`, its standard input
 * and output `in` and `out` where not -1; `before` (if any) runs in it just
 * before the exec. Returns its pid. */
pid_t spawn_child(const char *errpath, const char *const *env, int in, int out,
		  void (*before)(void), const char *a, const char *b);

/* Waits for `pid`: its exit status, or 128 + the signal that ended it. */
int wait_child(pid_t pid);

/* A pointer as the trace shows it (%#lx). */
static inline unsigned long p2u(const void *p)
{
	return (unsigned long)(uintptr_t)p;
}

/* Writes one expected trace line to `f`: "rdmaverbs[TID]: NAME" then the
 * fields (fmt ...) and a newline. */
void expect_line(FILE *f, const char *name, const char *fmt, ...);

/* DIR/NAME made anew for writing (the child's expected lines or counts,
 * with DIR the directory it was given); NULL if it cannot be. */
FILE *create_in(const char *dir, const char *name);

/* A line of a trace file that is padding (rdmaverbs(7), "Trace file"):
 * spaces only, or empty. */
int padding(const char *line);

/* The lines of DIR/NAME read back: at most `max` into `out`, each without
 * its newline, padding lines skipped; -1 when there is no such file. */
enum { LINE = 600 };
extern char got[10000][LINE], want[1000][LINE];
int lines(const char *name, char out[][LINE], int max);

/* CLOCK_MONOTONIC, in seconds: the clock of a trace line's t=. */
double monotonic(void);

/* Takes " t=SECONDS.NANOSECONDS" (and the padding after it) out of a trace
 * line, which then reads as the child expected it; 0 unless it is right
 * after the name, has nine digits after the point, is not before `*last`
 * and lies within [from, to] (this process's clock around the run). */
int take_time(char *line, double *last, double from, double to);

/* The exit table's columns in l[0..n): the names' as wide as the longest
 * name shown plus a space, 20 at least; every row's calls (13 wide, right
 * aligned) ending where the header's "calls" ends. A FAIL per row that is
 * not, named by `what`. */
void check_columns(const char *what, char l[][LINE], int n);

#endif
