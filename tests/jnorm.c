/*
 * jnorm - normalise NDJSON for comparison in tests: each input line is
 * parsed and printed compact with sorted keys.  A line that is not JSON
 * is printed as "INVALID: <line>".  Reads stdin or the files named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxi.h"

static void
norm(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	jv v, s;

	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n == 0)
			continue;
		v = jv_parse_sized(line, (int)n);
		if (!jv_is_valid(v)) {
			jv_free(v);
			printf("INVALID: %s\n", line);
			continue;
		}
		s = jv_dump_string(v, JV_PRINT_SORTED);
		printf("%s\n", jv_string_value(s));
		jv_free(s);
	}
	free(line);
}

int
main(int argc, char *argv[])
{
	FILE *f;
	int i;

	oxi_prog = "jnorm";
	if (argc < 2)
		norm(stdin);
	for (i = 1; i < argc; i++) {
		if (!(f = fopen(argv[i], "r")))
			oxi_diesys(OXI_EX_USAGE, "unable to open '%s'", argv[i]);
		norm(f);
		fclose(f);
	}
	oxi_fshut(stdout, "stdout");
	return 0;
}
