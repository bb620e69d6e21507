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
#include <sys/mman.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "io/hfconfig.h"
#include "io/input.h"
#include "io/le.h"
#include "io/read.h"
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

/* rewrite path with b[0, n) */
static void write_temp_at(const char *path, const unsigned char *b, size_t n)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(b, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
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

/* ---- a mapped file truncated while it is parsed (SIGBUS) ------------- */

/* SIGBUS's action now (cmocka has one of its own while a test runs) */
static void sigbus_now(struct sigaction *sa)
{
	assert_int_equal(sigaction(SIGBUS, NULL, sa), 0);
}

static int same_action(const struct sigaction *a, const struct sigaction *b)
{
	if ((a->sa_flags & SA_SIGINFO) != (b->sa_flags & SA_SIGINFO))
		return 0;
	return a->sa_flags & SA_SIGINFO ? a->sa_sigaction == b->sa_sigaction
					: a->sa_handler == b->sa_handler;
}

/* a csv of `pages` pages ("1,2\n" rows), mapped; then cut to 100 bytes */
static void test_truncated_while_parsed(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = 5 * (size_t)page, i;
	unsigned char *b = malloc(n);
	char *path, want[600];
	struct pe_input in;
	struct pe_matrix m;
	struct pe_error err = { PE_OK, "" };
	struct sigaction orig, now;

	(void)state;
	sigbus_now(&orig);
	assert_non_null(b);
	for (i = 0; i < n; i += 4)
		memcpy(b + i, "1,2\n", 4);
	path = write_temp(b, n);

	/* nothing past the cut touched: intact */
	assert_int_equal(pe_input_open(&in, path, n, &err), 0);
	assert_non_null(in.map);
	assert_int_equal(truncate(path, 100), 0);
	assert_int_equal(in.data[0], '1');
	assert_int_equal(pe_input_intact(&in, &err), 0);
	pe_input_close(&in);

	/* the parse runs into the lost pages (from the second on): zeros, no
	 * crash, and intact says so */
	write_temp_at(path, b, n);
	assert_int_equal(pe_input_open(&in, path, n, &err), 0);
	sigbus_now(&now);
	assert_false(same_action(&now, &orig));
	assert_int_equal(truncate(path, page), 0);
	assert_int_equal(pe_csv_parse(in.data, in.len, in.name, &m, NULL, &err), -1);
	snprintf(want, sizeof want, "binary data (a NUL byte at byte %ld)", page);
	assert_non_null(strstr(err.msg, want));
	assert_null(m.v);
	snprintf(want, sizeof want, "%s: changed while being read", path);
	assert_int_equal(pe_input_intact(&in, &err), -1);
	assert_int_equal(err.code, PE_ERR_IO);
	assert_string_equal(err.msg, want);
	pe_input_close(&in);
	/* the action before is back */
	sigbus_now(&now);
	assert_true(same_action(&now, &orig));

	/* two open at once, one of them cut */
	write_temp_at(path, b, n);
	{
		char *other = write_temp(b, n);
		struct pe_input in2;

		assert_int_equal(pe_input_open(&in, path, n, &err), 0);
		assert_int_equal(pe_input_open(&in2, other, n, &err), 0);
		assert_int_equal(truncate(other, 10), 0);
		assert_int_equal(in2.data[n - 1], 0);
		assert_int_equal(in.data[n - 1], '\n');
		assert_int_equal(pe_input_intact(&in, &err), 0);
		assert_int_equal(pe_input_intact(&in2, &err), -1);
		pe_input_close(&in2);
		sigbus_now(&now);
		assert_false(same_action(&now, &orig));
		pe_input_close(&in);
		sigbus_now(&now);
		assert_true(same_action(&now, &orig));
		remove(other);
		free(other);
	}
	remove(path);
	free(path);
	free(b);
}

/* a SIGBUS that is not a watched input's still ends the process: a fault
 * on a mapping of posenc's own, or a signal sent */
static void test_sigbus_not_ours(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = 3 * (size_t)page;
	unsigned char *b = pattern(n);
	char *path = write_temp(b, n), *own = write_temp(b, n);
	int how, status;
	pid_t pid;

	(void)state;
	for (how = 0; how < 2; how++) {
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct pe_input in;
			struct pe_error err;
			volatile const unsigned char *p;
			int fd;

			signal(SIGBUS, SIG_DFL);	/* as in posenc: not cmocka's */
			signal(SIGSEGV, SIG_DFL);
			if (pe_input_open(&in, path, n, &err) != 0)
				_exit(2);
			if (how == 0) {
				fd = open(own, O_RDWR);
				p = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
				if (fd < 0 || p == MAP_FAILED || ftruncate(fd, 10) != 0)
					_exit(2);
				(void)p[n - 1];
			} else {
				kill(getpid(), SIGBUS);
			}
			_exit(3);	/* survived: wrong */
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		/* valgrind delivers the fault on a cut mapping as SIGSEGV */
		assert_true(WIFSIGNALED(status) &&
			    (WTERMSIG(status) == SIGBUS ||
			     (how == 0 && WTERMSIG(status) == SIGSEGV && !pe_long_double_is_extended())));
	}
	remove(path);
	remove(own);
	free(path);
	free(own);
	free(b);
}

/* ---- how far a stream is read -------------------------------------- */

/* stdin from a child writing head[0, n) and then, if endless, zeros (or
 * the text "1,2\n") until the reader goes; returns the child, stdin saved
 * in *saved */
static pid_t feed_stdin(const unsigned char *head, size_t n, int endless, int *saved)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static unsigned char more[65536];
		size_t at = 0, i;
		ssize_t r;

		signal(SIGPIPE, SIG_DFL);
		close(p[0]);
		if (endless == 2)
			for (i = 0; i < sizeof more; i += 4)
				memcpy(more + i, "1,2\n", 4);
		while (at < n && (r = write(p[1], head + at, n - at)) > 0)
			at += (size_t)r;
		while (endless && write(p[1], more, sizeof more) > 0)
			;
		_exit(0);
	}
	close(p[1]);
	*saved = dup(0);
	assert_true(*saved >= 0);
	assert_int_equal(dup2(p[0], 0), 0);
	close(p[0]);
	return pid;
}

static void end_feed(pid_t pid, int saved)
{
	int status;

	assert_int_equal(dup2(saved, 0), 0);	/* closes the pipe: the writer ends */
	close(saved);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

/* o as given; expect ok (then in.len == len) or the message want */
static void stream_case(const unsigned char *head, size_t n, int endless,
			const struct pe_read_opts *o, size_t max, size_t len, const char *want)
{
	struct pe_input in;
	struct pe_error err = { PE_OK, "" };
	int saved, rc;
	pid_t pid = feed_stdin(head, n, endless, &saved);
	double t0 = now_s();

	rc = pe_table_input_open(&in, "-", max, o, &err);
	if (!want) {
		if (rc != 0)
			fail_msg("%s", err.msg);
		if (len == SIZE_MAX) {	/* one chunk or so */
			assert_true(in.len > 0 && in.len <= (size_t)1 << 17);
		} else {
			assert_int_equal(in.len, len);
			assert_memory_equal(in.data, head, n < len ? n : len);
		}
	} else {
		assert_int_equal(rc, -1);
		assert_int_equal(err.code, PE_ERR_DATA);
		assert_string_equal(err.msg, want);
	}
	pe_input_close(&in);
	end_feed(pid, saved);
	assert_true(now_s() - t0 < 5);
}

static void test_stream_bounds(void **state)
{
	static const char npyh[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
	static const char sth[] = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}";
	struct pe_read_opts raw = { .format = PE_IN_RAW, .rows = 2, .cols = 3 };
	unsigned char npy[160], st[128], zeros[24] = { 0 };
	char want[200];
	size_t hn = sizeof npyh - 1, pad = 64 - (10 + hn + 1) % 64, sn = sizeof sth - 1;

	(void)state;
	/* an npy file: its header, then 2 x 3 f4 */
	memcpy(npy, "\x93NUMPY\x01\x00", 8);
	pe_put_u16le(npy + 8, (uint16_t)(hn + pad + 1));
	memcpy(npy + 10, npyh, hn);
	memset(npy + 10 + hn, ' ', pad);
	npy[10 + hn + pad] = '\n';
	memset(npy + 11 + hn + pad, 0, 24);
	/* a safetensors file */
	pe_put_u64le(st, sn);
	memcpy(st + 8, sth, sn);
	memset(st + 8 + sn, 0, 24);

	/* /dev/zero as stdin: text stops at its first NUL, one chunk in */
	stream_case(NULL, 0, 1, NULL, (size_t)1 << 40, SIZE_MAX, NULL);
	/* npy, then endless zeros: exactly the file's length */
	stream_case(npy, 11 + hn + pad + 24, 1, NULL, (size_t)1 << 40, 11 + hn + pad + 24, NULL);
	stream_case(npy, 11 + hn + pad + 24, 0, NULL, (size_t)1 << 40, 11 + hn + pad + 24, NULL);
	/* safetensors: exactly its length; more is an error */
	stream_case(st, 8 + sn + 24, 0, NULL, (size_t)1 << 40, 8 + sn + 24, NULL);
	snprintf(want, sizeof want,
		 "stdin: more than %zu bytes, the length its safetensors header gives (a safetensors file is entirely indexed)",
		 8 + sn + 24);
	stream_case(st, 8 + sn + 24, 1, NULL, (size_t)1 << 40, 0, want);
	/* raw: exactly its shape's bytes; more is an error */
	stream_case(zeros, 24, 0, &raw, (size_t)1 << 40, 24, NULL);
	stream_case(zeros, 24, 1, &raw, (size_t)1 << 40, 0,
		    "stdin: more than 24 bytes, the size of a 2 x 3 float32 table");
	/* endless text: only the limit stops it */
	stream_case((const unsigned char *)"a,b\n", 4, 2, NULL, (size_t)1 << 20, 0,
		    "stdin: larger than the limit of 1048576 bytes");
}

/* a size-0 file (/proc) is read to at most PE_INPUT_PSEUDO_MAX bytes */
static void test_pseudo_file_cap(void **state)
{
	struct pe_input in;
	struct pe_error err = { PE_OK, "" };

	(void)state;
	assert_int_equal(pe_input_open(&in, "/proc/self/pagemap", (size_t)1 << 40, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_string_equal(err.msg,
			    "/proc/self/pagemap: a file that says it is empty (as /proc and /sys files do) but holds more than 64 MiB: not a table; posenc reads at most that from one");
	pe_input_close(&in);
	/* with a table's rule it stops at once: zeros are no text */
	assert_int_equal(pe_table_input_open(&in, "/proc/self/pagemap", (size_t)1 << 40, NULL, &err), 0);
	assert_true(in.len <= (size_t)1 << 17);
	pe_input_close(&in);
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
		cmocka_unit_test(test_truncated_while_parsed),
		cmocka_unit_test(test_sigbus_not_ours),
		cmocka_unit_test(test_stream_bounds),
		cmocka_unit_test(test_pseudo_file_cap),
	};

	/* a writer whose reader gave up must not kill the test */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
