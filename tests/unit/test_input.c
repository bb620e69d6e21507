/*
 * io/input: the bytes of regular files (mapped), /proc files (size 0,
 * read), stdin and FIFOs (read whole); refusals of directories, devices and
 * sockets; the size limit for files and for pipes; a FIFO without a writer
 * given up after PE_INPUT_FIFO_WAIT_MS, one with a writer (a thread, a
 * forked process, one that only opens late or writes nothing) read to its
 * end; no descriptor left open in any case.  pe_hfconfig_read goes the
 * same way (--from-config on a FIFO nobody writes to used to hang).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "io/hfconfig.h"
#include "io/input.h"
#include "testutil.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* n bytes of a pattern no two offsets near each other share */
static unsigned char *pattern(size_t n)
{
	unsigned char *b = malloc(n ? n : 1);
	size_t i;

	assert_non_null(b);
	for (i = 0; i < n; i++)
		b[i] = (unsigned char)((i * 131 + (i >> 8) * 7) & 0xff);
	return b;
}

static char *write_temp(const unsigned char *b, size_t n)
{
	char *path = pe_temp_path(".bin");
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	if (n)
		assert_int_equal(fwrite(b, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
	return path;
}

static void expect_fail(const char *path, size_t max, enum pe_err code, const char *want)
{
	struct pe_input in;
	struct pe_error err = { PE_OK, "" };

	assert_int_equal(pe_input_open(&in, path, max, &err), -1);
	pe_input_close(&in);
	assert_int_equal(err.code, code);
	if (strcmp(err.msg, want) != 0)
		fail_msg("%s: got '%s', wanted '%s'", path, err.msg, want);
}

static void test_regular_file_mapped(void **state)
{
	unsigned char *b = pattern(10000);
	char *path = write_temp(b, 10000);
	struct pe_input in;
	struct pe_error err;

	(void)state;
	assert_int_equal(pe_input_open(&in, path, 10000, &err), 0);
	assert_int_equal(in.len, 10000);
	assert_memory_equal(in.data, b, 10000);
	assert_string_equal(in.name, path);
	assert_non_null(in.map);	/* mapped, not copied */
	assert_null(in.buf);
	pe_input_close(&in);
	assert_null(in.map);
	remove(path);
	free(path);
	free(b);
}

static void test_empty_file(void **state)
{
	char *path = write_temp(NULL, 0);
	struct pe_input in;
	struct pe_error err;

	(void)state;
	assert_int_equal(pe_input_open(&in, path, 100, &err), 0);
	assert_int_equal(in.len, 0);
	assert_non_null(in.data);
	pe_input_close(&in);
	remove(path);
	free(path);
}

/* the limit is checked before anything is read: one byte over fails */
static void test_file_over_limit(void **state)
{
	unsigned char *b = pattern(101);
	char *path = write_temp(b, 101);
	char want[600];
	struct pe_input in;
	struct pe_error err;

	(void)state;
	snprintf(want, sizeof want, "%s: 101 bytes, larger than the limit of 100", path);
	expect_fail(path, 100, PE_ERR_DATA, want);
	assert_int_equal(pe_input_open(&in, path, 101, &err), 0);
	assert_int_equal(in.len, 101);
	pe_input_close(&in);
	remove(path);
	free(path);
	free(b);
}

/* /proc files say size 0: read them, within the limit */
static void test_proc_file(void **state)
{
	struct pe_input in;
	struct pe_error err;

	(void)state;
	assert_int_equal(pe_input_open(&in, "/proc/self/status", 1 << 20, &err), 0);
	assert_true(in.len > 20);
	assert_memory_equal(in.data, "Name:", 5);
	assert_null(in.map);
	pe_input_close(&in);
	expect_fail("/proc/self/status", 10, PE_ERR_DATA,
		    "/proc/self/status: larger than the limit of 10 bytes");
}

static void test_refused_kinds(void **state)
{
	char *dir = pe_temp_path(".d"), *sock = pe_temp_path(".sock"), want[600];
	struct sockaddr_un sa;
	int fd;

	(void)state;
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(want, sizeof want, "%s: is a directory", dir);
	expect_fail(dir, 1000, PE_ERR_IO, want);
	rmdir(dir);
	expect_fail("/dev/zero", 1000, PE_ERR_IO, "/dev/zero: is a device, not a file");
	expect_fail("/dev/null", 1000, PE_ERR_IO, "/dev/null: is a device, not a file");

	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	assert_true(strlen(sock) < sizeof sa.sun_path);
	strcpy(sa.sun_path, sock);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	snprintf(want, sizeof want, "%s: is a socket, not a file", sock);
	expect_fail(sock, 1000, PE_ERR_IO, want);
	close(fd);
	unlink(sock);

	expect_fail("/nonexistent/x.npy", 1000, PE_ERR_IO,
		    "/nonexistent/x.npy: cannot open: No such file or directory");
	free(dir);
	free(sock);
}

struct config_read {
	const char *path;
	int rc;
	struct pe_error err;
};

static void *read_config(void *arg)
{
	struct config_read *c = arg;
	struct pe_hfconfig h;

	c->rc = pe_hfconfig_read(c->path, &h, &c->err);
	pe_hfconfig_free(&h);
	return NULL;
}

/* one FIFO through pe_input_open, another through pe_hfconfig_read in a
 * thread, both waited for at the same time */
static void test_fifo_no_writer(void **state)
{
	char *path = pe_temp_path(".fifo"), *cfg = pe_temp_path(".json"), want[600];
	struct config_read c = { NULL, 0, { PE_OK, "" } };
	pthread_t th;
	double t0, dt;

	(void)state;
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(mkfifo(cfg, 0600), 0);
	c.path = cfg;
	t0 = now_s();
	assert_int_equal(pthread_create(&th, NULL, read_config, &c), 0);
	snprintf(want, sizeof want, "%s: a FIFO with no writer", path);
	expect_fail(path, 1000, PE_ERR_IO, want);
	pthread_join(th, NULL);
	dt = now_s() - t0;
	/* it waited about PE_INPUT_FIFO_WAIT_MS for a writer, and no longer */
	if (dt < PE_INPUT_FIFO_WAIT_MS / 1000.0 * 0.9 || dt > 4.0)
		fail_msg("gave up after %.3f s", dt);
	snprintf(want, sizeof want, "%s: a FIFO with no writer", cfg);
	assert_int_equal(c.rc, -1);
	assert_int_equal(c.err.code, PE_ERR_IO);
	assert_string_equal(c.err.msg, want);
	unlink(path);
	unlink(cfg);
	free(path);
	free(cfg);
}

/* config.json through pe_input_open: a device refused at once (it used to
 * be read until 16 MiB of zeros), a missing file named */
static void test_hfconfig_input(void **state)
{
	struct pe_hfconfig h;
	struct pe_error err = { PE_OK, "" };

	(void)state;
	assert_int_equal(pe_hfconfig_read("/dev/zero", &h, &err), -1);
	pe_hfconfig_free(&h);
	assert_int_equal(err.code, PE_ERR_IO);
	assert_string_equal(err.msg, "/dev/zero: is a device, not a file");
	assert_int_equal(pe_hfconfig_read("/nonexistent/config.json", &h, &err), -1);
	pe_hfconfig_free(&h);
	assert_string_equal(err.msg,
			    "/nonexistent/config.json: cannot open: No such file or directory");
}

struct writer {
	const char *path;
	const unsigned char *b;
	size_t n;
	long open_after_ms, write_after_ms;
};

static void *write_fifo(void *arg)
{
	const struct writer *w = arg;
	size_t at = 0;
	ssize_t r;
	int fd;

	sleep_ms(w->open_after_ms);
	fd = open(w->path, O_WRONLY);
	if (fd < 0)
		return NULL;
	sleep_ms(w->write_after_ms);
	while (at < w->n && (r = write(fd, w->b + at, w->n - at)) > 0)
		at += (size_t)r;
	close(fd);
	return NULL;
}

/* a writer thread: after the reader started waiting (opens late), or
 * connected but silent for a while (EAGAIN), or not writing at all */
static void fifo_thread_case(size_t n, long open_after, long write_after)
{
	char *path = pe_temp_path(".fifo");
	unsigned char *b = pattern(n);
	struct writer w = { path, b, n, open_after, write_after };
	struct pe_input in;
	struct pe_error err = { PE_OK, "" };
	pthread_t th;
	double t0 = now_s();

	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(pthread_create(&th, NULL, write_fifo, &w), 0);
	if (pe_input_open(&in, path, 1 << 20, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(in.len, n);
	if (n)
		assert_memory_equal(in.data, b, n);
	pe_input_close(&in);
	pthread_join(th, NULL);
	assert_true(now_s() - t0 < 1.5);
	unlink(path);
	free(path);
	free(b);
}

static void test_fifo_writer_thread(void **state)
{
	(void)state;
	fifo_thread_case(200000, 50, 0);	/* more than a pipe holds */
	fifo_thread_case(5000, 0, 150);	/* writer there, data later */
	fifo_thread_case(0, 100, 0);	/* opens and closes: empty input */
}

/* a config.json delivered through a FIFO by a writer thread */
static void test_hfconfig_fifo(void **state)
{
	static const char text[] = "{\"rope_theta\": 500000, \"head_dim\": 64}";
	char *path = pe_temp_path(".json");
	struct writer w = { path, (const unsigned char *)text, sizeof text - 1, 20, 0 };
	struct pe_hfconfig h;
	struct pe_error err = { PE_OK, "" };
	pthread_t th;

	(void)state;
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(pthread_create(&th, NULL, write_fifo, &w), 0);
	if (pe_hfconfig_read(path, &h, &err) != 0)
		fail_msg("%s", err.msg);
	pthread_join(th, NULL);
	assert_true(h.rope[0].theta == 500000.0);
	assert_int_equal(h.rope[0].head_dim, 64);
	pe_hfconfig_free(&h);
	unlink(path);
	free(path);
}

static void test_fifo_forked_writer(void **state)
{
	char *path = pe_temp_path(".fifo");
	unsigned char *b = pattern(70000);
	struct pe_input in;
	struct pe_error err = { PE_OK, "" };
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(mkfifo(path, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct writer w = { path, b, 70000, 50, 0 };

		write_fifo(&w);
		_exit(0);
	}
	if (pe_input_open(&in, path, 1 << 20, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(in.len, 70000);
	assert_memory_equal(in.data, b, 70000);
	pe_input_close(&in);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	unlink(path);
	free(path);
	free(b);
}

/* stdin from a pipe fed by a child: read whole; over the limit refused as
 * the bytes arrive (the writer gets EPIPE, not a reader that waits) */
static void stdin_case(size_t n, size_t max, int ok)
{
	unsigned char *b = pattern(n);
	struct pe_input in;
	struct pe_error err = { PE_OK, "" };
	int p[2], saved, status;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t at = 0;
		ssize_t r;

		signal(SIGPIPE, SIG_DFL);
		close(p[0]);
		while (at < n && (r = write(p[1], b + at, n - at)) > 0)
			at += (size_t)r;
		_exit(0);
	}
	close(p[1]);
	saved = dup(0);
	assert_true(saved >= 0);
	assert_int_equal(dup2(p[0], 0), 0);
	close(p[0]);
	if (ok) {
		if (pe_input_open(&in, "-", max, &err) != 0)
			fail_msg("%s", err.msg);
		assert_string_equal(in.name, "stdin");
		assert_int_equal(in.len, n);
		assert_memory_equal(in.data, b, n);
	} else {
		char want[100];

		snprintf(want, sizeof want, "stdin: larger than the limit of %zu bytes", max);
		assert_int_equal(pe_input_open(&in, "-", max, &err), -1);
		assert_int_equal(err.code, PE_ERR_DATA);
		assert_string_equal(err.msg, want);
	}
	pe_input_close(&in);
	assert_int_equal(dup2(saved, 0), 0);	/* closes the pipe: the writer ends */
	close(saved);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	free(b);
}

static void test_stdin(void **state)
{
	(void)state;
	stdin_case(300000, 300000, 1);
	stdin_case(300001, 300000, 0);
	stdin_case(3000000, 1000, 0);
	stdin_case(0, 10, 1);
}

/* every way in and out closes what it opened */
static void test_no_fd_leak(void **state)
{
	unsigned char *b = pattern(5000);
	char *file = write_temp(b, 5000), *fifo = pe_temp_path(".fifo");
	struct pe_input in;
	struct pe_error err;
	int before, i;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	before = count_fds();
	for (i = 0; i < 3; i++) {
		struct writer w = { fifo, b, 5000, 0, 0 };
		pthread_t th;

		assert_int_equal(pe_input_open(&in, file, 10000, &err), 0);
		pe_input_close(&in);
		assert_int_equal(pe_input_open(&in, file, 10, &err), -1);
		pe_input_close(&in);
		assert_int_equal(pe_input_open(&in, "/proc/self/stat", 10000, &err), 0);
		pe_input_close(&in);
		assert_int_equal(pe_input_open(&in, "/dev/null", 10000, &err), -1);
		pe_input_close(&in);
		assert_int_equal(pe_input_open(&in, "/tmp", 10000, &err), -1);
		pe_input_close(&in);
		assert_int_equal(pthread_create(&th, NULL, write_fifo, &w), 0);
		assert_int_equal(pe_input_open(&in, fifo, 10000, &err), 0);
		pe_input_close(&in);
		pthread_join(th, NULL);
		w.n = 5000;
		assert_int_equal(pthread_create(&th, NULL, write_fifo, &w), 0);
		assert_int_equal(pe_input_open(&in, fifo, 100, &err), -1);	/* too large */
		pe_input_close(&in);
		pthread_join(th, NULL);
	}
	assert_int_equal(count_fds(), before);
	unlink(fifo);
	remove(file);
	free(fifo);
	free(file);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular_file_mapped),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_file_over_limit),
		cmocka_unit_test(test_proc_file),
		cmocka_unit_test(test_refused_kinds),
		cmocka_unit_test(test_fifo_no_writer),
		cmocka_unit_test(test_fifo_writer_thread),
		cmocka_unit_test(test_fifo_forked_writer),
		cmocka_unit_test(test_hfconfig_input),
		cmocka_unit_test(test_hfconfig_fifo),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_no_fd_leak),
	};

	/* a writer whose reader gave up must not kill the test */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
