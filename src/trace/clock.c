/*
 * Clock selection and calibration, and the fast path's gate, whose bit 1
 * is the clock's (with the global switch, its bit 0).  The hot path is
 * bp_clock_now() in clock.h; everything here runs at selection or when a
 * reader needs a calibration.
 *
 * TSC calibration: bp_clock_select() takes one (tsc, CLOCK_MONOTONIC) pair,
 * the base.  bp_clock_calibrate() takes a fresh pair and draws the line
 * through both, anchored at the fresh one, so the longer the baseline the
 * better the slope.  Each pair is the tightest of a few tries of
 * (tsc before, clock_gettime, tsc after), the TSC value being the middle of
 * the window.  There is no busy-wait at selection, so start-up stays cheap;
 * a calibration asked for within a millisecond of the selection waits for
 * the rest of that millisecond instead.
 *
 * The base is published under a sequence count so that a calibration
 * (which may run in a signal handler) never sees half of a selection.
 * Its orderings are named as docs/locks.md lists them (K1-K4):
 *   K1  select_begin: the count made odd (acquire) and a release fence,
 *       before the base's stores; pairs with K4.
 *   K2  bp_clock_select: the base's stores, then the count made even
 *       (release); pairs with K3.
 *   K3  read_base: the count (acquire) before the base's loads; pairs
 *       with K2, so an even count read first means a whole base after it.
 *   K4  read_base: an acquire fence after the base's loads, before the
 *       count is read again; pairs with K1, so a selection that began
 *       while we read changes the count we compare.
 * The rest is relaxed, each saying why where it is.
 */
#include "trace/clock.h"
#include "trace/site.h"

#include <bprint.h>

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

struct bp_clock_state bp_clock_state = { .id = BP_CLOCK_MONO };

/*
 * The inline fast path's gate (include/bprint/internal.h): on (bit 0, the
 * global switch below) and the clock is the TSC (bit 1, set by the
 * selection).  A cache line of its own: read on every call, written only
 * by the switches, so no core ever loses its copy to a write.  On, and
 * not the TSC until the clock's constructor selects it.
 */
struct bprint__gate bprint__gate = { .bits = BPRINT__GATE_ON };

/* The bit, then the sites' enabled bytes that follow it (trace/site.h). */
void bprint_on(void)
{
	__atomic_fetch_or(&bprint__gate.bits, BPRINT__GATE_ON, __ATOMIC_RELAXED);
	bp_site_follow_switch();
}

void bprint_off(void)
{
	__atomic_fetch_and(&bprint__gate.bits, ~BPRINT__GATE_ON, __ATOMIC_RELAXED);
	bp_site_follow_switch();
}

int bprint_is_on(void)
{
	return (__atomic_load_n(&bprint__gate.bits, __ATOMIC_RELAXED) & BPRINT__GATE_ON) != 0;
}

#define PAIR_TRIES 5
#define MIN_BASELINE_NS 1000000u	/* 1 ms */
#define SEQ_READ_TRIES 1000

static struct {
	_Atomic uint32_t seq;		/* odd while a selection writes */
	_Atomic uint32_t id;
	_Atomic uint64_t tsc;		/* the base pair */
	_Atomic uint64_t ns;
} base;

/* Test hook: -1 asks the hardware, 0 and 1 override it. */
static _Atomic int tsc_usable_override = -1;

/* The clock table (clock.h, struct bp_clock_desc).  tsc is calibrated to
 * CLOCK_MONOTONIC, so the viewers are told it is that clock; boot and the
 * counter have no clock of trace-cmd's that prints seconds, nor dates. */
static const struct bp_clock_desc clocks[BP_CLOCK_NR] = {
	[BP_CLOCK_TSC] = { .name = "tsc", .ctf_name = "monotonic", .tracecmd_name = "mono",
			   .perfetto_clock = BP_PERFETTO_CLOCK_MONOTONIC,
			   .monotonic_ns = 1, .dated = 1, .calibrated = 1 },
	[BP_CLOCK_MONO] = { .name = "mono", .ctf_name = "monotonic", .tracecmd_name = "mono",
			    .perfetto_clock = BP_PERFETTO_CLOCK_MONOTONIC,
			    .monotonic_ns = 1, .dated = 1, .calibrated = 0 },
	[BP_CLOCK_MONO_RAW] = { .name = "mono_raw", .ctf_name = "monotonic_raw",
				.tracecmd_name = "mono_raw",
				.perfetto_clock = BP_PERFETTO_CLOCK_MONOTONIC_RAW,
				.monotonic_ns = 0, .dated = 1, .calibrated = 0 },
	[BP_CLOCK_BOOT] = { .name = "boot", .ctf_name = "boottime", .tracecmd_name = "global",
			    .perfetto_clock = BP_PERFETTO_CLOCK_BOOTTIME,
			    .monotonic_ns = 0, .dated = 0, .calibrated = 0 },
	[BP_CLOCK_COUNTER] = { .name = "counter", .ctf_name = "counter", .tracecmd_name = "global",
			       .perfetto_clock = BP_PERFETTO_CLOCK_BOOTTIME,
			       .monotonic_ns = 0, .dated = 0, .calibrated = 0 },
};

const struct bp_clock_desc *bp_clock_desc(enum bp_clock_id id)
{
	unsigned i = (unsigned)id;

	return i < BP_CLOCK_NR ? &clocks[i] : NULL;
}

int bp_clock_parse(const char *name, enum bp_clock_id *out)
{
	unsigned i;

	if (!name)
		return -1;
	for (i = 0; i < BP_CLOCK_NR; i++) {
		if (strcmp(name, clocks[i].name) == 0) {
			*out = (enum bp_clock_id)i;
			return 0;
		}
	}
	return -1;
}

const char *bp_clock_name(enum bp_clock_id id)
{
	const struct bp_clock_desc *d = bp_clock_desc(id);

	return d ? d->name : NULL;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return bp_clock_timespec_ns(&ts);
}

#if defined(__x86_64__)
/* A TSC read that does not start before earlier instructions finish. */
static inline uint64_t rdtsc_ordered(void)
{
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
}

static int cpuid_invariant_tsc(void)
{
	unsigned a, b, c, d;

	/* gcc says unsigned, clang int */
	if ((unsigned)__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	(void)a; (void)b; (void)c;
	return (d >> 8) & 1u;
}

/* Some hypervisors do not report the invariant TSC bit although the TSC
 * is fine; the kernel's choice of it as clocksource says it is. */
static int kernel_uses_tsc(void)
{
	static const char path[] =
		"/sys/devices/system/clocksource/clocksource0/current_clocksource";
	char buf[16];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == 4 && memcmp(buf, "tsc\n", 4) == 0;
}

/* The tightest of a few (tsc, CLOCK_MONOTONIC) samples. */
static void take_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	*tsc = 0;
	*ns = 0;
	for (i = 0; i < PAIR_TRIES || best == UINT64_MAX; i++) {
		uint64_t t0 = rdtsc_ordered();
		uint64_t n = mono_ns();
		uint64_t t1 = rdtsc_ordered();

		if (t1 < t0)		/* moved to a CPU with another TSC? */
			continue;
		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = n;
		}
		if (i > 100 * PAIR_TRIES)	/* the TSC keeps going back */
			break;
	}
}
#endif

int bp_clock_tsc_usable(void)
{
	/* relaxed: a test's switch, a value alone that guards no data */
	int o = atomic_load_explicit(&tsc_usable_override, memory_order_relaxed);

	if (o >= 0)
		return o;
#if defined(__x86_64__)
	{
		/* 0 not yet known, 1 usable, 2 not usable.  relaxed: every
		 * thread that finds 0 computes the same answer from the CPU and
		 * the kernel, so a racing store writes what the other would. */
		static _Atomic int cached;
		int v = atomic_load_explicit(&cached, memory_order_relaxed);

		if (v == 0) {
			v = cpuid_invariant_tsc() || kernel_uses_tsc() ? 1 : 2;
			atomic_store_explicit(&cached, v, memory_order_relaxed);
		}
		return v == 1;
	}
#else
	return 0;
#endif
}

void bp_clock_test_override_tsc(int usable)
{
	atomic_store_explicit(&tsc_usable_override, usable, memory_order_relaxed);
}

enum bp_clock_id bp_clock_default(void)
{
	return bp_clock_tsc_usable() ? BP_CLOCK_TSC : BP_CLOCK_MONO;
}

/* relaxed: a hint for callers that only name the clock; whoever needs the
 * id with its base reads both under the count (read_base). */
enum bp_clock_id bp_clock_selected(void)
{
	return (enum bp_clock_id)atomic_load_explicit(&bp_clock_state.id,
						       memory_order_relaxed);
}

/* One selection at a time: make the count odd.  Returns the even count it was. */
static uint32_t select_begin(void)
{
	uint32_t seq;

	for (;;) {
		/* relaxed: only a guess that the exchange below checks */
		seq = atomic_load_explicit(&base.seq, memory_order_relaxed);
		/* acquire: the previous selection's base (its K2) is seen
		 * before we overwrite it */
		if (!(seq & 1u) &&
		    atomic_compare_exchange_weak_explicit(&base.seq, &seq, seq + 1,
							  memory_order_acquire,
							  memory_order_relaxed))
			break;
	}
	/* K1: the odd count before the base's stores; pairs with K4 */
	atomic_thread_fence(memory_order_release);
	return seq;
}

/*
 * fork(): no selection may be half done in the child, whose readers of
 * the time base would retry forever on an odd count (docs/locks.md).
 */
static uint32_t fork_seq;

void bp_clock_fork_prepare(void)
{
	fork_seq = select_begin();
}

void bp_clock_fork_release(void)
{
	/* K2 without a new base: the base as it was, published again */
	atomic_store_explicit(&base.seq, fork_seq + 2, memory_order_release);
}

int bp_clock_select(enum bp_clock_id id)
{
	uint64_t tsc = 0, ns = 0;
	uint32_t seq;
	int ret = 0;

	if ((unsigned)id >= BP_CLOCK_NR)
		return -1;
	if (id == BP_CLOCK_TSC && !bp_clock_tsc_usable()) {
		id = BP_CLOCK_MONO;
		ret = -1;
	}
#if defined(__x86_64__)
	if (id == BP_CLOCK_TSC)
		take_pair(&tsc, &ns);
#endif

	seq = select_begin();
	/* relaxed: ordered by K1 before and K2 after */
	atomic_store_explicit(&base.id, (uint32_t)id, memory_order_relaxed);
	atomic_store_explicit(&base.tsc, tsc, memory_order_relaxed);
	atomic_store_explicit(&base.ns, ns, memory_order_relaxed);
	atomic_store_explicit(&bp_clock_state.id, (uint32_t)id, memory_order_relaxed);
	/* The inline fast path reads the TSC itself: only while it is the clock.
	 * relaxed: the gate bit chooses how a call reads the time, never which
	 * data it reads; a call that sees it late stamps one record with the
	 * clock it still had, as if it had run a moment earlier. */
	if (id == BP_CLOCK_TSC)
		__atomic_fetch_or(&bprint__gate.bits, BPRINT__GATE_TSC, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&bprint__gate.bits, ~BPRINT__GATE_TSC, __ATOMIC_RELAXED);
	atomic_store_explicit(&base.seq, seq + 2, memory_order_release);	/* K2 */
	return ret;
}

int bp_clock_select_name(const char *name)
{
	enum bp_clock_id id;

	if (!name || !*name)
		return bp_clock_select(bp_clock_default());
	if (bp_clock_parse(name, &id) < 0)
		return -1;
	return bp_clock_select(id);
}

/* The selected id and its base pair; 0, or -1 if a selection stayed in
 * progress (this may be a signal handler that interrupted it). */
static int read_base(uint32_t *id, uint64_t *tsc, uint64_t *ns)
{
	int i;

	for (i = 0; i < SEQ_READ_TRIES; i++) {
		uint32_t s1 = atomic_load_explicit(&base.seq, memory_order_acquire);	/* K3 */
		uint32_t s2;

		/* relaxed: ordered by K3 before and K4 after */
		*id = atomic_load_explicit(&base.id, memory_order_relaxed);
		*tsc = atomic_load_explicit(&base.tsc, memory_order_relaxed);
		*ns = atomic_load_explicit(&base.ns, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);			/* K4 */
		s2 = atomic_load_explicit(&base.seq, memory_order_relaxed);
		if (s1 == s2 && !(s1 & 1u)) {
			if (s1 == 0)	/* never selected: the static mono */
				*id = BP_CLOCK_MONO;
			return 0;
		}
	}
	return -1;
}

void bp_clock_calibrate(struct bp_clock_calib *out)
{
	uint32_t id;
	uint64_t tsc_b, ns_b;
	int have_base = read_base(&id, &tsc_b, &ns_b) == 0;

	if (!have_base)
		id = (uint32_t)bp_clock_selected();
	memset(out, 0, sizeof(*out));
	out->clock_id = id;
	out->mult = 1;		/* identity: raw already is the output */
#if defined(__x86_64__)
	if (id == BP_CLOCK_TSC) {
		uint64_t tsc_f, ns_f, dt, dn;
		unsigned __int128 m = 0;
		uint32_t shift;

		if (!have_base)
			take_pair(&tsc_b, &ns_b);
		take_pair(&tsc_f, &ns_f);
		if (tsc_f <= tsc_b || ns_f < ns_b) {
			/* The TSC jumped back (a restored or migrated VM?):
			 * start a new baseline. */
			tsc_b = tsc_f;
			ns_b = ns_f;
		}
		if (ns_f - ns_b < MIN_BASELINE_NS) {
			while (mono_ns() - ns_b < MIN_BASELINE_NS)
				;
			take_pair(&tsc_f, &ns_f);
		}
		dt = tsc_f > tsc_b ? tsc_f - tsc_b : 1;
		dn = ns_f - ns_b;
		/* The largest shift that leaves mult below 2^63, rounded. */
		for (shift = 63; ; shift--) {
			m = (((unsigned __int128)dn << shift) + dt / 2) / dt;
			if (m < ((unsigned __int128)1 << 63) || shift == 0)
				break;
		}
		out->shift = shift;
		out->mult = (uint64_t)m;
		out->raw0 = tsc_f;
		out->ns0 = ns_f;
	}
#endif
}

uint64_t bp_clock_to_ns_scaled(const struct bp_clock_calib *c, uint64_t raw)
{
	return bp_clock_to_ns_scaled_inline(c, raw);
}

/* The default clock before ordinary constructors run (priority 101 is the
 * first one not reserved to the implementation). */
__attribute__((constructor(101))) static void select_default_clock(void)
{
	bp_clock_select(bp_clock_default());
}
