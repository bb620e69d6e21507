#include "io/output.h"

#include "io/le.h"

#include <errno.h>
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

int pe_write(FILE *fp, const void *p, size_t n, struct pe_error *err)
{
	if (n == 0)
		return 0;
	errno = 0;
	if (fwrite(p, 1, n, fp) != n)
		return pe_write_error(errno, err);
	return 0;
}

int pe_write_le32(FILE *fp, const void *data, size_t n, struct pe_error *err)
{
	unsigned char chunk[1 << 14];
	const unsigned char *p = data;
	size_t k, per = sizeof chunk / 4;

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

int pe_output_open(struct pe_output *o, const char *path, int binary, int force,
		   struct pe_error *err)
{
	struct stat st;
	mode_t mask;
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
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			pe_output_abort(o);
			return pe_fail(err, PE_ERR_IO, "cannot write '%s': is a directory", path);
		}
		if (!S_ISREG(st.st_mode)) {
			o->fp = fopen(path, "wb");
			if (!o->fp) {
				int e = errno;

				pe_output_abort(o);
				return pe_fail(err, PE_ERR_IO, "cannot open '%s': %s", path,
					       strerror(e));
			}
			return 0;
		}
	}
	o->tmp = temp_name(path);
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
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
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
	if (rc == 0 && o->tmp && rename(o->tmp, o->path) != 0) {
		pe_fail(err, PE_ERR_IO, "cannot rename to '%s': %s", o->path, strerror(errno));
		rc = -1;
	}
	if (rc == 0) {
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
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->path);
	o->path = NULL;
}
