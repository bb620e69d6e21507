/*
 * driver.c - main for a fuzz target built without libFuzzer: feeds every
 * file named on the command line (directories: every file in them) to
 * LLVMFuzzerTestOneInput, so make check replays the seed corpora and the
 * regression inputs with the normal compiler.  A broken contract aborts;
 * an exit() from inside the target is caught by the atexit hook.  Prints
 * "fuzz NAME: N passed, 0 failed" at the end (one per input).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static const char *current;	/* the input being run, NULL between inputs */
static FILE *report;		/* stdout as it was at start: a target may redirect stdout */

static void exit_hook(void)
{
	if (current) {
		fprintf(report, "FAIL: %s: the target called exit()\n", current);
		fflush(report);
		_exit(1);
	}
}

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *data = NULL;
	size_t n = 0, cap = 0, got;

	if (!fp) {
		fprintf(report, "FAIL: %s: cannot open\n", path);
		return -1;
	}
	do {
		if (n == cap) {
			unsigned char *p;

			cap = cap ? 2 * cap : 4096;
			p = realloc(data, cap);
			if (!p) {
				free(data);
				fclose(fp);
				return -1;
			}
			data = p;
		}
		got = fread(data + n, 1, cap - n, fp);
		n += got;
	} while (got > 0);
	fclose(fp);
	/* an exact-size copy, so an over-read past the input shows under a sanitizer */
	{
		unsigned char *exact = malloc(n ? n : 1);

		if (!exact) {
			free(data);
			return -1;
		}
		if (n)
			memcpy(exact, data, n);
		free(data);
		current = path;
		LLVMFuzzerTestOneInput(exact, n);
		current = NULL;
		free(exact);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = argc > 0 ? strrchr(argv[0], '/') : NULL;
	unsigned long pass = 0, fail = 0;
	char cwd[4096];
	int i;

	name = name ? name + 1 : argc > 0 ? argv[0] : "fuzz";
	if (strncmp(name, "fuzz_", 5) == 0)
		name += 5;
	report = fdopen(dup(STDOUT_FILENO), "w");
	if (!report)
		return 1;
	atexit(exit_hook);
	/* absolute names first: a target may change directory (fuzz_cli does) */
	if (!getcwd(cwd, sizeof cwd))
		return 1;
	for (i = 1; i < argc; i++) {
		char *abs = malloc(strlen(cwd) + strlen(argv[i]) + 2);

		if (abs && argv[i][0] != '/') {
			sprintf(abs, "%s/%s", cwd, argv[i]);
			argv[i] = abs;	/* kept to the end */
		} else {
			free(abs);
		}
	}
	for (i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) != 0) {
			fprintf(report, "FAIL: %s: no such file\n", argv[i]);
			fail++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) == 0)
				pass++;
			else
				fail++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d)) != NULL) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
			if (run_file(path) == 0)
				pass++;
			else
				fail++;
		}
		if (d)
			closedir(d);
	}
	fprintf(report, "fuzz %s: %lu passed, %lu failed\n", name, pass, fail);
	fflush(report);
	return fail != 0;
}
