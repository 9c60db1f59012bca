/* Kernel ring-buffer page streams spooled to a scratch file (kpages.h). */
#include "output/kpages.h"

#include <bprint.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE_DATA	(BP_KPAGE - BP_KPAGE_HDR)
#define COMMIT_MISSED	(1ull << 31)	/* records were lost before this page */
#define COMMIT_STORED	(1ull << 30)	/* and their count follows the data */
#define TYPE_EXTEND	30u
#define DELTA_BITS	27
#define DELTA_MAX	((1ull << DELTA_BITS) - 1)

int bp_kspool_open(struct bp_kspool *sp)
{
	const char *dir = secure_getenv("TMPDIR");
	char path[4096];

	sp->pages = 0;
	sp->fd = -1;
	if (!dir || !*dir)
		dir = "/tmp";
	if (bp_snprintf(path, sizeof(path), "%s/bprint-export-XXXXXX", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	sp->fd = mkstemp(path);
	if (sp->fd < 0)
		return -1;
	unlink(path);
	return 0;
}

void bp_kspool_close(struct bp_kspool *sp)
{
	if (sp->fd >= 0)
		close(sp->fd);
	sp->fd = -1;
}

struct bp_kstream *bp_kstream_new(int cpu)
{
	struct bp_kstream *s = calloc(1, sizeof(*s));

	if (s)
		s->cpu = cpu;
	return s;
}

void bp_kstream_free(struct bp_kstream *s)
{
	if (s)
		free(s->pages);
	free(s);
}

static void put_le32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* One event header word: type_len and time_delta in the host's bitfield order. */
static uint32_t ev_word(uint32_t type_len, uint64_t delta)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return type_len << 27 | (uint32_t)delta;
#else
	return type_len | (uint32_t)delta << 5;
#endif
}

int bp_kstream_flush(struct bp_kspool *sp, struct bp_kstream *s)
{
	uint64_t commit = s->used;

	if (!s->open)
		return 0;
	if (s->missed) {
		commit |= COMMIT_MISSED;
		if (s->lost) {
			commit |= COMMIT_STORED;
			memcpy(s->page + BP_KPAGE_HDR + s->used, &s->lost, 8);
		}
	}
	memcpy(s->page + 8, &commit, 8);
	if (s->npages == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		uint64_t *grown = realloc(s->pages, cap * sizeof(*grown));

		if (!grown)
			return -1;
		s->pages = grown;
		s->cap = cap;
	}
	for (;;) {
		ssize_t w = pwrite(sp->fd, s->page, BP_KPAGE, (off_t)(sp->pages * BP_KPAGE));

		if (w == (ssize_t)BP_KPAGE)
			break;
		if (w < 0 && errno == EINTR)
			continue;
		if (w >= 0)
			errno = EIO;
		return -1;
	}
	s->pages[s->npages++] = sp->pages++;
	s->open = false;
	s->missed = false;
	s->lost = 0;
	return 0;
}

static void page_start(struct bp_kstream *s, uint64_t ts)
{
	memset(s->page, 0, BP_KPAGE);
	memcpy(s->page, &ts, 8);
	s->used = 0;
	s->open = true;
	s->last_ts = ts;
}

int bp_kstream_append(struct bp_kspool *sp, struct bp_kstream *s, uint64_t ts, uint64_t lost,
		      const unsigned char *payload, size_t len)
{
	size_t need = len <= 112 ? 4 + len : 8 + len;
	unsigned char *p;
	uint64_t delta;

	if (ts < s->last_ts)
		ts = s->last_ts;	/* a stream never goes back (live files) */
	delta = s->open ? ts - s->last_ts : 0;
	if (delta > DELTA_MAX)
		need += 8;
	if (lost || !s->open || delta >> (DELTA_BITS + 32) ||
	    s->used + need > PAGE_DATA - (s->missed ? 8 : 0)) {
		if (bp_kstream_flush(sp, s) < 0)
			return -1;
		page_start(s, ts);
		delta = 0;
		if (lost) {
			s->missed = true;
			s->lost = lost;
		}
	}
	p = s->page + BP_KPAGE_HDR + s->used;
	if (delta > DELTA_MAX) {
		put_le32(p, ev_word(TYPE_EXTEND, delta & DELTA_MAX));
		put_le32(p + 4, (uint32_t)(delta >> DELTA_BITS));
		p += 8;
		delta = 0;
	}
	if (len <= 112) {
		put_le32(p, ev_word((uint32_t)len / 4, delta));
		p += 4;
	} else {
		put_le32(p, ev_word(0, delta));
		put_le32(p + 4, (uint32_t)len + 4);
		p += 8;
	}
	memcpy(p, payload, len);
	s->used = (size_t)(p + len - (s->page + BP_KPAGE_HDR));
	s->last_ts = ts;
	return 0;
}

int bp_kstream_read(const struct bp_kspool *sp, const struct bp_kstream *s, size_t first,
		    size_t n, unsigned char *buf)
{
	for (size_t i = first; i < first + n && i < s->npages; i++, buf += BP_KPAGE) {
		ssize_t r = pread(sp->fd, buf, BP_KPAGE, (off_t)(s->pages[i] * BP_KPAGE));

		if (r < 0 && errno == EINTR) {
			i--;
			buf -= BP_KPAGE;
			continue;
		}
		if (r != (ssize_t)BP_KPAGE) {
			if (r >= 0)
				errno = EIO;
			return -1;
		}
	}
	return 0;
}
