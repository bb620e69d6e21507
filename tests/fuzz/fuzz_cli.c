/*
 * fuzz_cli - the whole CLI in-process.  The input split at NUL bytes is an
 * argv after "posenc"; the command it names runs as main would run it
 * (help, or the command's run).  Library and command code never exit, so
 * one process runs every input; an exit() is itself a finding (libFuzzer
 * reports "fuzz target exited", driver.c fails).
 *
 * Sandbox, set up once: stdout and stdin are /dev/null, and the stderr
 * FILE (not fd 2, where the sanitizers and libFuzzer report) writes to
 * /dev/null; the working directory is a fresh temporary directory holding
 * small inputs under in/ (in/a.npy, in/b.safetensors, ...), so seeds can
 * name them and every relative output lands there.  Inputs naming a path
 * outside it (an argument with "..", or a '/' other than a leading "in/")
 * are skipped, as are arguments with a number above MAX_NUMBER, so that no
 * iteration writes or computes a large table.  After each run the directory
 * is emptied (but for in/) and must hold no ".posenc-" temporary file: an
 * output that appears whole or not at all.
 *
 * Since the target changes directory, give libFuzzer absolute corpus and
 * artifact paths (make fuzz does); driver.c makes its arguments absolute.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/opt.h"
#include "fuzz.h"
#include "io/input.h"

#define MAX_ARGS 64
#define MAX_NUMBER 256

static char workdir[64];
static int verbose;

static void put(const char *path, const void *p, size_t n)
{
	FILE *fp = fopen(path, "wb");

	if (!fp || fwrite(p, 1, n, fp) != n || fclose(fp) != 0) {
		fprintf(stderr, "fuzz_cli: cannot write %s\n", path);
		abort();
	}
}

static void put_le32(unsigned char *p, float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	p[0] = (unsigned char)u;
	p[1] = (unsigned char)(u >> 8);
	p[2] = (unsigned char)(u >> 16);
	p[3] = (unsigned char)(u >> 24);
}

/* rows x cols float32 values 0.25 * (i - 5), little-endian. */
static size_t values(unsigned char *p, unsigned rows, unsigned cols)
{
	unsigned i;

	for (i = 0; i < rows * cols; i++)
		put_le32(p + 4 * i, 0.25f * (float)((int)i - 5));
	return 4 * (size_t)rows * cols;
}

static void put_npy(const char *path, unsigned rows, unsigned cols)
{
	unsigned char buf[4096];
	char dict[128];
	size_t h;
	int n = snprintf(dict, sizeof dict,
			 "{'descr': '<f4', 'fortran_order': False, 'shape': (%u, %u), }", rows, cols);

	h = (size_t)n + 1;
	while ((10 + h) % 64)
		h++;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (unsigned char)h;
	buf[9] = (unsigned char)(h >> 8);
	memset(buf + 10, ' ', h);
	memcpy(buf + 10, dict, (size_t)n);
	buf[10 + h - 1] = '\n';
	put(path, buf, 10 + h + values(buf + 10 + h, rows, cols));
}

static void put_safetensors(const char *path, unsigned rows, unsigned cols)
{
	unsigned char buf[4096];
	char json[256];
	size_t h, i;
	int n = snprintf(json, sizeof json,
			 "{\"__metadata__\":{\"format\":\"pt\"},\"wpe.weight\":{\"dtype\":\"F32\","
			 "\"shape\":[%u,%u],\"data_offsets\":[0,%u]}}",
			 rows, cols, 4 * rows * cols);

	h = ((size_t)n + 7) / 8 * 8;
	for (i = 0; i < 8; i++)
		buf[i] = (unsigned char)(h >> (8 * i));
	memset(buf + 8, ' ', h);
	memcpy(buf + 8, json, (size_t)n);
	put(path, buf, 8 + h + values(buf + 8 + h, rows, cols));
}

static void put_inputs(void)
{
	static const char csv[] = "# a comment\nx,y,z\n0,1,2\n3,4.5,-6\n7,8,nan\n1e3,0,1\n";
	static const char config[] =
		"{\"model_type\": \"llama\", \"rope_theta\": 10000.0, \"head_dim\": 8,\n"
		" \"max_position_embeddings\": 64,\n"
		" \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0,\n"
		"  \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0,\n"
		"  \"original_max_position_embeddings\": 16}}\n";
	unsigned char raw[4 * 6];

	put_npy("in/a.npy", 4, 3);
	put_npy("in/e.npy", 4, 7);
	put_npy("in/h.npy", 2, 16);
	put_safetensors("in/b.safetensors", 4, 3);
	put("in/c.csv", csv, sizeof csv - 1);
	put("in/d.f32", raw, values(raw, 2, 3));
	put("in/config.json", config, sizeof config - 1);
}

/* Remove everything the run left in the work directory but in/; says
 * whether a temporary output file was among it. */
static int sweep_quietly(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int stray = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, "in") == 0)
			continue;
		if (strncmp(e->d_name, ".posenc-", 8) == 0)
			stray = 1;
		if (unlink(e->d_name) != 0)
			rmdir(e->d_name);
	}
	closedir(d);
	return stray;
}

static void remove_workdir(void)
{
	static const char *const names[] = { "a.npy", "e.npy", "h.npy", "b.safetensors", "c.csv",
					     "d.f32", "config.json" };
	char path[128];
	size_t i;

	if (chdir(workdir) != 0)
		return;
	sweep_quietly();
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "in/%s", names[i]);
		unlink(path);
	}
	rmdir("in");
	rmdir(workdir);
}

static void setup(void)
{
	FILE *null;

	signal(SIGPIPE, SIG_IGN);
	setenv("POSENC_THREADS", "1", 1);
	strcpy(workdir, "/tmp/posenc-fuzz-XXXXXX");
	if (!mkdtemp(workdir) || chdir(workdir) != 0 || mkdir("in", 0755) != 0) {
		perror("fuzz_cli: temporary directory");
		abort();
	}
	put_inputs();
	atexit(remove_workdir);
	null = fopen("/dev/null", "w");
	if (!null || !freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "r", stdin)) {
		perror("fuzz_cli: /dev/null");
		abort();
	}
	/* glibc's stderr is an assignable FILE *: the commands' messages go
	 * to /dev/null while fd 2 stays for the fuzzer's own reports. */
	stderr = null;
}

/* An argument that names a path outside the sandbox, or a number that
 * asks for a large table. */
static int refused(const char *a)
{
	const char *p;

	if (strstr(a, "..") || (strchr(a, '/') && (strncmp(a, "in/", 3) != 0 || strchr(a + 3, '/'))))
		return 1;
	for (p = a; *p;) {
		uint64_t v = 0;

		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		while (*p >= '0' && *p <= '9') {
			v = v * 10 + (uint64_t)(*p - '0');
			if (v > MAX_NUMBER)
				return 1;
			p++;
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char *argv[MAX_ARGS + 2];
	const struct pe_command *cmd = NULL;
	int argc = 1, rc, touches_in = 0;
	char *buf, *p, *end;
	size_t i;

	if (!ready) {
		verbose = getenv("PE_FUZZ_VERBOSE") != NULL;
		setup();
		ready = 1;
	}
	buf = fuzz_strndup(data, size);
	if (!buf)
		return 0;
	argv[0] = "posenc";
	for (p = buf, end = buf + size;; p += strlen(p) + 1) {
		if (argc > MAX_ARGS || refused(p))
			goto out;
		touches_in |= strstr(p, "in/") != NULL;
		argv[argc++] = p;
		if (p + strlen(p) >= end)
			break;
	}
	argv[argc] = NULL;
	if (argc > 1)
		cmd = pe_command_by_name(argv[1]);
	if (!cmd)
		goto out;
	if (touches_in)
		put_inputs();	/* a previous run may have written over one */
	if (pe_opt_wants_help(argc - 1, argv + 1)) {
		pe_command_help(stdout, cmd);
		rc = 0;
	} else {
		rc = cmd->run(cmd, argc - 1, argv + 1);
	}
	pe_input_forget();	/* the next run's inputs are its own */
	if (verbose) {
		/* PE_FUZZ_VERBOSE=1: each run's argv and status on fd 2, to check seeds */
		for (i = 1; i < (size_t)argc; i++)
			dprintf(STDERR_FILENO, "%s%s", argv[i], i + 1 < (size_t)argc ? " " : "");
		dprintf(STDERR_FILENO, " -> %d\n", rc);
	}
	FUZZ_REQUIRE(rc >= 0 && rc <= 2);
	fflush(stdout);
	clearerr(stdout);
	fflush(stderr);
	clearerr(stderr);
	FUZZ_REQUIRE(!sweep_quietly());
out:
	free(buf);
	return 0;
}
