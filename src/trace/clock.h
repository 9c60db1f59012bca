/*
 * The tracer's clocks, selectable like ftrace's trace_clock
 * (BPRINT_CLOCK=tsc|mono|mono_raw|boot|counter).
 *
 * The hot path, bp_clock_now(), stores a raw timestamp exactly as read:
 *
 *   tsc       TSC ticks (x86-64 only; needs an invariant TSC).  No fence, so
 *             the read may move by a few cycles against neighbouring code.
 *   mono      CLOCK_MONOTONIC nanoseconds (through the vDSO).
 *   mono_raw  CLOCK_MONOTONIC_RAW nanoseconds: not slewed by NTP, so its
 *             output is in its own clock's nanoseconds, not monotonic ones.
 *   boot      CLOCK_BOOTTIME nanoseconds: counts suspend, so again its own
 *             clock's nanoseconds.
 *   counter   a process-wide count: every call does an atomic fetch-add on
 *             one shared cache line.  It is the one clock with a shared
 *             atomic, and the one that gives an exact order across threads
 *             (two calls ordered by happens-before get increasing counts, no
 *             two calls get the same count).  Its "nanoseconds" are counts.
 *
 * A reader turns raw timestamps into nanoseconds with a struct
 * bp_clock_calib, which has fixed-width fields only because it is written
 * into trace files read by another process.  For tsc the output is
 * CLOCK_MONOTONIC nanoseconds; for the others the conversion is the
 * identity (the raw value already is the clock's nanoseconds or count).
 *
 * Selecting the clock is meant to happen before tracing starts: a record
 * stamped while another thread switches clocks may carry either clock's
 * value, and the buffers do not say which (ftrace resets its buffers on a
 * clock change for the same reason).
 *
 * Before any selection, and up to the library's early constructor, the
 * clock is mono; that constructor selects the default (tsc when usable,
 * else mono).  It runs at constructor priority 101, ahead of ordinary
 * constructors.
 */
#ifndef BP_TRACE_CLOCK_H
#define BP_TRACE_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

enum bp_clock_id {
	BP_CLOCK_TSC,
	BP_CLOCK_MONO,
	BP_CLOCK_MONO_RAW,
	BP_CLOCK_BOOT,
	BP_CLOCK_COUNTER,
};
#define BP_CLOCK_NR 5

/*
 * ns = ns0 + (((raw - raw0) * mult) >> shift), with the difference taken
 * as signed (raw < raw0 gives a time before ns0) and a 128-bit product.
 * clock_id is an enum bp_clock_id.
 */
struct bp_clock_calib {
	uint32_t clock_id;
	uint32_t shift;
	uint64_t raw0;
	uint64_t ns0;
	uint64_t mult;
};

/*
 * What the rest of bprint knows of a clock, one row a clock in clock.c's
 * table: its name, the names and ids other tools give it, and how its
 * time stamps map to wall-clock dates.  Adding a clock touches the enum
 * above, its row, its reading code in bp_clock_now() below, a test and
 * the docs (docs/trace-format.md, "Clocks"); nothing else names clocks.
 */
struct bp_clock_desc {
	const char *name;		/* BPRINT_CLOCK's and the trace file's */
	const char *ctf_name;		/* CTF's clock name: LTTng's where it has one */
	const char *tracecmd_name;	/* trace-cmd's [clock] trailer: the nearest clock
					 * trace-cmd prints seconds for ("global": none) */
	uint32_t perfetto_clock;	/* Perfetto's BuiltinClock id */
	unsigned monotonic_ns : 1;	/* counts CLOCK_MONOTONIC's nanoseconds (after
					 * calibration): realtime = ns + the offset the
					 * header's start pair gives */
	unsigned dated : 1;		/* the header's start pair dates its records */
	unsigned calibrated : 1;	/* raw counts converted by the file's calibration */
};

/* Perfetto's BuiltinClock ids the table uses (protos/perfetto/common/
 * builtin_clock.proto). */
#define BP_PERFETTO_CLOCK_REALTIME 1u
#define BP_PERFETTO_CLOCK_MONOTONIC 3u
#define BP_PERFETTO_CLOCK_MONOTONIC_RAW 5u
#define BP_PERFETTO_CLOCK_BOOTTIME 6u

/* The row of id, or NULL for a value that is no clock id. */
const struct bp_clock_desc *bp_clock_desc(enum bp_clock_id id);

/* "tsc", "mono", ... to the id: 0, or -1 for an unknown name (or NULL).
 * Names are matched exactly (lower case). */
int bp_clock_parse(const char *name, enum bp_clock_id *out);

/* The id's name, or NULL for a value that is no clock id. */
const char *bp_clock_name(enum bp_clock_id id);

/* Whether the tsc clock is usable here: x86-64 and either CPUID reports an
 * invariant TSC or the kernel's current clocksource is the TSC. */
int bp_clock_tsc_usable(void);

/* tsc when usable, else mono. */
enum bp_clock_id bp_clock_default(void);

/*
 * Make id the process-wide clock of bp_clock_now() and take the first
 * (tsc, CLOCK_MONOTONIC) calibration pair.  Cheap (no busy-wait): a few
 * clock reads, plus a CPUID and maybe one small sysfs read for tsc.
 * Returns 0, or -1 for an invalid id (nothing changes) or for tsc where it
 * is unusable (mono is selected instead).  Thread-safe, but not
 * async-signal-safe: a handler must not select while its thread selects.
 */
int bp_clock_select(enum bp_clock_id id);

/* Select the clock named by name (say getenv("BPRINT_CLOCK")); NULL or ""
 * selects the default.  -1 for an unknown name (the clock is unchanged) or
 * an unusable tsc (mono is selected). */
int bp_clock_select_name(const char *name);

/* fork(): prepare waits out a selection in progress and holds off others; release ends that. */
void bp_clock_fork_prepare(void);
void bp_clock_fork_release(void);

/* The clock bp_clock_now() reads now. */
enum bp_clock_id bp_clock_selected(void);

/*
 * The calibration for the selected clock, computed from the pair taken at
 * selection and a fresh pair: the longer the process has run since
 * bp_clock_select(), the more accurate it is, so calibrate again before
 * writing a trace out.  If less than a millisecond has passed since the
 * selection, this first busy-waits for the rest of it.  Async-signal-safe.
 */
void bp_clock_calibrate(struct bp_clock_calib *out);

/* raw (a bp_clock_now() value) to nanoseconds with c.  Defined for any
 * contents of c, as a trace file's calibration is untrusted input: the
 * result saturates at 0 and UINT64_MAX.  In line, the identity (a clock
 * that counts nanoseconds already) first: every record read pays it. */
uint64_t bp_clock_to_ns_scaled(const struct bp_clock_calib *c, uint64_t raw);

/* bp_clock_to_ns_scaled()'s body, in line (bp_clock_to_ns_inline()). */
static inline uint64_t bp_clock_to_ns_scaled_inline(const struct bp_clock_calib *c, uint64_t raw)
{
	int before = raw < c->raw0;
	unsigned __int128 d = before ? c->raw0 - raw : raw - c->raw0;

	d *= c->mult;
	d = c->shift < 128 ? d >> c->shift : 0;
	if (before)
		return d >= c->ns0 ? 0 : c->ns0 - (uint64_t)d;
	if (d > UINT64_MAX - c->ns0)
		return UINT64_MAX;
	return c->ns0 + (uint64_t)d;
}

/* A clock that counts nanoseconds already: only the offset. */
static inline uint64_t bp_clock_to_ns_unscaled_(const struct bp_clock_calib *c, uint64_t raw)
{
	if (raw < c->raw0)
		return c->raw0 - raw >= c->ns0 ? 0 : c->ns0 - (c->raw0 - raw);
	return raw - c->raw0 > UINT64_MAX - c->ns0 ? UINT64_MAX : c->ns0 + (raw - c->raw0);
}

static inline uint64_t bp_clock_to_ns(const struct bp_clock_calib *c, uint64_t raw)
{
	if (c->mult != 1 || c->shift != 0)
		return bp_clock_to_ns_scaled(c, raw);
	return bp_clock_to_ns_unscaled_(c, raw);
}

/* bp_clock_to_ns() with the scaled case in line too: for a reader's loop
 * over a run of records, where the call and the calibration's reloads
 * cost more than the multiply. */
static inline uint64_t bp_clock_to_ns_inline(const struct bp_clock_calib *c, uint64_t raw)
{
	if (c->mult != 1 || c->shift != 0)
		return bp_clock_to_ns_scaled_inline(c, raw);
	return bp_clock_to_ns_unscaled_(c, raw);
}

/* For the tests only: force the answer of bp_clock_tsc_usable() (0 or 1),
 * or give the question back to the hardware (-1). */
void bp_clock_test_override_tsc(int usable);

/* The state behind bp_clock_now(); use the functions above instead. */
struct bp_clock_state {
	_Alignas(64) _Atomic uint32_t id;	/* read on every event */
	_Alignas(64) _Atomic uint64_t counter;	/* the counter clock */
	char pad_[64 - sizeof(uint64_t)];
};
/* hidden: read PC-relative on the hot path, not through the GOT */
extern struct bp_clock_state bp_clock_state __attribute__((visibility("hidden")));

static inline uint64_t bp_clock_timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* A system clock (CLOCK_MONOTONIC for timeouts and pacing, CLOCK_REALTIME
 * for dates) now, in ns: not a reading of the trace clock. */
static inline uint64_t bp_clock_read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return bp_clock_timespec_ns(&ts);
}

/* The raw timestamp of the selected clock.  Async-signal-safe, no locks;
 * no syscall where the vDSO serves the clock. */
static inline uint64_t bp_clock_now(void)
{
	uint32_t id = atomic_load_explicit(&bp_clock_state.id, memory_order_relaxed);
	struct timespec ts;
	clockid_t cid;

#if defined(__x86_64__)
	if (__builtin_expect(id == BP_CLOCK_TSC, 1))
		return __builtin_ia32_rdtsc();
#endif
	switch (id) {
	case BP_CLOCK_COUNTER:
		return atomic_fetch_add_explicit(&bp_clock_state.counter, 1,
						 memory_order_relaxed);
	case BP_CLOCK_MONO_RAW: cid = CLOCK_MONOTONIC_RAW; break;
	case BP_CLOCK_BOOT: cid = CLOCK_BOOTTIME; break;
	default: cid = CLOCK_MONOTONIC; break;
	}
	clock_gettime(cid, &ts);
	return bp_clock_timespec_ns(&ts);
}

/* Is the selected clock the TSC?  (Then bp_clock_tsc_now() is bp_clock_now().) */
static inline int bp_clock_is_tsc(void)
{
#if defined(__x86_64__)
	return atomic_load_explicit(&bp_clock_state.id, memory_order_relaxed) == BP_CLOCK_TSC;
#else
	return 0;
#endif
}

/* The TSC itself; only where bp_clock_is_tsc() said yes. */
static inline uint64_t bp_clock_tsc_now(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	return bp_clock_now();
#endif
}

#endif
