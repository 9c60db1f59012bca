/*
 * reader/accounts.h - each ring's counters (accounts.c): what the writer
 * counted, what this reader found, and what follows from both, settled at
 * every catalogue update (accounts_update()) and, for one source as its
 * records are taken, by accounts_settle() (source.h, in line).
 */
#ifndef BP_READER_ACCOUNTS_H
#define BP_READER_ACCOUNTS_H

struct bp_trace;

/* Every source's counters settled, after the catalogue changed. */
void accounts_update(struct bp_trace *t);
/* Once every source is read to its end: what was read against what the
 * file says was written. */
void accounts_check_read(struct bp_trace *t);

#endif /* BP_READER_ACCOUNTS_H */
