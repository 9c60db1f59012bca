/*
 * bprint formats FILE: the call sites a trace file knows, like the
 * kernel's printk_formats, one a line, each followed by its fields (the
 * site layout, docs/fields.md), one a line after a tab:
 *
 *   ID : "FORMAT" FILE:LINE FUNCTION
 *   <TAB>NAME TYPE CONVERSION
 *
 * The format is quoted with C escapes (\n, \t, \", \\, \ooo), so that a line
 * is always one line.  A trace_puts() site shows its text; a site whose
 * format was not a compile-time constant shows (formatted at trace time),
 * and each format it traced is a site of its own (a derived site, at the
 * same FILE:LINE).
 */
#include "bprint_cmd.h"

#include <getopt.h>
#include <string.h>

static void formats_help(void)
{
	printf("Usage: %s formats [OPTION]... FILE\n"
	       "List the call sites of trace FILE, one a line, sorted by id:\n"
	       "  ID : \"FORMAT\" FILE:LINE FUNCTION\n"
	       "like the kernel's printk_formats, each followed by its fields, one a line\n"
	       "after a tab:\n"
	       "  NAME TYPE CONVERSION\n"
	       "(the names that report, hist, latency and export use).  Every site that\n"
	       "registered is listed, whether it traced or not.\n"
	       "\n"
	       "  -l, --libraries  list the libraries (index, load address, build-id, path) too\n"
	       "  -h, --help       show this help\n"
	       "\n"
	       EXIT_STATUS_HELP,
	       prog);
}

static void put_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		default:
			if (c < ' ' || c == 0x7f)
				fprintf(out, "\\%03o", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

/* The fields of site id, one a line: TAB NAME TYPE CONVERSION. */
static void print_fields(struct bp_trace *t, uint32_t id)
{
	const struct bp_trace_layout *lay = bp_trace_layout(t, id);

	for (uint32_t k = 0; lay && k < lay->nfields; k++) {
		const struct bp_trace_field *f = &lay->fields[k];
		size_t len = 0;
		const char *text = bp_trace_field_text(lay, k, &len);

		printf("\t%s %s %.*s\n", f->name, bp_trace_field_type_name(f), (int)len,
		       text ? text : "");
	}
}

int cmd_formats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "libraries", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool libs = false;
	struct bp_trace *t;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "lh", opts, NULL)) != -1) {
		switch (c) {
		case 'l': libs = true; break;
		case 'h': formats_help(); return finish_output();
		default: return usage_error("formats", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("formats", "missing FILE");
	if (optind + 1 < argc)
		return usage_error("formats", "unexpected argument '%s'", argv[optind + 1]);
	if (!(t = open_trace(argv[optind], &rc)))
		return rc;
	for (size_t i = 0; i < bp_trace_nsites(t); i++) {
		const struct bp_trace_site *s = bp_trace_site_at(t, i);

		if (!s)
			break;
		printf("%u : ", s->id);
		if (s->format)
			put_quoted(stdout, s->format);
		else
			fputs("(formatted at trace time)", stdout);
		printf(" %s:%u %s\n", s->file, s->line, s->func);
		print_fields(t, s->id);
	}
	if (libs)
		for (size_t i = 0; i < bp_trace_nlibs(t); i++) {
			const struct bp_trace_lib *l = bp_trace_lib_at(t, i);

			printf("lib %u 0x%llx ", l->index, (unsigned long long)l->load_addr);
			for (uint32_t k = 0; k < l->build_id_len; k++)
				printf("%02x", l->build_id[k]);
			printf("%s%s\n", l->build_id_len ? " " : "- ", l->path[0] ? l->path : "(main program)");
		}
	rc = finish_output();
	if (rc == EXIT_OK)
		rc = report_file(argv[optind], t);
	bp_trace_close(t);
	return rc;
}
