#ifdef __linux__
#define _GNU_SOURCE	/* fallocate, FALLOC_FL_KEEP_SIZE */
#endif
#include "io/output.h"

#include "io/input.h"
#include "io/le.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

int pe_write_error(int errnum, struct pe_error *err)
{
	if (errnum == EPIPE)
		return pe_fail(err, PE_ERR_PIPE, "broken pipe");
	return pe_fail(err, PE_ERR_IO, "write failed: %s",
		       errnum ? strerror(errnum) : "unknown error");
}

int pe_write_str(FILE *fp, const char *s, struct pe_error *err)
{
	return pe_write(fp, s, strlen(s), err);
}

void pe_write_expect(FILE *fp, uint64_t bytes)
{
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
	struct stat st;
	int fd = fileno(fp);
	off_t at;

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || bytes > (uint64_t)INT64_MAX / 2)
		return;
	at = st.st_size;
	(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, at, (off_t)bytes);
#else
	(void)fp;
	(void)bytes;
#endif
}

int pe_write(FILE *fp, const void *p, size_t n, struct pe_error *err)
{
	if (n == 0)
		return 0;
	errno = 0;
	if (fwrite(p, 1, n, fp) != n)
		return pe_write_error(errno, err);
	return 0;
}

/* On a little-endian host the values are already the file's bytes: the
 * whole block goes to fwrite at once, which hands anything larger than the
 * stream's buffer straight to write(2) (one system call per block instead
 * of one per 4 KiB).  Elsewhere they are converted in 16 KiB chunks. */
int pe_write_le32(FILE *fp, const void *data, size_t n, struct pe_error *err)
{
	unsigned char chunk[1 << 14];
	const unsigned char *p = data;
	size_t k, per = sizeof chunk / 4;
	const uint32_t probe = 1;

	if (*(const unsigned char *)&probe == 1)
		return pe_write(fp, data, 4 * n, err);
	while (n) {
		k = n < per ? n : per;
		pe_put_4le_block(chunk, p, k);
		if (pe_write(fp, chunk, 4 * k, err) != 0)
			return -1;
		p += 4 * k;
		n -= k;
	}
	return 0;
}

/* Temp files being written, for pe_output_signal_cleanup: fixed slots,
 * because a signal handler may read them at any moment (a slot is marked
 * used only after its path is complete, and unused before it changes). */
#define TEMP_SLOTS 4
#define TEMP_PATH_MAX 4096
static char temp_path[TEMP_SLOTS][TEMP_PATH_MAX];
static volatile sig_atomic_t temp_used[TEMP_SLOTS];

static void register_temp(const char *tmp)
{
	size_t n = strlen(tmp) + 1;
	int i;

	if (n > TEMP_PATH_MAX)
		return;
	for (i = 0; i < TEMP_SLOTS; i++)
		if (!temp_used[i]) {
			memcpy(temp_path[i], tmp, n);
			temp_used[i] = 1;
			return;
		}
}

static void unregister_temp(const char *tmp)
{
	int i;

	for (i = 0; i < TEMP_SLOTS; i++)
		if (temp_used[i] && strcmp(temp_path[i], tmp) == 0)
			temp_used[i] = 0;
}

void pe_output_signal_cleanup(void)
{
	int i;

	for (i = 0; i < TEMP_SLOTS; i++)
		if (temp_used[i])
			(void)unlink(temp_path[i]);
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	static const char base[] = ".posenc-XXXXXX";
	char *t = malloc(dirlen + sizeof base);

	if (!t)
		return NULL;
	memcpy(t, path, dirlen);
	memcpy(t + dirlen, base, sizeof base);
	return t;
}

/* The file a path finally names: symbolic links followed (also a dangling
 * one, whose target is then created), so the link stays a link.  NULL
 * with errno set on failure (ELOOP after 40 links). */
static char *resolve_links(const char *path)
{
	char *p = dup_str(path), *q, link[TEMP_PATH_MAX];
	const char *slash;
	struct stat st;
	ssize_t n;
	size_t dirlen;
	int hops;

	for (hops = 0; p && hops < 40; hops++) {
		if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
			return p;
		n = readlink(p, link, sizeof link - 1);
		if (n < 0 || (size_t)n >= sizeof link - 1) {
			free(p);
			errno = n < 0 ? errno : ENAMETOOLONG;
			return NULL;
		}
		link[n] = '\0';
		slash = strrchr(p, '/');
		dirlen = link[0] != '/' && slash ? (size_t)(slash - p) + 1 : 0;
		q = malloc(dirlen + (size_t)n + 1);
		if (q) {
			memcpy(q, p, dirlen);
			memcpy(q + dirlen, link, (size_t)n + 1);
		}
		free(p);
		p = q;
	}
	if (p) {
		free(p);
		errno = ELOOP;
	}
	return NULL;
}

/* Names of standard streams and descriptors: written in place, never
 * replaced (renaming over /dev/stdout would replace the link itself). */
static int names_a_stream(const char *path)
{
	return strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0;
}

static int open_in_place(struct pe_output *o, const char *path, int binary, int force,
			 struct pe_error *err)
{
	o->fp = fopen(path, "wb");
	if (!o->fp) {
		int e = errno;

		pe_output_abort(o);
		return pe_fail(err, PE_ERR_IO, "cannot open '%s': %s", path, strerror(e));
	}
	if (binary && !force && isatty(fileno(o->fp))) {
		pe_output_abort(o);
		return pe_fail(err, PE_ERR_USAGE,
			       "refusing to write binary output to a terminal (use -o FILE or --force)");
	}
	return 0;
}

int pe_output_open(struct pe_output *o, const char *path, int binary, int force,
		   struct pe_error *err)
{
	struct stat st;
	mode_t mask, mode;
	int fd;

	memset(o, 0, sizeof *o);
	if (!path || strcmp(path, "-") == 0) {
		if (binary && !force && isatty(STDOUT_FILENO))
			return pe_fail(err, PE_ERR_USAGE,
				       "refusing to write binary output to a terminal (use -o FILE or --force)");
		o->fp = stdout;
		o->to_stdout = 1;
		return 0;
	}
	if (!*path)
		return pe_fail(err, PE_ERR_USAGE, "empty output path");
	o->path = dup_str(path);
	if (!o->path)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	if (names_a_stream(path))
		return open_in_place(o, path, binary, force, err);
	o->target = resolve_links(path);
	if (!o->target) {
		int e = errno;

		pe_output_abort(o);
		return pe_fail(err, PE_ERR_IO, "cannot write '%s': %s", path, strerror(e));
	}
	mask = umask(0);
	umask(mask);
	mode = 0666 & ~mask;
	if (stat(o->target, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			pe_output_abort(o);
			return pe_fail(err, PE_ERR_IO, "cannot write '%s': is a directory", path);
		}
		if (!S_ISREG(st.st_mode))
			return open_in_place(o, path, binary, force, err);
		if (pe_input_seen(st.st_dev, st.st_ino)) {
			pe_output_abort(o);
			return pe_fail(err, PE_ERR_USAGE,
				       "-o '%s' is also an input of this command: refusing to replace it",
				       path);
		}
		mode = st.st_mode & 07777;	/* an existing file keeps its permissions */
	}
	o->tmp = temp_name(o->target);
	if (!o->tmp) {
		pe_output_abort(o);
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int e = errno;

		free(o->tmp);
		o->tmp = NULL;
		pe_output_abort(o);
		return pe_fail(err, PE_ERR_IO, "cannot create '%s': %s", path, strerror(e));
	}
	register_temp(o->tmp);
	(void)fchmod(fd, mode);
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		int e = errno;

		close(fd);
		pe_output_abort(o);
		return pe_fail(err, PE_ERR_IO, "cannot open '%s': %s", path, strerror(e));
	}
	return 0;
}

int pe_output_commit(struct pe_output *o, struct pe_error *err)
{
	int rc = 0, e;

	errno = 0;
	if (fflush(o->fp) != 0 || ferror(o->fp)) {
		pe_write_error(errno, err);
		rc = -1;
	}
	if (o->to_stdout) {
		/* stdout is closed by the command layer at exit; flushed here */
		o->fp = NULL;
		return rc;
	}
	errno = 0;
	e = fclose(o->fp);
	o->fp = NULL;
	if (e != 0 && rc == 0) {
		pe_write_error(errno, err);
		rc = -1;
	}
	if (rc == 0 && o->tmp && rename(o->tmp, o->target) != 0) {
		pe_fail(err, PE_ERR_IO, "cannot rename to '%s': %s", o->path, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && o->tmp) {
		unregister_temp(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	if (rc != 0 && err && err->code == PE_ERR_IO && o->path) {
		char msg[sizeof err->msg];
		size_t n;

		memcpy(msg, err->msg, sizeof msg);
		n = (size_t)snprintf(err->msg, sizeof err->msg, "'%.200s': ", o->path);
		if (n < sizeof err->msg)
			snprintf(err->msg + n, sizeof err->msg - n, "%.300s", msg);
	}
	pe_output_abort(o);
	return rc;
}

void pe_output_abort(struct pe_output *o)
{
	if (o->fp && !o->to_stdout)
		fclose(o->fp);
	o->fp = NULL;
	if (o->tmp) {
		unregister_temp(o->tmp);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->path);
	free(o->target);
	o->path = NULL;
	o->target = NULL;
}
