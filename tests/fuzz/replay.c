/*
 * The fuzzers' seed corpora replayed by make check, without libFuzzer: a
 * main() for a fuzz target (fuzz/fuzz_*.c) that reads every file of the
 * directories named on the command line and hands each to
 * LLVMFuzzerTestOneInput(), in name order so a failure repeats.  The
 * targets' own checks abort on a wrong answer; under make asan the
 * sanitizers watch as they do in the fuzzer.  So a change that breaks a
 * parser on a known input fails in seconds, not only in CI's fuzz run.
 *
 *   replay_fuzz_X DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int name_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The whole of path, in a buffer of its exact size (so that ASan sees a
 * read past its end); NULL with a message on failure. */
static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long len = 0;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(data = malloc(len ? (size_t)len : 1)) ||
	    fread(data, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		free(data);
		data = NULL;
	}
	*size = len > 0 ? (size_t)len : 0;
	if (f)
		fclose(f);
	return data;
}

int main(int argc, char **argv)
{
	size_t inputs = 0;

	for (int a = 1; a < argc; a++) {
		struct dirent **names;
		int n = scandir(argv[a], &names, NULL, name_order);

		if (n < 0) {
			fprintf(stderr, "replay: cannot list %s\n", argv[a]);
			return 1;
		}
		for (int i = 0; i < n; i++) {
			char path[4096];
			size_t size;
			uint8_t *data;

			if (names[i]->d_name[0] == '.' ||
			    (size_t)snprintf(path, sizeof(path), "%s/%s", argv[a], names[i]->d_name) >= sizeof(path))
				goto next;
			if (!(data = slurp(path, &size)))
				return 1;
			LLVMFuzzerTestOneInput(data, size);
			free(data);
			inputs++;
		next:
			free(names[i]);
		}
		free(names);
	}
	if (inputs == 0) {
		fprintf(stderr, "replay: no input found: the corpus is missing\n");
		return 1;
	}
	printf("replay: %zu inputs, none failed\n", inputs);
	return 0;
}
