/*
 * bench/hotpath_tail.h - bench-hotpath's tail (hotpath_tail.c): single
 * calls of the seed's message against the floor, in distribution.
 */
#ifndef BP_BENCH_HOTPATH_TAIL_H
#define BP_BENCH_HOTPATH_TAIL_H

/*
 * Measure and print the tail, titled where; *ratio (if not NULL) gets the
 * p99.9 over the floor's.  Returns 0, or -1 if not measured (another clock).
 */
int bench_tail(const char *where, double *ratio);

/* Run self --tail under bprint_cmd record (its output is the child's); 0 if it ran. */
int bench_tail_recorded(const char *self, const char *bprint_cmd);

#endif
