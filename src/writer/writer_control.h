/*
 * writer/writer_control.h - the thread that switches a running process's call
 * sites for `bprint enable`, `disable` and `sites` (writer_control.c, the
 * header's control area: layout.h, docs/attach.md).
 */
#ifndef BP_FILE_CONTROL_H
#define BP_FILE_CONTROL_H

struct bp_file_header;

/*
 * Start the control thread of the live file whose header is h (mapped
 * for the life of the process): detached, every signal blocked, asleep
 * until asked.  Quietly nothing if no thread can be made (then the
 * header's control version stays 0, and the commands say so).  Ordinary
 * context only (not a signal handler).
 */
void bp_control_start(struct bp_file_header *h);

/*
 * A fork child (the fork handler: ordinary context, one thread): its
 * control thread, started now, while a thread can be, sleeps until
 * bp_control_file_made() says the child's own file exists (made on its
 * first record, maybe in a signal handler), then serves that file.  A
 * child that execs first loses it with the rest of its image.
 */
void bp_control_start_child(void);

/* The child's file is made (bp_live_hdr()): async-signal-safe. */
void bp_control_file_made(void);

#endif /* BP_FILE_CONTROL_H */
