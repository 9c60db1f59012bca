/*
 * file/layout.h - the on-disk structures of a bprint trace file, as C.
 *
 * docs/file-format.md is the specification; this header pins it with
 * static assertions, so that the writer (src/writer/writer.c), the drainer
 * of `bprint record` (src/drainer/drain.c) and the readers agree byte for
 * byte (their validity rules: src/file/valid.c).
 * Field offsets never change within a major version: a minor version only
 * gives meaning to reserved bytes.
 *
 *	file:   | header (4096) | chunk | chunk | ... |      every chunk:
 *	chunk:  | bp_file_chunk (32) | type-specific ... |     align-sized,
 *	                                                       align-aligned
 *
 * Fields a live process updates while others read the file are _Atomic
 * (same size and representation as the plain type on the platforms we
 * support); a reader of an untrusted file may read them with plain loads.
 */
#ifndef BP_FILE_LAYOUT_H
#define BP_FILE_LAYOUT_H

#include "trace/clock.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define BP_FILE_MAGIC		"BPTRACE"	/* 8 bytes with the NUL */
#define BP_FILE_MAJOR		1u
#define BP_FILE_MINOR		5u	/* 1.1: the accounts chunk (type 7), dense pages (type 8);
					 * 1.2: memory_rings, missing_sites, memory_records;
					 * 1.3: stream files' chunk checksums (BP_FILE_F_CRC);
					 * ring chunks reused, retired_*, missing_libs,
					 * BP_RING_COPIED;
					 * 1.4: the header's checksums, live files'
					 * chunk headers' and lists' checksums;
					 * 1.5: the kernel stream (types 9, 10) */
#define BP_FILE_LITTLE_ENDIAN	1u
#define BP_FILE_BIG_ENDIAN	2u
#define BP_FILE_HEADER_BYTES	4096u
#define BP_FILE_ALIGN		4096u
#define BP_FILE_CMDLINE_MAX	2048u

/* header flags */
#define BP_FILE_F_STREAM	1u	/* written by `bprint record` */
#define BP_FILE_F_CLOSED	2u	/* the writer finished normally */
#define BP_FILE_F_CRC		4u	/* stream files of 1.3: every chunk's crc is set */
#define BP_FILE_MINOR_CRC	3u	/* the first minor whose streams carry checksums */
#define BP_FILE_MINOR_REUSE	3u	/* the first whose live files reuse ring chunks */
#define BP_FILE_MINOR_HCRC	4u	/* the first with the header's checksums, live chunk
					 * headers' and lists' checksums, stream chunk
					 * indices in order */

/*
 * The control area of a live file's header (offset 2304, 1024 bytes):
 * how `bprint enable`, `disable` and `sites` ask a running process to
 * switch its call sites (docs/attach.md, "Switching call sites").  The
 * process's control thread waits on `state` (a futex word, shared through
 * the file), serves one request at a time and answers in place.  Not part
 * of the trace: readers ignore it, the copier of a stream zeroes it.
 *
 *	IDLE --claim (CAS, the asker)--> CLAIMED --request written--> POSTED
 *	POSTED --CAS (the process)--> SERVING --answer written--> ANSWERED
 *	ANSWERED --answer read (the asker)--> IDLE
 *	POSTED --CAS (the asker, no answer in time)--> IDLE   (withdrawn)
 *	CLAIMED, ANSWERED --asker gone (the process)--> IDLE
 */
#define BP_CONTROL_VERSION	1u	/* `version` of the protocol above */
/* The control thread's name (/proc/PID/task/TID/comm): an asker that finds
 * `version` 0 tells by it a thread not serving yet (a fork child's waits
 * for its first record to make its file) from none at all. */
#define BP_CONTROL_THREAD_NAME	"bprint-control"
#define BP_CONTROL_DATA_BYTES	960u

enum bp_control_state {
	BP_CONTROL_IDLE = 0,
	BP_CONTROL_CLAIMED = 1,
	BP_CONTROL_POSTED = 2,
	BP_CONTROL_SERVING = 3,
	BP_CONTROL_ANSWERED = 4,
};

enum bp_control_op {
	BP_CONTROL_ENABLE = 1,		/* data: a site pattern; result: sites switched */
	BP_CONTROL_DISABLE = 2,		/* the same, off */
	BP_CONTROL_STATES = 3,		/* data: a bit per site from id `first` on */
};

/* result of an enable or disable that did nothing (besides >= 0) */
#define BP_CONTROL_BAD_PATTERN	(-2)	/* not a pattern bprint_enable() knows */
#define BP_CONTROL_NO_MEMORY	(-1)
#define BP_CONTROL_BAD_REQUEST	(-3)	/* an op or a length it does not know */

struct bp_file_control {
	_Atomic uint32_t version;	/* BP_CONTROL_VERSION once the process waits, else 0 */
	_Atomic uint32_t state;		/* enum bp_control_state: the futex word */
	_Atomic uint32_t asker;		/* pid of the process that claimed it */
	uint32_t op;			/* enum bp_control_op */
	int32_t result;			/* enable, disable: sites switched, or BP_CONTROL_*;
					 * states: one past the highest site id */
	uint32_t first;			/* states: the first site id asked and answered */
	uint32_t count;			/* states: site ids answered; else data's length */
	uint32_t gate;			/* states: 1 when tracing is on (bprint_on()) */
	uint8_t reserved[32];
	uint8_t data[BP_CONTROL_DATA_BYTES];	/* a pattern (NUL-terminated) or bits */
};

struct bp_file_header {
	char magic[8];			/* "BPTRACE\0" */
	uint16_t major;
	uint16_t minor;
	uint8_t byte_order;		/* BP_FILE_LITTLE_ENDIAN / _BIG_ENDIAN */
	uint8_t word_size;		/* 8 */
	uint16_t header_bytes;		/* 4096 */
	uint32_t align;			/* 4096 */
	_Atomic uint32_t flags;		/* BP_FILE_F_* */
	uint64_t pid;
	uint64_t start_realtime_ns;
	uint64_t start_mono_ns;
	_Atomic uint64_t end;		/* next chunk offset (fetch-add) */
	_Atomic uint64_t calib_seq;	/* slot in force: calib[calib_seq & 1] */
	struct bp_clock_calib calib[2];
	char comm[16];
	uint32_t cmdline_len;
	uint32_t ring_mode;		/* enum bp_ring_mode */
	char cmdline[BP_FILE_CMDLINE_MAX];
	/* stream files (minor 1): where the accounts are, and why the file ends */
	uint64_t accounts;		/* offset of the accounts chunk in force, 0 = none */
	uint32_t stop_reason;		/* BP_FILE_STOP_* */
	uint32_t stop_errno;		/* the failed write's errno */
	uint64_t stop_record;		/* records copied when the writes stopped */
	/* what the full file had no room for (minor 2) */
	_Atomic uint32_t memory_rings;	/* rings, traced in memory only */
	_Atomic uint32_t missing_sites;	/* site records: their records' sites are unknown */
	_Atomic uint64_t memory_records;	/* records handed to those rings, added at thread exit */
	/* rings whose chunk was reused while their records were in no other file (minor 3) */
	_Atomic uint32_t retired_rings;
	_Atomic uint32_t missing_libs;	/* library records the file had no room for */
	_Atomic uint64_t retired_written;	/* their written (+ dropped) */
	_Atomic uint64_t retired_discarded;	/* their discarded (+ dropped) */
	/* checksums (minor 4): see valid.h */
	uint32_t fixed_crc;		/* of the fields written once */
	uint32_t header_crc;		/* streams: of the whole header, this as 0 */
	uint32_t calib_crc[2];		/* of each calibration slot */
	uint8_t reserved0[24];
	/* a live file's control area (docs/attach.md); zero in stream files */
	struct bp_file_control control;
	uint8_t reserved[768];
};

/* The name of a process's live file in shared memory (bp_file_open_memory()):
 * /proc/PID/fd/N links to "/memfd:" this " (deleted)" (docs/attach.md). */
#define BP_FILE_MEMFD_NAME	"bprint-trace"

/* header stop_reason */
#define BP_FILE_STOP_NONE	0u
#define BP_FILE_STOP_FULL	1u	/* disk full (ENOSPC, EDQUOT, EFBIG) */
#define BP_FILE_STOP_IO		2u	/* another write error */

#define BP_CHUNK_MAGIC		"BPCK"	/* 4 bytes, no NUL */
#define BP_CHUNK_HDR_BYTES	32u

enum bp_chunk_type {
	BP_CHUNK_SITES = 1,
	BP_CHUNK_LIBS = 2,
	BP_CHUNK_RING = 3,
	BP_CHUNK_PAGES = 4,
	BP_CHUNK_END = 5,
	BP_CHUNK_CPAGES = 6,		/* compact pages, src/file/compact.h */
	BP_CHUNK_ACCOUNTS = 7,		/* the end chunk's counters, kept up to date */
	BP_CHUNK_DPAGES = 8,		/* dense pages (format 1.1), src/file/dense.h */
	BP_CHUNK_KFORMATS = 9,		/* the kernel's event formats (1.5), kernel_layout.h */
	BP_CHUNK_KPAGES = 10,		/* the kernel's per-CPU pages (1.5) */
};
#define BP_CHUNK_TYPE_MAX	10u

/* chunk state */
#define BP_CHUNK_WRITING	0u
#define BP_CHUNK_COMPLETE	1u
#define BP_CHUNK_ABANDONED	2u	/* allocated, never filled: skip it whole */

struct bp_file_chunk {
	char magic[4];			/* "BPCK" */
	uint32_t type;			/* enum bp_chunk_type */
	uint64_t size;			/* header included, multiple of align */
	_Atomic uint32_t state;		/* BP_CHUNK_*, stored last with release */
	uint32_t crc;			/* stream files of 1.3 (BP_FILE_F_CRC): CRC32C of
					 * the chunk but state and crc (accounts: of
					 * its header); live files of 1.4: of the chunk
					 * header's fixed fields (valid.h); 0 in other files */
	uint64_t index;			/* allocation order, from 1 */
};

/* Sites and libraries chunks: a list of records after this. */
struct bp_file_list {
	struct bp_file_chunk chunk;
	_Atomic uint32_t used;		/* bytes of complete records (release) */
	uint32_t crc;			/* live files of 1.4: of the records [40, 40 + used),
					 * stored before used; 0 in other files */
};
#define BP_FILE_LIST_HDR_BYTES	40u	/* records start here, 4-byte aligned */

struct bp_file_site {
	uint32_t rec_bytes;		/* this record, padded to 4 */
	uint32_t id;
	uint32_t line;
	uint8_t kind;			/* enum bprint__site_kind */
	uint8_t has_format;
	uint16_t reserved;
	uint32_t format_len;		/* each length includes the NUL */
	uint32_t file_len;
	uint32_t func_len;
	uint32_t lib;			/* library index, 0 = unknown */
	/* format, file, func */
};
#define BP_FILE_SITE_BYTES	32u

#define BP_FILE_BUILD_ID_MAX	64u

struct bp_file_lib {
	uint32_t rec_bytes;
	uint32_t index;			/* from 1 */
	uint64_t load_addr;		/* dlpi_addr */
	uint64_t lo;			/* lowest mapped address */
	uint64_t hi;			/* highest mapped address, exclusive */
	uint32_t build_id_len;		/* 0 .. 64 */
	uint32_t path_len;		/* includes the NUL */
	/* build-id bytes, path */
};
#define BP_FILE_LIB_BYTES	40u

/* ring chunk state (struct bp_file_ring.state) */
#define BP_RING_ALIVE		1u
#define BP_RING_EXITED		2u
#define BP_RING_RELEASED	3u	/* given back by the process; contents stale */
#define BP_RING_COPIED		4u	/* bprint record's copier is done with it: the
					 * process may reuse the chunk (minor 3) */

struct bp_file_ring {
	struct bp_file_chunk chunk;
	uint32_t tid;
	uint32_t level;
	char comm[16];
	_Atomic uint32_t state;		/* BP_RING_ALIVE / _EXITED / _RELEASED / _COPIED */
	uint32_t names_crc;		/* 1.4: of comm and dropped, stored after them */
	uint64_t ring_bytes;
	_Atomic uint64_t dropped;	/* records dropped before the ring */
	uint8_t reserved1[48];
	/* the ring, at offset 128 */
};
#define BP_FILE_RING_OFFSET	128u

struct bp_file_pages {
	struct bp_file_chunk chunk;
	uint32_t tid;
	uint32_t level;
	char comm[16];
	uint64_t ring_index;		/* the ring chunk's index in the live file */
	uint32_t page_size;
	uint32_t npages;		/* pages in this chunk */
	uint64_t written;		/* the ring's counters at copy time */
	uint64_t discarded;
	uint8_t reserved[40];
	/* npages x page_size bytes, at offset 128 */
};
#define BP_FILE_PAGES_OFFSET	128u

/* Compact pages: type 4's header plus data_bytes, then page entries. */
struct bp_file_cpages {
	struct bp_file_chunk chunk;
	uint32_t tid;
	uint32_t level;
	char comm[16];
	uint64_t ring_index;
	uint32_t page_size;
	uint32_t npages;		/* page entries in this chunk */
	uint64_t written;
	uint64_t discarded;
	uint64_t data_bytes;		/* bytes of entries from offset 128 */
	uint64_t block_waits;		/* the ring's block-mode waits at copy time */
	uint64_t block_ns;		/* and the time spent in them */
	uint64_t copied_before;		/* records in the ring's earlier pages chunks
					 * (1.1, 0 in older files): places the chunk
					 * against the accounts' copied */
	uint8_t reserved[8];
	/* npages entries, back to back, at offset 128 */
};

/*
 * A page entry of compact (type 6) and dense (type 8) pages chunks: the
 * ring page's header, then enc, then enc & BP_FILE_ENTRY_LEN_MASK bytes of
 * coded records (src/file/compact.h, src/file/dense.h).
 */
struct bp_file_page_entry {
	uint64_t seq;			/* the ring page's header, as in the ring */
	uint64_t base_ts;
	uint64_t first_rec;
	uint64_t discarded_before;
	uint32_t commit;
	uint32_t reserved;
	uint32_t enc;			/* bytes of records; BP_FILE_ENTRY_RAW */
	/* records */
};
#define BP_FILE_ENTRY_HDR_BYTES	44u
#define BP_FILE_ENTRY_RAW	0x80000000u	/* records stored verbatim */
#define BP_FILE_ENTRY_LEN_MASK	0x7fffffffu

/* Dense records (type 8): the reference table and its hash. */
#define BP_DENSE_SLOT_BITS	6u		/* 64 slots */
#define BP_DENSE_HASH_MUL	0x9e3779b1u	/* slot = head * mul >> (32 - bits) */

struct bp_file_end {
	struct bp_file_chunk chunk;
	uint32_t count;
	uint32_t reserved;
	/* count x struct bp_file_end_ring */
};
#define BP_FILE_END_HDR_BYTES	40u

struct bp_file_end_ring {
	uint64_t ring_index;
	uint32_t tid;
	uint32_t level;
	uint64_t written;
	uint64_t discarded;
	uint64_t dropped;
	uint64_t lost_records;		/* stored records the drainer never copied */
	uint64_t lost_pages;		/* pages it never copied (overwrite mode) */
	uint64_t copied;		/* records in the ring's pages chunks written so far */
};
#define BP_FILE_END_RING_BYTES	64u

#define BP_LAYOUT_AT(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " at " #off)

_Static_assert(sizeof(struct bp_clock_calib) == 32, "calibration slot is 32 bytes");
_Static_assert(sizeof(_Atomic uint64_t) == 8 && sizeof(_Atomic uint32_t) == 4,
	       "atomics have the size of their values");
BP_LAYOUT_AT(bp_file_header, major, 8);
BP_LAYOUT_AT(bp_file_header, minor, 10);
BP_LAYOUT_AT(bp_file_header, byte_order, 12);
BP_LAYOUT_AT(bp_file_header, word_size, 13);
BP_LAYOUT_AT(bp_file_header, header_bytes, 14);
BP_LAYOUT_AT(bp_file_header, align, 16);
BP_LAYOUT_AT(bp_file_header, flags, 20);
BP_LAYOUT_AT(bp_file_header, pid, 24);
BP_LAYOUT_AT(bp_file_header, start_realtime_ns, 32);
BP_LAYOUT_AT(bp_file_header, start_mono_ns, 40);
BP_LAYOUT_AT(bp_file_header, end, 48);
BP_LAYOUT_AT(bp_file_header, calib_seq, 56);
BP_LAYOUT_AT(bp_file_header, calib, 64);
BP_LAYOUT_AT(bp_file_header, comm, 128);
BP_LAYOUT_AT(bp_file_header, cmdline_len, 144);
BP_LAYOUT_AT(bp_file_header, ring_mode, 148);
BP_LAYOUT_AT(bp_file_header, cmdline, 152);
BP_LAYOUT_AT(bp_file_header, accounts, 2200);
BP_LAYOUT_AT(bp_file_header, stop_reason, 2208);
BP_LAYOUT_AT(bp_file_header, stop_errno, 2212);
BP_LAYOUT_AT(bp_file_header, stop_record, 2216);
BP_LAYOUT_AT(bp_file_header, memory_rings, 2224);
BP_LAYOUT_AT(bp_file_header, missing_sites, 2228);
BP_LAYOUT_AT(bp_file_header, memory_records, 2232);
BP_LAYOUT_AT(bp_file_header, retired_rings, 2240);
BP_LAYOUT_AT(bp_file_header, missing_libs, 2244);
BP_LAYOUT_AT(bp_file_header, retired_written, 2248);
BP_LAYOUT_AT(bp_file_header, retired_discarded, 2256);
BP_LAYOUT_AT(bp_file_header, fixed_crc, 2264);
BP_LAYOUT_AT(bp_file_header, header_crc, 2268);
BP_LAYOUT_AT(bp_file_header, calib_crc, 2272);
BP_LAYOUT_AT(bp_file_header, reserved0, 2280);
BP_LAYOUT_AT(bp_file_header, control, 2304);
BP_LAYOUT_AT(bp_file_header, reserved, 3328);
BP_LAYOUT_AT(bp_file_control, state, 4);
BP_LAYOUT_AT(bp_file_control, asker, 8);
BP_LAYOUT_AT(bp_file_control, op, 12);
BP_LAYOUT_AT(bp_file_control, result, 16);
BP_LAYOUT_AT(bp_file_control, first, 20);
BP_LAYOUT_AT(bp_file_control, count, 24);
BP_LAYOUT_AT(bp_file_control, gate, 28);
BP_LAYOUT_AT(bp_file_control, data, 64);
_Static_assert(sizeof(struct bp_file_control) == 1024, "control area is 1024 bytes");
_Static_assert(sizeof(struct bp_file_header) == BP_FILE_HEADER_BYTES, "header is 4096 bytes");

BP_LAYOUT_AT(bp_file_chunk, type, 4);
BP_LAYOUT_AT(bp_file_chunk, size, 8);
BP_LAYOUT_AT(bp_file_chunk, state, 16);
BP_LAYOUT_AT(bp_file_chunk, crc, 20);
BP_LAYOUT_AT(bp_file_chunk, index, 24);
_Static_assert(sizeof(struct bp_file_chunk) == BP_CHUNK_HDR_BYTES, "chunk header is 32 bytes");

BP_LAYOUT_AT(bp_file_list, used, 32);
BP_LAYOUT_AT(bp_file_list, crc, 36);
_Static_assert(sizeof(struct bp_file_list) == BP_FILE_LIST_HDR_BYTES, "list header");

BP_LAYOUT_AT(bp_file_site, id, 4);
BP_LAYOUT_AT(bp_file_site, line, 8);
BP_LAYOUT_AT(bp_file_site, kind, 12);
BP_LAYOUT_AT(bp_file_site, has_format, 13);
BP_LAYOUT_AT(bp_file_site, format_len, 16);
BP_LAYOUT_AT(bp_file_site, file_len, 20);
BP_LAYOUT_AT(bp_file_site, func_len, 24);
BP_LAYOUT_AT(bp_file_site, lib, 28);
_Static_assert(sizeof(struct bp_file_site) == BP_FILE_SITE_BYTES, "site record head");

BP_LAYOUT_AT(bp_file_lib, index, 4);
BP_LAYOUT_AT(bp_file_lib, load_addr, 8);
BP_LAYOUT_AT(bp_file_lib, lo, 16);
BP_LAYOUT_AT(bp_file_lib, hi, 24);
BP_LAYOUT_AT(bp_file_lib, build_id_len, 32);
BP_LAYOUT_AT(bp_file_lib, path_len, 36);
_Static_assert(sizeof(struct bp_file_lib) == BP_FILE_LIB_BYTES, "library record head");

BP_LAYOUT_AT(bp_file_ring, tid, 32);
BP_LAYOUT_AT(bp_file_ring, level, 36);
BP_LAYOUT_AT(bp_file_ring, comm, 40);
BP_LAYOUT_AT(bp_file_ring, state, 56);
BP_LAYOUT_AT(bp_file_ring, names_crc, 60);
BP_LAYOUT_AT(bp_file_ring, ring_bytes, 64);
BP_LAYOUT_AT(bp_file_ring, dropped, 72);
_Static_assert(sizeof(struct bp_file_ring) == BP_FILE_RING_OFFSET, "ring chunk head");

BP_LAYOUT_AT(bp_file_pages, tid, 32);
BP_LAYOUT_AT(bp_file_pages, level, 36);
BP_LAYOUT_AT(bp_file_pages, comm, 40);
BP_LAYOUT_AT(bp_file_pages, ring_index, 56);
BP_LAYOUT_AT(bp_file_pages, page_size, 64);
BP_LAYOUT_AT(bp_file_pages, npages, 68);
BP_LAYOUT_AT(bp_file_pages, written, 72);
BP_LAYOUT_AT(bp_file_pages, discarded, 80);
_Static_assert(sizeof(struct bp_file_pages) == BP_FILE_PAGES_OFFSET, "pages chunk head");

BP_LAYOUT_AT(bp_file_cpages, tid, 32);
BP_LAYOUT_AT(bp_file_cpages, level, 36);
BP_LAYOUT_AT(bp_file_cpages, comm, 40);
BP_LAYOUT_AT(bp_file_cpages, ring_index, 56);
BP_LAYOUT_AT(bp_file_cpages, page_size, 64);
BP_LAYOUT_AT(bp_file_cpages, npages, 68);
BP_LAYOUT_AT(bp_file_cpages, written, 72);
BP_LAYOUT_AT(bp_file_cpages, discarded, 80);
BP_LAYOUT_AT(bp_file_cpages, copied_before, 112);
BP_LAYOUT_AT(bp_file_cpages, data_bytes, 88);
BP_LAYOUT_AT(bp_file_cpages, block_waits, 96);
BP_LAYOUT_AT(bp_file_cpages, block_ns, 104);
_Static_assert(sizeof(struct bp_file_cpages) == BP_FILE_PAGES_OFFSET, "compact pages chunk head");

BP_LAYOUT_AT(bp_file_page_entry, base_ts, 8);
BP_LAYOUT_AT(bp_file_page_entry, first_rec, 16);
BP_LAYOUT_AT(bp_file_page_entry, discarded_before, 24);
BP_LAYOUT_AT(bp_file_page_entry, commit, 32);
BP_LAYOUT_AT(bp_file_page_entry, enc, 40);
_Static_assert(offsetof(struct bp_file_page_entry, enc) + 4 == BP_FILE_ENTRY_HDR_BYTES,
	       "records follow enc at 44");
_Static_assert((BP_FILE_ENTRY_RAW & BP_FILE_ENTRY_LEN_MASK) == 0, "raw is bit 31 of enc");

BP_LAYOUT_AT(bp_file_end, count, 32);
_Static_assert(sizeof(struct bp_file_end) == BP_FILE_END_HDR_BYTES, "end chunk head");
BP_LAYOUT_AT(bp_file_end_ring, tid, 8);
BP_LAYOUT_AT(bp_file_end_ring, level, 12);
BP_LAYOUT_AT(bp_file_end_ring, written, 16);
BP_LAYOUT_AT(bp_file_end_ring, discarded, 24);
BP_LAYOUT_AT(bp_file_end_ring, dropped, 32);
BP_LAYOUT_AT(bp_file_end_ring, lost_records, 40);
BP_LAYOUT_AT(bp_file_end_ring, lost_pages, 48);
BP_LAYOUT_AT(bp_file_end_ring, copied, 56);
_Static_assert(sizeof(struct bp_file_end_ring) == BP_FILE_END_RING_BYTES, "end entry");

/* Round n up to the file's alignment. */
static inline uint64_t bp_file_align_up(uint64_t n)
{
	return (n + BP_FILE_ALIGN - 1) & ~(uint64_t)(BP_FILE_ALIGN - 1);
}

#endif /* BP_FILE_LAYOUT_H */
