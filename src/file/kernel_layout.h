/*
 * file/kernel_layout.h - the kernel stream's chunks (format 1.5): the
 * kernel's event formats (type 9) and its per-CPU pages (type 10), as
 * docs/kernel-stream.md specifies them byte by byte.  The pages are the
 * kernel's own ring-buffer pages, kept as trace_pipe_raw returned them.
 */
#ifndef BP_FILE_KERNEL_LAYOUT_H
#define BP_FILE_KERNEL_LAYOUT_H

#include "file/layout.h"

#include <bprint/reader.h>

#include <stddef.h>
#include <stdint.h>

#define BP_KERNEL_DATA_OFFSET	128u	/* records or pages start here */
#define BP_KERNEL_CLOCK_LEN	16u
#define BP_KERNEL_REC_BYTES	16u	/* a formats record's fixed part */
#define BP_KERNEL_REC_HEADER_PAGE 1u	/* kind: events/header_page */
#define BP_KERNEL_REC_EVENT	2u	/* kind: events/SYSTEM/NAME/format */
#define BP_KERNEL_SITE_BASE	BP_TRACE_KERNEL_SITE_BASE /* a kernel event's site id: base + its ID */
#define BP_KERNEL_ID_MAX	0xffffu

/* The page header's commit word: events lost before this page, and their
 * count stored after the data (the kernel's ring buffer flags). */
#define BP_KERNEL_MISSED_EVENTS	(1ull << 31)
#define BP_KERNEL_MISSED_STORED	(1ull << 30)
#define BP_KERNEL_COMMIT_MASK	((1ull << 27) - 1)

struct bp_file_kformats {
	struct bp_file_chunk chunk;
	uint32_t used;			/* bytes of records from offset 128 */
	uint32_t ncpus;
	uint32_t page_size;		/* a kernel page's bytes */
	uint32_t clock;			/* enum bp_clock_id of the kernel's stamps */
	char trace_clock[BP_KERNEL_CLOCK_LEN];	/* the instance's, NUL-padded */
	uint64_t root_pid;		/* the traced command */
	uint32_t long_size;
	uint32_t flags;
	uint8_t reserved[48];
	/* records at offset 128 */
};

struct bp_file_krec {
	uint32_t rec_bytes;		/* padded to 4 */
	uint32_t kind;			/* BP_KERNEL_REC_* */
	uint32_t system_len;		/* NUL included */
	uint32_t text_len;		/* NUL included */
	/* system, text */
};

struct bp_file_kpages {
	struct bp_file_chunk chunk;
	uint32_t cpu;
	uint32_t npages;
	uint32_t page_size;
	uint32_t reserved0;
	uint64_t seq;			/* this chunk's first page among its CPU's */
	uint64_t missed;		/* events lost, as these pages count them */
	uint64_t missed_pages;		/* pages flagged lost without a count */
	uint8_t reserved[56];
	/* npages x page_size bytes at offset 128 */
};

_Static_assert(offsetof(struct bp_file_kformats, used) == 32, "kformats used");
_Static_assert(offsetof(struct bp_file_kformats, trace_clock) == 48, "kformats clock");
_Static_assert(offsetof(struct bp_file_kformats, root_pid) == 64, "kformats root_pid");
_Static_assert(offsetof(struct bp_file_kformats, long_size) == 72, "kformats long_size");
_Static_assert(sizeof(struct bp_file_kformats) == BP_KERNEL_DATA_OFFSET, "kformats size");
_Static_assert(sizeof(struct bp_file_krec) == BP_KERNEL_REC_BYTES, "krec size");
_Static_assert(offsetof(struct bp_file_kpages, seq) == 48, "kpages seq");
_Static_assert(offsetof(struct bp_file_kpages, missed_pages) == 64, "kpages missed_pages");
_Static_assert(sizeof(struct bp_file_kpages) == BP_KERNEL_DATA_OFFSET, "kpages size");

#endif /* BP_FILE_KERNEL_LAYOUT_H */
