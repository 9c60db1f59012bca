/*
 * record_cut_test: the cut trailer of the record contract (trace/record.h).
 *
 * A text record that holds a cut message ends with BP_REC_CUT_MAGIC and
 * the whole message's length, after the text's NUL and padding.  The
 * split recognises exactly that (crafted payloads: the trailer right,
 * and each way of getting it wrong), the message shows the cut at every
 * buffer size, and random payloads (a reader reads hostile files) are
 * read within their words, the message always NUL-terminated.
 */
#include "trace/tracer_check.h"

#include "trace/record.h"

#define TEXT BP_REC_TEXT
#define MAGIC BP_REC_CUT_MAGIC

/* words from a text (NUL-padded to whole words) and then extra words. */
static size_t payload(uint32_t *w, const char *text, const uint32_t *extra, size_t nextra)
{
	size_t n = strlen(text) + 1, words = (n + 3) / 4;

	memset(w, 0, words * 4);
	memcpy(w, text, n);
	memcpy(w + words, extra, nextra * 4);
	return (words + nextra) * 4;
}

static void expect_cut(uint32_t user, const uint32_t *w, size_t len, uint32_t cut,
		       size_t text_words)
{
	struct bp_record_args a = bp_record_split(user, w, len);

	CHECK_EQ(a.cut, cut);
	CHECK_EQ(a.nwords, text_words);
}

static void crafted(void)
{
	uint32_t w[64];
	const uint32_t good[2] = { MAGIC, 100 }, bad_magic[2] = { MAGIC + 1, 100 };
	const uint32_t short_full[2] = { MAGIC, 3 }, gap[3] = { 0, MAGIC, 100 };
	const uint32_t none[1] = { 0 };
	struct bp_record_args a;
	char buf[128];
	int exact = 1;
	size_t len;

	/* the trailer right: "abc" of 100 bytes */
	len = payload(w, "abc", good, 2);
	expect_cut(TEXT, w, len, 100, 1);
	a = bp_record_split(TEXT, w, len);
	CHECK_EQ(bp_record_message(buf, sizeof(buf), &a, NULL, NULL, NULL, &exact), 27u);
	CHECK_STREQ(buf, "abc[...cut: 3 of 100 bytes]");
	CHECK_EQ(exact, 0);
	/* a text of a whole number of words: its NUL takes a word of its own */
	len = payload(w, "abcdefgh", good, 2);
	expect_cut(TEXT, w, len, 100, 3);
	/* not a text record: no trailer is looked for */
	len = payload(w, "abc", good, 2);
	expect_cut(0, w, len, 0, 3);
	/* another magic, a whole length not longer than the text, a gap before it */
	len = payload(w, "abc", bad_magic, 2);
	expect_cut(TEXT, w, len, 0, 3);
	len = payload(w, "abc", short_full, 2);
	expect_cut(TEXT, w, len, 0, 3);
	len = payload(w, "abc", gap, 3);
	expect_cut(TEXT, w, len, 0, 4);
	/* the trailer alone, or a text with no NUL before it */
	expect_cut(TEXT, good, 8, 0, 2);
	memset(w, 'x', 8);
	memcpy(w + 2, good, 8);
	expect_cut(TEXT, w, 16, 0, 4);
	/* after a CPU word */
	w[0] = 3;
	len = payload(w + 1, "abc", good, 2) + 4;
	expect_cut(TEXT | BP_REC_CPU, w, len, 100, 1);
	/* an ordinary text record is read as before */
	len = payload(w, "plain text", none, 0);
	a = bp_record_split(TEXT, w, len);
	CHECK_EQ(a.cut, 0u);
	bp_record_message(buf, sizeof(buf), &a, NULL, NULL, NULL, &exact);
	CHECK_STREQ(buf, "plain text");
	CHECK_EQ(exact, 1);
}

/* At every size, the mark shows (when it fits) after the text it has room for. */
static void sizes(void)
{
	uint32_t w[64];
	const uint32_t good[2] = { MAGIC, 5000 };
	char text[101], buf[160], want[200];
	size_t len;
	struct bp_record_args a;

	memset(text, 't', 100);
	text[100] = '\0';
	len = payload(w, text, good, 2);
	a = bp_record_split(TEXT, w, len);
	CHECK_EQ(a.cut, 5000u);
	for (size_t size = 1; size <= sizeof(buf); size++) {
		size_t got;
		int exact = 1;

		memset(buf, 0x5a, sizeof(buf));
		got = bp_record_message(buf, size, &a, NULL, NULL, NULL, &exact);
		CHECK(strnlen(buf, size) < size);
		CHECK_EQ(strlen(buf), got);
		CHECK_EQ(exact, 0);
		for (size_t i = size; i < sizeof(buf); i++)
			CHECK_EQ(buf[i], 0x5a);
		if (size > 40) {
			const char *mark = strstr(buf, "[...cut: ");
			unsigned k = 0;

			/* the text it has room for, then how much of the whole it is */
			CHECK(mark && sscanf(mark, "[...cut: %u of", &k) == 1);
			CHECK_EQ((size_t)(mark - buf), k);
			snprintf(want, sizeof(want), "%.*s[...cut: %u of 5000 bytes]", (int)k, text, k);
			CHECK_STREQ(buf, want);
			CHECK(k == 100 || got + 2 >= size);	/* a digit fewer in the mark */
		}
	}
}

/* Hostile payloads: words of every kind in every order, read within them. */
static void random_payloads(void)
{
	unsigned seed = 19;
	uint32_t w[8];
	char buf[64];

	for (int k = 0; k < 200000; k++) {
		size_t n = (size_t)rand_r(&seed) % 9;
		struct bp_record_args a;

		for (size_t i = 0; i < n; i++) {
			switch (rand_r(&seed) % 5) {
			case 0: w[i] = MAGIC; break;
			case 1: w[i] = 0; break;
			case 2: w[i] = (uint32_t)rand_r(&seed) % 40; break;
			case 3: w[i] = 0x41424344u; break;
			default: w[i] = (uint32_t)rand_r(&seed); break;
			}
		}
		a = bp_record_split(rand_r(&seed) & 1 ? TEXT : TEXT | BP_REC_CPU, n ? w : NULL, n * 4);
		CHECK(a.nwords <= n);
		if (a.cut)
			CHECK(a.nwords + 2 <= n);
		bp_record_message(buf, 1 + (size_t)rand_r(&seed) % sizeof(buf), &a, NULL, NULL, NULL,
				  NULL);
		CHECK(strnlen(buf, sizeof(buf)) < sizeof(buf));
	}
}

int main(void)
{
	crafted();
	sizes();
	random_payloads();
	printf("record_cut_test: the cut trailer, crafted, at every size, random\n");
	return 0;
}
